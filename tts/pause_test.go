package tts_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// jitter is how much espeak-ng speech may vary in length from call to
// call: its pitch flutter carries over between calls, and a voiced sound
// ends where its wave cycle does. Over 200 renderings after varied
// requests, "Hello world." spans 1.3 ms; a clause that ends on its only
// word ("Hello, world." after the comma) jumps by 13.6 ms now and then,
// so tests with commas and seams measure silences, not lengths.
const jitter = 2 * time.Millisecond

// others are requests that left state behind in libespeak-ng before it
// was reset per call: other text, voices, speeds and styles.
var others = []tts.Request{
	{Voice: "en-us", Input: "This is one. And this is two."},
	{Voice: "en-us", Input: "And this is two, and this is three; and four."},
	{Voice: "de", Input: "Guten Tag, wie geht es Ihnen heute?"},
	{Voice: "en-us+f3", Input: "And this is two."},
	{Voice: "en-us", Input: "And this is two.", Speed: 1.7},
	{Voice: "en-us", Input: "And this is two.", Speed: 0.4},
	{Voice: "en-us", Input: "<|whisper|>And this <|emphasis|>is<|/emphasis|> two.<|/whisper|> <|high|>Right?"},
}

func espeakSynth(t *testing.T) *tts.Synthesizer {
	t.Helper()
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { synth.Close() })
	return synth
}

// pcm renders req as 16-bit PCM at 24 kHz.
func pcm(t *testing.T, synth *tts.Synthesizer, req tts.Request) []float32 {
	t.Helper()
	req.Format = encode.PCM
	b, _, err := synth.SynthesizeRequest(context.Background(), req)
	if err != nil {
		t.Fatalf("%q: %v", req.Input, err)
	}
	x := make([]float32, len(b)/2)
	for i := range x {
		x[i] = float32(int16(binary.LittleEndian.Uint16(b[2*i:]))) / 32768
	}
	return x
}

func length(x []float32) time.Duration {
	return time.Duration(len(x)) * time.Second / pcmRate
}

// A pause tag adds its duration wherever it stands: inside a sentence
// (where splitting the sentence around it added 0.146 s at pause:0s),
// between sentences — and whatever ran before (the last word varied by up
// to 50 ms with what earlier calls left in libespeak-ng).
func TestPauseAddsItsDuration(t *testing.T) {
	synth := espeakSynth(t)
	audio := func(input string) time.Duration {
		return length(pcm(t, synth, tts.Request{Voice: "en-us", Input: input}))
	}
	for i, tc := range []struct {
		plain, tagged string
		add           time.Duration
	}{
		{"Hello world.", "Hello <|pause:1s|> world.", time.Second},
		{"Hello world.", "Hello <|pause:0s|> world.", 0},
		{"Hello world.", "Hello<|pause:250ms|>world.", 250 * time.Millisecond},
		{"One two three four.", "One <|pause:300ms|> two three <|pause:200ms|> four.", 500 * time.Millisecond},
		{"Hello world. Again.", "Hello world. <|pause:1s|> Again.", time.Second},
	} {
		plain := audio(tc.plain)
		pcm(t, synth, others[i%len(others)])
		got := audio(tc.tagged) - plain
		if d := got - tc.add; d > jitter || d < -jitter {
			t.Errorf("%q adds %v to %q, want %v ±%v", tc.tagged, got, tc.plain, tc.add, jitter)
		}
	}
}

// A seam that a tag makes in a sentence carries no silence of the
// engine's: the silence between the parts is the pause's, to the sample
// (±1 ms of the resampler's ringing). A comma before the seam keeps its
// pause (espeak: about 0.12 s) before the tag's. The pauses here are
// longer than the 0.25 s after the sentence.
func TestSeamSilenceIsThePause(t *testing.T) {
	synth := espeakSynth(t)
	for _, tc := range []struct {
		input    string
		min, max time.Duration
	}{
		{"Hello <|pause:500ms|> <|loud|>world.", 499 * time.Millisecond, 501 * time.Millisecond},
		{"Hello <|loud|>big<|/loud|> <|pause:400ms|> world.", 399 * time.Millisecond, 401 * time.Millisecond},
		{"Hello <|voice:en-us+f3|><|pause:400ms|>world.", 399 * time.Millisecond, 401 * time.Millisecond},
		{"Hello, <|pause:500ms|> <|loud|>world.", 600 * time.Millisecond, 650 * time.Millisecond},
	} {
		if got := longestSilence(pcm(t, synth, tts.Request{Voice: "en-us", Input: tc.input})); got < tc.min || got > tc.max {
			t.Errorf("%q: longest silence %v, want %v to %v", tc.input, got, tc.min, tc.max)
		}
	}
}

// After a comma, and at a seam with or without one, a longer pause
// lengthens the silence there by exactly the difference.
func TestPauseLengthensTheSilence(t *testing.T) {
	synth := espeakSynth(t)
	gap := func(input string) time.Duration {
		return longestSilence(pcm(t, synth, tts.Request{Voice: "en-us", Input: input}))
	}
	for _, input := range []string{
		"Hello, <|pause:%s|> world.",
		"Hello <|pause:%s|> <|loud|>world.",
		"Hello, <|pause:%s|><|loud|>world.",
	} {
		short, long := fmt.Sprintf(input, "600ms"), fmt.Sprintf(input, "1s")
		if d := gap(long) - gap(short); d < 399*time.Millisecond || d > 401*time.Millisecond {
			t.Errorf("%q: the silence is %v longer than with %q, want 400ms", long, d, short)
		}
	}
}

// longestSilence returns the longest run of x below −60 dBFS.
func longestSilence(x []float32) time.Duration {
	run, best := 0, 0
	for _, v := range x {
		if math.Abs(float64(v)) < 0.001 {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return time.Duration(best) * time.Second / pcmRate
}

// The same request gives the same speech whatever ran before it: "Hello
// world." was 49 ms longer after "This is one. And this is two." than
// before. What still varies is below the phoneme level (espeak-ng's pitch
// flutter): see jitter.
func TestSameRequestSameSpeech(t *testing.T) {
	synth := espeakSynth(t)
	hello := tts.Request{Voice: "en-us", Input: "Hello world."}
	first := pcm(t, synth, hello)
	for _, req := range others {
		pcm(t, synth, req)
		got := pcm(t, synth, hello)
		if d := length(got) - length(first); d > jitter || d < -jitter {
			t.Errorf("after %q (%s, speed %v): %v, first %v", req.Input, req.Voice, req.Speed, length(got), length(first))
		}
	}
}
