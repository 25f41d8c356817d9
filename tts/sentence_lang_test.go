package tts_test

import (
	"context"
	"io"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// TestSentencesInTheVoicesLanguage: the input is cut into sentences as
// text of the voice's language: a German voice reads "Am 3. Tag" as one
// sentence ("am dritten Tag", no pause after "dritten"), an English one
// still ends "I am 30." before "My".
func TestSentencesInTheVoicesLanguage(t *testing.T) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	for _, c := range []struct {
		voice, input string
		want         int
	}{
		{"de", "Am 3. Tag ging er heim.", 1},
		{"de", "Er kam am 2. Abend zurück. Dann schlief er.", 2},
		{"en-us", "I am 30. My sister is 25.", 2},
	} {
		n := 0
		_, err := synth.Stream(context.Background(), io.Discard, tts.Request{Voice: c.voice, Input: c.input, Format: encode.PCM,
			OnSentence: func(tts.SentenceDone) { n++ }})
		if err != nil {
			t.Fatal(err)
		}
		if n != c.want {
			t.Errorf("%s %q: %d sentences, want %d", c.voice, c.input, n, c.want)
		}
	}
}
