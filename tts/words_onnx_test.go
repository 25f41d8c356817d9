package tts_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/tts"
)

// Word timestamps of Piper voices through tts: exact from a model with
// the alignment output, estimated (and marked so) from one without; both
// placed in the request's audio across sentences and a pause, and both
// slicing the input back to the word.
func TestWordTimestampsONNX(t *testing.T) {
	eng := onnxtest.Load(t, onnx.Options{Models: []string{
		filepath.Join("..", "engine", "onnx", "testdata", "voices", "en_US-tone-medium.onnx"),
		filepath.Join("..", "engine", "onnx", "testdata", "align", "en_US-tonealign-low.onnx"),
	}})
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"onnx": eng}})
	if err != nil {
		t.Fatal(err)
	}
	input := "Good morning, <|pause:400ms|>dear friend. How are you today?"
	for _, tc := range []struct {
		voice     string
		estimated bool
	}{{"en_US-tonealign-low", false}, {"en_US-tone-medium", true}} {
		var got spoken
		audio := pcm(t, s, tts.Request{Voice: tc.voice, Input: input, OnSentence: got.add})
		runes := []rune(input)
		var prev time.Duration
		var words []tts.Word
		for _, d := range got.sentences {
			for _, w := range d.Words {
				if w.Start < prev || w.End <= w.Start || w.Start < d.Start || w.End > d.End || w.Estimated != tc.estimated {
					t.Errorf("%s: %+v after %v, in sentence %v–%v", tc.voice, w, prev, d.Start, d.End)
				}
				if string(runes[w.CharStart:w.CharEnd]) != w.Word {
					t.Errorf("%s: %q: characters [%d,%d) are not the word", tc.voice, w.Word, w.CharStart, w.CharEnd)
				}
				prev = w.End
				words = append(words, w)
			}
		}
		if g := strings.Join(got.words(), " "); g != "Good morning dear friend How are you today" {
			t.Errorf("%s: words %q", tc.voice, g)
		}
		if prev > length(audio) {
			t.Errorf("%s: the last word ends at %v, after the audio (%v)", tc.voice, prev, length(audio))
		}
		// The pause lies between "morning" and "dear".
		if gap := words[2].Start - words[1].End; gap < 400*time.Millisecond {
			t.Errorf("%s: %v between %q and %q, want the pause's 400ms at least", tc.voice, gap, words[1].Word, words[2].Word)
		}
	}
}
