package pocket

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/internal/codec/wavfile"
)

// parityTexts are spoken by voxkit and by sherpa-onnx-node in the parity
// test: one sentence; sentences long enough to be pieces of their own;
// short ones that are joined; one longer than a piece (200 characters);
// and characters with no piece of their own (byte pieces).
var parityTexts = []string{
	"Hello world, this is a test of the cloned voice.",
	"The first sentence is long enough to stand alone. The second one follows it and is longer than the first! Is the third a question?",
	"Hi. Go on. Stop! Yes? This one is long enough to end the join.",
	"This sentence runs on and on, with commas, clauses and words, longer than any piece may be, so that it has to be cut where a space or a clause mark falls before the limit of two hundred characters, and then it goes on a little more.",
	"Zoë paid €5 — naïve café!",
}

// cloneFile clones the voice of a WAV file with s, with testModel.
func cloneFile(t *testing.T, e *Engine, path string, s Settings) *Voice {
	t.Helper()
	return cloneFileWith(t, e, testModel, path, s)
}

// cloneFileWith clones the voice of a WAV file with s and model.
func cloneFileWith(t *testing.T, e *Engine, model, path string, s Settings) *Voice {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := wavfile.Decode(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Clone(context.Background(), model, a.Samples, a.SampleRate, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func speak(t *testing.T, e *Engine, v *Voice, text string) []float32 {
	t.Helper()
	var out []float32
	err := e.SynthesizeVoice(context.Background(), v, engine.Request{Text: text}, func(c engine.Chunk) error {
		out = append(out, c.Samples...)
		return nil
	})
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return out
}

// maxLSB returns the largest difference of a and b in 16-bit steps.
func maxLSB(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i]))*32768)
	}
	return d
}

// TestParity: at temperature 0 voxkit's samples are sherpa-onnx-node
// 1.13.8's for the same model, recording, text and steps (sherpa's
// silence post-processing off), exactly or within one 16-bit step.
func TestParity(t *testing.T) {
	p := findPeer(t)
	e := loadGen(t)
	dir := filepath.Join(voicesDir(t), testModel)
	for _, ref := range []string{"alto", "bass"} {
		wav := filepath.Join(dir, "test_wavs", ref+".wav")
		want := p.run(t, peerRequest{Model: dir, Threads: 1, Reference: wav, Texts: parityTexts, Steps: 4})
		v := cloneFile(t, e, wav, Settings{Steps: 4})
		for i, text := range parityTexts {
			got := speak(t, e, v, text)
			if len(got) != len(want[i]) {
				t.Errorf("%s %q: %d samples, sherpa-onnx %d", ref, text, len(got), len(want[i]))
				continue
			}
			if d := maxLSB(got, want[i]); d > 1 {
				t.Errorf("%s %q: differs from sherpa-onnx by up to %.2f LSB", ref, text, d)
			} else {
				t.Logf("%s %q: %d samples, max difference %.4f LSB", ref, text, len(got), d)
			}
		}
	}
}

// TestOtherReference: another recording gives other audio, in voxkit and
// in sherpa-onnx alike.
func TestOtherReference(t *testing.T) {
	e := loadGen(t)
	dir := filepath.Join(voicesDir(t), testModel, "test_wavs")
	text := parityTexts[0]
	alto := speak(t, e, cloneFile(t, e, filepath.Join(dir, "alto.wav"), Settings{Steps: 4}), text)
	bass := speak(t, e, cloneFile(t, e, filepath.Join(dir, "bass.wav"), Settings{Steps: 4}), text)
	if len(alto) == len(bass) && maxLSB(alto, bass) < 100 {
		t.Errorf("alto and bass recordings give the same audio (%d samples, within %.1f LSB)", len(alto), maxLSB(alto, bass))
	}
	c, err := enginetest.Collect(context.Background(), e, engine.Request{Voice: testModel + ":alto", Text: text})
	if err != nil || len(c.Samples) == 0 {
		t.Fatalf("speaking as %s:alto: %v", testModel, err)
	}
}

// TestParityGrowingState: a model whose lm_main state grows every run (so
// it cannot be written in place) speaks as sherpa-onnx speaks it too.
func TestParityGrowingState(t *testing.T) {
	p := findPeer(t)
	dir := filepath.Join(t.TempDir(), "pocket-grow")
	if out, err := exec.Command("/usr/bin/python3", "testdata/gen/pocket.py", "--growing", dir).CombinedOutput(); err != nil {
		t.Fatalf("generating: %v\n%s", err, out)
	}
	e := load(t, Options{Models: []string{dir}})
	wav := filepath.Join(voicesDir(t), testModel, "test_wavs", "alto.wav")
	texts := parityTexts[:2]
	want := p.run(t, peerRequest{Model: dir, Threads: 1, Reference: wav, Texts: texts, Steps: 3})
	v := cloneFileWith(t, e, "pocket-grow", wav, Settings{Steps: 3})
	for i, text := range texts {
		got := speak(t, e, v, text)
		if len(got) != len(want[i]) || maxLSB(got, want[i]) > 1 {
			t.Errorf("%q: %d samples, sherpa-onnx %d", text, len(got), len(want[i]))
		}
	}
}
