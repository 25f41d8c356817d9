package onnx

import (
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine"
)

// TestCrashingTextPhonemized: Piper and Kokoro voices phonemize with
// libespeak-ng, which texts like these crashed (and the process with
// it); they speak.
func TestCrashingTextPhonemized(t *testing.T) {
	for v, tt := range []struct{ dir, voice string }{
		{voicesDir, toneLow},
		{kokoroDir, "af_heart"},
	} {
		e := load(t, Options{VoicesDir: tt.dir})
		for i, text := range []string{strings.Repeat("a.", 100), strings.Repeat("u.s. ", 100), "http://" + strings.Repeat("é.", 100) + "fr"} {
			if testing.Short() && i != 2*v {
				continue // Piper the first text, Kokoro the last; make test speaks each with both (engine/espeak's TestCrashersSpeak speaks every crasher)
			}
			audio, _, _ := collect(t, e, engine.Request{Voice: tt.voice, Text: text})
			if len(audio) == 0 {
				t.Errorf("%s: %.20q…: no audio", tt.voice, text)
			}
		}
	}
}
