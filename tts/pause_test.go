package tts_test

import (
	"context"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
)

// A pause tag adds its duration, within 1 ms, wherever it stands: inside
// a sentence (where splitting the sentence around it added 0.146 s at
// pause:0s), after a comma, between sentences.
func TestPauseAddsItsDuration(t *testing.T) {
	synth, err := espeak.NewSynthesizer(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	audio := func(input string) time.Duration {
		_, res, err := synth.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: input, Format: encode.PCM})
		if err != nil {
			t.Fatal(err)
		}
		return res.Audio
	}
	for _, tc := range []struct {
		plain, tagged string
		add, within   time.Duration
	}{
		{"Hello world.", "Hello <|pause:1s|> world.", time.Second, time.Millisecond},
		{"Hello world.", "Hello <|pause:0s|> world.", 0, time.Millisecond},
		{"Hello world.", "Hello<|pause:250ms|>world.", 250 * time.Millisecond, time.Millisecond},
		{"One two three four.", "One <|pause:300ms|> two three <|pause:200ms|> four.", 500 * time.Millisecond, time.Millisecond},
		{"Hello world. Again.", "Hello world. <|pause:1s|> Again.", time.Second, time.Millisecond},
		// espeak-ng's pause at a comma varies from call to call by up
		// to about 15 ms (its state carries over between calls).
		{"Hello, world.", "Hello, <|pause:1s|> world.", time.Second, 20 * time.Millisecond},
	} {
		got := audio(tc.tagged) - audio(tc.plain)
		if d := got - tc.add; d > tc.within || d < -tc.within {
			t.Errorf("%q adds %v to %q, want %v ±%v", tc.tagged, got, tc.plain, tc.add, tc.within)
		}
	}
}
