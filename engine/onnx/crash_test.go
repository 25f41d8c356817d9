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
	for _, tt := range []struct{ dir, voice string }{
		{voicesDir, toneLow},
		{kokoroDir, "af_heart"},
	} {
		e := load(t, Options{VoicesDir: tt.dir})
		for _, text := range []string{strings.Repeat("a.", 100), strings.Repeat("u.s. ", 100), "http://" + strings.Repeat("é.", 100) + "fr"} {
			audio, _, _ := collect(t, e, engine.Request{Voice: tt.voice, Text: text})
			if len(audio) == 0 {
				t.Errorf("%s: %.20q…: no audio", tt.voice, text)
			}
		}
	}
}
