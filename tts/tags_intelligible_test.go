package tts_test

import (
	"context"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/audiotest"
)

// TestTaggedSpeechIntelligible: styled espeak speech, with DSP effects
// applied, is still heard as the right sentence by a recognizer.
func TestTaggedSpeechIntelligible(t *testing.T) {
	audiotest.Require(t, "pocketsphinx_continuous", "ffmpeg")
	rig := tagRigs(t)[1]
	// Whisper is left out: the recognizer's acoustic model knows no
	// whispered speech. Each tag gets one of the first three sentences,
	// which the recognizer picks reliably at every rate tried.
	for i, tag := range []string{"<|high|>", "<|low|>", "<|pitch:+7|>", "<|pitch:-5|>", "<|slow|>", "<|fast|>", "<|loud|>", "<|soft|>", "<|emphasis|>", "<|excited|>", "<|sad|>", "<|calm|>", "<|angry|>"} {
		said := audiotest.Candidates[i%3]
		t.Run(tag, func(t *testing.T) {
			wav, err := rig.synth.Synthesize(context.Background(), rig.voice, tag+said+".", encode.WAV)
			if err != nil {
				t.Fatal(err)
			}
			if heard := audiotest.Recognize(t, audiotest.WriteTemp(t, wav, "wav"), audiotest.Candidates); heard != said {
				t.Errorf("said %q, recognizer heard %q", said, heard)
			}
		})
	}
}
