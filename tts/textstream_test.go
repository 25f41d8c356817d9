package tts_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/tts"
)

// tenSentences has ten sentences, tags inside and between them, a number
// and an abbreviation.
const tenSentences = `<|calm|>The morning was quiet.<|/calm|> Dr. Lee opened the door <|pause:300ms|>and stepped outside. ` +
	`It was 7.5 degrees, colder than she expected! Was the bus late again? <|whisper|>She hoped not.<|/whisper|> ` +
	`The street was empty, the shops still closed; <|emphasis|>nobody<|/emphasis|> else was awake. ` +
	`She walked to the corner and waited. <|breath|>A bird sang somewhere above her. ` +
	`Then the bus came around the bend, right on time. <|rate:1.2|>She smiled and got on.<|/rate|>`

// spoken records what OnSentence reports.
type spoken struct{ sentences []tts.SentenceDone }

func (s *spoken) add(d tts.SentenceDone) { s.sentences = append(s.sentences, d) }

func (s *spoken) words() []string {
	var out []string
	for _, d := range s.sentences {
		for _, w := range d.Words {
			out = append(out, w.Word)
		}
	}
	return out
}

// fragments cuts text into pieces of 1 to 5 bytes, whole characters.
func fragments(text string, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []string
	for text != "" {
		n := min(len(text), 1+rng.IntN(5))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

func decodePCM(b []byte) []float32 {
	x := make([]float32, len(b)/2)
	for i := range x {
		x[i] = float32(int16(binary.LittleEndian.Uint16(b[2*i:]))) / 32768
	}
	return x
}

// Text written in pieces of 1 to 5 characters, tags split between pieces,
// gives the sentences of the same text given whole, in order, each as
// long within 2%, with the same words, and no tag read aloud.
func TestTextStreamSameAsWhole(t *testing.T) {
	synth := espeakSynth(t)
	ctx := context.Background()
	var whole spoken
	var wholeAudio bytes.Buffer
	_, err := synth.Stream(ctx, &wholeAudio, tts.Request{Voice: "en-us", Input: tenSentences, Format: encode.PCM, OnSentence: whole.add})
	if err != nil {
		t.Fatal(err)
	}
	seeds := uint64(3)
	if testing.Short() {
		seeds = 1 // make test splits the text three ways
	}
	for seed := range seeds {
		var got spoken
		var audio bytes.Buffer
		ts, err := synth.StreamText(ctx, &audio, tts.Request{Voice: "en-us", Format: encode.PCM, OnSentence: got.add})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fragments(tenSentences, seed) {
			if _, err := ts.WriteString(f); err != nil {
				t.Fatal(err)
			}
		}
		res, err := ts.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(got.sentences) != len(whole.sentences) || res.Sentences != 10 {
			t.Fatalf("seed %d: %d sentences (%d counted), want %d as whole (10 counted)", seed, len(got.sentences), res.Sentences, len(whole.sentences))
		}
		for i, d := range got.sentences {
			w := whole.sentences[i]
			a, b := d.End-d.Start, w.End-w.Start
			if diff := (a - b).Abs(); float64(diff) > 0.02*float64(b) {
				t.Errorf("seed %d: sentence %d lasts %v, %v when whole", seed, i, a, b)
			}
		}
		if g, w := strings.Join(got.words(), " "), strings.Join(whole.words(), " "); g != w {
			t.Errorf("seed %d: words\n%s\nwant\n%s", seed, g, w)
		}
		if strings.Contains(strings.Join(got.words(), " "), "pause") {
			t.Errorf("seed %d: a tag was read aloud: %v", seed, got.words())
		}
		if d := len(audio.Bytes()) - len(wholeAudio.Bytes()); float64(abs(d)) > 0.02*float64(len(wholeAudio.Bytes())) {
			t.Errorf("seed %d: %d bytes of audio, %d when whole", seed, len(audio.Bytes()), len(wholeAudio.Bytes()))
		}
	}
}

func abs(n int) int { return max(n, -n) }

// Word timestamps: in order, not overlapping, inside their sentence's
// audio, and their characters slice the input back to the word.
func TestWordTimestamps(t *testing.T) {
	synth := espeakSynth(t)
	var got spoken
	input := "Ça va? <|loud|>Hello<|/loud|> wörld, it's 42 <|pause:200ms|>degrees. <|spell|>ABC<|/spell|> and <|whisper|>quiet words<|/whisper|>."
	audio := pcm(t, synth, tts.Request{Voice: "en-us", Input: input, OnSentence: got.add})
	runes := []rune(input)
	var prev time.Duration
	for _, d := range got.sentences {
		if len(d.Words) == 0 {
			t.Errorf("sentence %d has no words", d.Index)
		}
		for _, w := range d.Words {
			if w.Start < prev || w.End <= w.Start || w.Start < d.Start || w.End > d.End {
				t.Errorf("%q at %v–%v: after %v, in sentence %v–%v", w.Word, w.Start, w.End, prev, d.Start, d.End)
			}
			prev = w.End
			if w.CharStart < 0 || w.CharEnd > len(runes) || string(runes[w.CharStart:w.CharEnd]) != w.Word {
				t.Errorf("%q: characters [%d,%d) of the input are not the word", w.Word, w.CharStart, w.CharEnd)
			}
		}
	}
	if end := got.sentences[len(got.sentences)-1].End; end > length(audio)+time.Millisecond {
		t.Errorf("the last sentence ends at %v, the audio at %v", end, length(audio))
	}
	want := "Ça va Hello wörld it's 42 degrees ABC and quiet words"
	if g := strings.Join(got.words(), " "); g != want {
		t.Errorf("words %q, want %q", g, want)
	}
}

// The words around a pause are real: the pause's silence lies between
// one word's end and the next one's start, and each word's span holds
// speech.
func TestWordsAroundPause(t *testing.T) {
	synth := espeakSynth(t)
	var got spoken
	audio := pcm(t, synth, tts.Request{Voice: "en-us", Input: "We wait here <|pause:500ms|>then go on.", OnSentence: got.add})
	at := func(d time.Duration) int { return min(len(audio), int(d*pcmRate/time.Second)) }
	var words []tts.Word
	for _, d := range got.sentences {
		words = append(words, d.Words...)
	}
	for i, w := range words {
		if rms := dsp.RMS(audio[at(w.Start):at(w.End)]); rms < 0.01 {
			t.Errorf("%q (%v–%v): RMS %.4f, want speech", w.Word, w.Start, w.End, rms)
		}
		if w.Word != "then" {
			continue
		}
		before := words[i-1]
		if gap := w.Start - before.End; gap < 500*time.Millisecond {
			t.Errorf("%q ends %v before %q starts, want the pause's 500ms at least", before.Word, gap, w.Word)
		}
		if rms := dsp.RMS(audio[at(before.End):at(w.Start)]); rms > 0.001 {
			t.Errorf("between %q and %q: RMS %.4f, want silence", before.Word, w.Word, rms)
		}
	}
}

// Flush speaks an unfinished sentence at once; a tag split across writes
// waits for its end and is never spoken; Close drops a tag that never
// closed (and reports it ignored).
func TestTextStreamFlushAndTags(t *testing.T) {
	synth := espeakSynth(t)
	var got spoken
	var audio bytes.Buffer
	ts, err := synth.StreamText(context.Background(), &audio, tts.Request{Voice: "en-us", Format: encode.PCM, OnSentence: got.add})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Hello there", ", my <|pa"} {
		if _, err := ts.WriteString(f); err != nil {
			t.Fatal(err)
		}
	}
	if len(got.sentences) != 0 {
		t.Fatalf("spoke %v before the sentence ended", got.words())
	}
	if err := ts.Flush(); err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(got.words(), " "); g != "Hello there my" {
		t.Fatalf("after Flush: words %q, want %q", g, "Hello there my")
	}
	flushed := audio.Len()
	for _, f := range []string{"use:300ms|>friend. Next ", "one <|lo"} {
		if _, err := ts.WriteString(f); err != nil {
			t.Fatal(err)
		}
	}
	res, err := ts.Close()
	if err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(got.words(), " "); g != "Hello there my friend Next one" {
		t.Errorf("words %q", g)
	}
	second := decodePCM(audio.Bytes()[flushed:])
	if s := longestSilence(second); s < 300*time.Millisecond {
		t.Errorf("the pause split across writes: longest silence after the flush %v, want 300ms", s)
	}
	if res.Sentences != 3 || len(res.IgnoredTags) != 1 {
		t.Errorf("result %+v, want 3 sentences and the unclosed tag ignored", res)
	}
}
