package supertonic

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/nodepeer"
)

// parityTexts are spoken by voxkit and by sherpa-onnx-node in the parity
// test: one sentence; sentences joined into one chunk; text over 300
// characters, so several chunks with silence between them; a paragraph
// break; characters the front end replaces or decomposes.
var parityTexts = []string{
	"Hello world, this is a test of the voice.",
	"The first sentence is short. The second one follows it! Is the third a question?",
	strings.Repeat("This sentence runs on and on, with commas and clauses, so that the text is cut. ", 5),
	"A paragraph ends here.\n\nAnother one starts — with “quotes” and naïve café @ home…",
}

// TestParity: voxkit's samples are sherpa-onnx-node 1.13.8's for the same
// full-size generated model, voice, text, steps and seed, within one
// 16-bit step.
func TestParity(t *testing.T) {
	p := nodepeer.Find(t)
	voices := genModel(t, "st3", "--version", "3")
	dir := filepath.Join(voices, "st3")
	e := load(t, Options{VoicesDir: voices})
	for _, tc := range []struct {
		sid         int
		voice, lang string
		steps       int
		seed        int64
		speed       float64
		texts       []string
	}{
		{0, "st3:F1", "en", 5, 42, 1, parityTexts},
		{7, "st3:M3", "en", 3, 7, 1, parityTexts},
		// Another language (the text wrapped in <de>), and a speed that
		// divides the durations.
		{3, "st3:F4:de", "de", 2, 99, 1.3, parityTexts[:2]},
		{1, "st3:F2:ko", "ko", 4, 5, 0.8, []string{"안녕하세요. 반갑습니다!"}},
	} {
		want := sherpa(t, p, peerRequest{Model: dir, Threads: 1, SID: tc.sid, Lang: tc.lang, Texts: tc.texts, Steps: tc.steps, Speed: tc.speed, Seed: tc.seed})
		for i, text := range tc.texts {
			got := say(t, e, tc.voice, text, tc.speed, tc.steps, tc.seed)
			if rms(got) < 0.01 {
				t.Errorf("%s %q: silent (RMS %.4f)", tc.voice, text, rms(got))
			}
			if len(got) != len(want[i]) {
				t.Errorf("%s %q: %d samples, sherpa-onnx %d", tc.voice, text, len(got), len(want[i]))
				continue
			}
			if d := maxLSB(got, want[i]); d > 1 {
				t.Errorf("%s %q: differs from sherpa-onnx by up to %.3f LSB", tc.voice, text, d)
			} else {
				t.Logf("%s, %d steps, speed %g, %q: %d samples, max difference %.4f LSB", tc.voice, tc.steps, tc.speed, text, len(got), d)
			}
		}
	}
}
