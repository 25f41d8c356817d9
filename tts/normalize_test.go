package tts_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// TestNormalizedWordsPointAtTheInput: written forms are spoken as words,
// and the word timings of what was said for them cover the forms as the
// client wrote them, tags included in the count.
func TestNormalizedWordsPointAtTheInput(t *testing.T) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	input := "Pay $9.50 <|pause:200ms|> on 2026-11-24, Dr. Smith."
	words := func(mode tts.Normalization) ([]tts.Word, int) {
		var got []tts.Word
		var audio bytes.Buffer
		_, err := synth.Stream(context.Background(), &audio, tts.Request{Voice: "en-us", Input: input, Format: encode.PCM,
			Normalize: mode, OnSentence: func(d tts.SentenceDone) { got = append(got, d.Words...) }})
		if err != nil {
			t.Fatal(err)
		}
		return got, audio.Len()
	}
	got, _ := words(tts.NormalizeOn)
	runes := []rune(input)
	var written []string
	for _, w := range got {
		if w.CharStart < 0 || w.CharEnd > len(runes) || w.CharStart >= w.CharEnd {
			t.Fatalf("word %+v outside the input", w)
		}
		if s := string(runes[w.CharStart:w.CharEnd]); s != w.Word {
			t.Errorf("word %q covers %q of the input", w.Word, s)
		}
		written = append(written, w.Word)
	}
	if want := "Pay $9.50 on 2026-11-24 Dr. Smith"; strings.Join(written, " ") != want {
		t.Errorf("words %q, want %q", strings.Join(written, " "), want)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Start < got[i-1].Start || got[i].CharStart < got[i-1].CharEnd {
			t.Errorf("words out of order: %+v then %+v", got[i-1], got[i])
		}
	}
}

// TestNormalizeOff: the engine gets the written forms as words, or with
// NormalizeOff as written.
func TestNormalizeOff(t *testing.T) {
	fake := enginetest.NewFake(enginetest.FakeOptions{})
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": fake}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode tts.Normalization
		want string
	}{{tts.NormalizeOn, "It costs nine dollars and fifty cents."}, {tts.NormalizeOff, "It costs $9.50."}} {
		if _, _, err := synth.SynthesizeRequest(context.Background(), tts.Request{Voice: "fake", Input: "It costs $9.50.", Normalize: c.mode}); err != nil {
			t.Fatal(err)
		}
		reqs := fake.Requests()
		if got := reqs[len(reqs)-1].Text; got != c.want {
			t.Errorf("mode %d: the engine read %q, want %q", c.mode, got, c.want)
		}
	}
}

// TestDrawnLettersWords: the words said for letters drawn as symbols
// point at the symbols as written.
func TestDrawnLettersWords(t *testing.T) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	input := "Pick ⓑ or ⑴ then ＨＥＬＬＯ."
	var written []string
	_, err = synth.Stream(context.Background(), &bytes.Buffer{}, tts.Request{Voice: "en-us", Input: input, Format: encode.PCM,
		OnSentence: func(d tts.SentenceDone) {
			for _, w := range d.Words {
				if s := string([]rune(input)[w.CharStart:w.CharEnd]); s != w.Word {
					t.Errorf("word %q covers %q of the input", w.Word, s)
				}
				written = append(written, w.Word)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Pick ⓑ or ⑴ then ＨＥＬＬＯ"; strings.Join(written, " ") != want {
		t.Errorf("words %q, want %q", strings.Join(written, " "), want)
	}
}
