package enginetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/dsp"
)

// Clip is the audio an engine produced for one request.
type Clip struct {
	Samples    []float32
	SampleRate int
	Chunks     int
	// Words are the word timings the chunks carried, in order.
	Words []engine.Word
}

// Duration returns the clip's length.
func (c Clip) Duration() time.Duration {
	if c.SampleRate == 0 {
		return 0
	}
	return time.Duration(len(c.Samples)) * time.Second / time.Duration(c.SampleRate)
}

// RMS returns the clip's root-mean-square level.
func (c Clip) RMS() float64 { return dsp.RMS(c.Samples) }

// Collect runs req on e and gathers every chunk into one clip. It fails if
// the sample rate changes between chunks.
func Collect(ctx context.Context, e engine.Engine, req engine.Request) (Clip, error) {
	var c Clip
	err := e.Synthesize(ctx, req, func(ch engine.Chunk) error {
		if ch.SampleRate <= 0 {
			return fmt.Errorf("enginetest: chunk with sample rate %d", ch.SampleRate)
		}
		if c.SampleRate != 0 && ch.SampleRate != c.SampleRate {
			return fmt.Errorf("enginetest: sample rate changed from %d to %d", c.SampleRate, ch.SampleRate)
		}
		c.SampleRate = ch.SampleRate
		c.Samples = append(c.Samples, ch.Samples...)
		c.Words = append(c.Words, ch.Words...)
		c.Chunks++
		return nil
	})
	return c, err
}

// silenceRMS is the level below which audio counts as silence.
const silenceRMS = 0.001

// Run checks that e honours the engine.Engine contract when speaking with
// voice:
//   - text yields non-silent audio at a positive, stable sample rate;
//   - empty or white-space text yields nothing or silence, without error;
//   - longer text yields longer audio, and a faster rate shorter audio;
//   - cancelling the context stops synthesis within one sentence;
//   - an error returned by the ChunkFunc stops synthesis and is returned;
//   - 8 goroutines at once each get the audio of their own text.
func Run(t *testing.T, e engine.Engine, voice string) {
	t.Helper()
	ctx := context.Background()
	say := func(t *testing.T, text string, rate float64) Clip {
		t.Helper()
		c, err := Collect(ctx, e, engine.Request{Voice: voice, Text: text, Prosody: engine.Prosody{Rate: rate}})
		if err != nil {
			t.Fatalf("Synthesize(%q): %v", text, err)
		}
		return c
	}

	t.Run("Audible", func(t *testing.T) {
		c := say(t, "Hello world. This is a test of the speech engine.", 0)
		if c.SampleRate <= 0 || c.Chunks == 0 {
			t.Fatalf("no audio: %d chunks at %d Hz", c.Chunks, c.SampleRate)
		}
		if rms := c.RMS(); rms < 0.01 {
			t.Errorf("audio is (nearly) silent: RMS %.5f", rms)
		}
		if d := c.Duration(); d < 500*time.Millisecond || d > 20*time.Second {
			t.Errorf("implausible duration %v for two sentences", d)
		}
		for i, v := range c.Samples {
			if v < -1 || v > 1 || math.IsNaN(float64(v)) {
				t.Fatalf("sample %d out of range: %v", i, v)
			}
		}
	})

	t.Run("StableSampleRate", func(t *testing.T) {
		a := say(t, "One.", 0)
		b := say(t, "Two sentences here. And another one!", 0)
		if a.SampleRate != b.SampleRate {
			t.Errorf("sample rate differs between requests: %d and %d", a.SampleRate, b.SampleRate)
		}
	})

	t.Run("EmptyText", func(t *testing.T) {
		for _, text := range []string{"", "   ", "\n\t "} {
			c := say(t, text, 0)
			if rms := c.RMS(); rms > silenceRMS {
				t.Errorf("text %q: got audible audio (RMS %.4f)", text, rms)
			}
		}
	})

	t.Run("LongerTextLongerAudio", func(t *testing.T) {
		short := say(t, "Good morning.", 0)
		long := say(t, "Good morning. The weather today is sunny with a light breeze from the west, and it will stay dry until the evening.", 0)
		if long.Duration() < 2*short.Duration() {
			t.Errorf("long text %v is not clearly longer than short text %v", long.Duration(), short.Duration())
		}
	})

	t.Run("Rate", func(t *testing.T) {
		text := "The quick brown fox jumps over the lazy dog."
		normal, fast := say(t, text, 1), say(t, text, 2)
		ratio := float64(fast.Duration()) / float64(normal.Duration())
		if ratio > 0.75 || ratio < 0.3 {
			t.Errorf("rate 2 gave %.2f of the normal duration, want about 0.5", ratio)
		}
	})

	t.Run("Cancel", func(t *testing.T) {
		text := strings.Repeat("This sentence is here to take some time to speak. ", 20)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		chunksAfterCancel := 0
		cancelled := false
		err := e.Synthesize(ctx, engine.Request{Voice: voice, Text: text}, func(engine.Chunk) error {
			if cancelled {
				chunksAfterCancel++
			}
			if !cancelled {
				cancel()
				cancelled = true
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Synthesize after cancel returned %v, want context.Canceled", err)
		}
		// Chunks of the sentence being rendered at cancellation may still
		// arrive; a whole further sentence must not.
		if chunksAfterCancel > 1 {
			t.Errorf("%d chunks arrived after cancellation", chunksAfterCancel)
		}
	})

	t.Run("CancelAtLastChunk", func(t *testing.T) {
		// Cancelled while its last chunk is delivered, an engine still
		// returns ctx.Err(): a cancelled synthesis never reports success.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		err := e.Synthesize(ctx, engine.Request{Voice: voice, Text: "Hi."}, func(engine.Chunk) error {
			cancel()
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Synthesize returned %v, want context.Canceled", err)
		}
	})

	t.Run("EmitErrorStops", func(t *testing.T) {
		stop := errors.New("stop here")
		calls := 0
		err := e.Synthesize(ctx, engine.Request{Voice: voice, Text: "First sentence. Second sentence. Third sentence."}, func(engine.Chunk) error {
			calls++
			return stop
		})
		if !errors.Is(err, stop) {
			t.Errorf("Synthesize returned %v, want the ChunkFunc's error", err)
		}
		if calls != 1 {
			t.Errorf("ChunkFunc called %d times after returning an error", calls)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		// Texts of clearly different lengths: audio mixed up between
		// goroutines shows as a wrong duration.
		texts := make([]string, 8)
		want := make([]time.Duration, 8)
		for i := range texts {
			texts[i] = strings.TrimSpace(strings.Repeat("banana ", 2*i+1)) + "."
			want[i] = say(t, texts[i], 0).Duration()
		}
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for round := 0; round < 3; round++ {
			for i := range texts {
				wg.Go(func() {
					c, err := Collect(ctx, e, engine.Request{Voice: voice, Text: texts[i]})
					if err != nil {
						errs[i] = err
						return
					}
					if d := c.Duration(); math.Abs(float64(d-want[i])) > 0.1*float64(want[i]) {
						errs[i] = fmt.Errorf("text %d: got %v of audio, alone it gave %v", i, d, want[i])
					}
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
		}
	})

	t.Run("UnknownVoice", func(t *testing.T) {
		err := e.Synthesize(ctx, engine.Request{Voice: "no-such-voice-xyz", Text: "Hello."}, func(engine.Chunk) error { return nil })
		if !errors.Is(err, engine.ErrUnknownVoice) {
			t.Errorf("unknown voice: got %v, want engine.ErrUnknownVoice", err)
		}
	})
}

// CheckWords checks the word timings of a clip of text: each word is a
// non-empty run of text without white space, the words come in text
// order without overlapping, each lies within the clip's audio, and each
// word's audio that is not Estimated holds sound. It returns the number
// of problems it reported.
func CheckWords(t testing.TB, text string, c Clip) int {
	t.Helper()
	bad := 0
	fail := func(format string, args ...any) {
		t.Helper()
		bad++
		t.Errorf(format, args...)
	}
	prevEnd, prevTo := 0, 0
	for i, w := range c.Words {
		if w.Start < prevEnd || w.End <= w.Start || w.End > len(text) {
			fail("word %d: bytes [%d,%d) of %d, after a word ending at %d", i, w.Start, w.End, len(text), prevEnd)
			continue
		}
		if word := text[w.Start:w.End]; strings.TrimSpace(word) != word || strings.ContainsAny(word, " \t\n") {
			fail("word %d: %q is not a word", i, word)
		}
		if w.From < prevTo || w.To <= w.From || w.To > len(c.Samples) {
			fail("word %d %q: samples [%d,%d) of %d, after a word ending at %d", i, text[w.Start:w.End], w.From, w.To, len(c.Samples), prevTo)
			continue
		}
		if !w.Estimated && dsp.RMS(c.Samples[w.From:w.To]) < silenceRMS {
			fail("word %d %q: samples [%d,%d) are silent", i, text[w.Start:w.End], w.From, w.To)
		}
		prevEnd, prevTo = w.End, w.To
	}
	return bad
}

// RunClosed closes e and checks what the engine.Engine contract says of an
// engine after Close: Synthesize fails with an error that wraps
// engine.ErrClosed (not an unknown voice), and Close again returns nil.
func RunClosed(t *testing.T, e engine.Engine, voice string) {
	t.Helper()
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	err := e.Synthesize(context.Background(), engine.Request{Voice: voice, Text: "Hello."}, func(engine.Chunk) error { return nil })
	if !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Synthesize after Close: %v, want an error wrapping engine.ErrClosed", err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
}
