package tts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// TestTaggedSpeechIntelligible: styled espeak speech, with DSP effects
// applied, is still heard as the right sentence by a recognizer.
func TestTaggedSpeechIntelligible(t *testing.T) {
	if testing.Short() {
		t.Skip("the recognizer listens for seconds; make test runs it")
	}
	audiotest.Require(t, "pocketsphinx_continuous", "ffmpeg")
	rig := tagRigs(t)[1]
	// Whisper is left out: the recognizer's acoustic model knows no
	// whispered speech. The recognizer is a forced choice between
	// sentences and is marginal on espeak-ng's voice: a few samples of
	// difference (espeak-ng's pitch flutter carries over from one call to
	// the next) can flip one sentence. So each tag speaks the first three
	// sentences and must be heard right in at least two.
	for _, tag := range []string{"<|high|>", "<|low|>", "<|pitch:+7|>", "<|pitch:-5|>", "<|slow|>", "<|fast|>", "<|loud|>", "<|soft|>", "<|emphasis|>", "<|excited|>", "<|sad|>", "<|calm|>", "<|angry|>"} {
		t.Run(tag, func(t *testing.T) {
			var misheard []string
			for _, said := range audiotest.Candidates[:3] {
				wav, err := rig.synth.Synthesize(context.Background(), rig.voice, tag+said+".", encode.WAV)
				if err != nil {
					t.Fatal(err)
				}
				if heard := audiotest.Recognize(t, audiotest.WriteTemp(t, wav, "wav"), audiotest.Candidates); heard != said {
					misheard = append(misheard, fmt.Sprintf("said %q, heard %q", said, heard))
				}
			}
			if len(misheard) > 1 {
				t.Errorf("%d of 3 sentences misheard: %s", len(misheard), strings.Join(misheard, "; "))
			}
		})
	}
}
