package pocket

import (
	"context"
	"encoding/binary"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/onnxtest"
)

// testModel is the id of the model testdata/gen/pocket.py makes.
const testModel = "pocket-gen"

// genRoot holds the generated models of this test binary; TestMain
// removes it.
var genRoot string

func TestMain(m *testing.M) {
	code := m.Run()
	if genRoot != "" {
		os.RemoveAll(genRoot)
	}
	os.Exit(code)
}

var (
	genOnce sync.Once
	genDir  string // the voices directory holding testModel
	genErr  error
)

// voicesDir returns a voices directory holding the generated model
// testModel (made once per test binary by testdata/gen/pocket.py, which
// needs Debian's python3-onnx) and, in testModel/test_wavs, the recordings
// alto.wav and bass.wav.
func voicesDir(t testing.TB) string {
	t.Helper()
	genOnce.Do(func() {
		if genRoot, genErr = os.MkdirTemp("", "pocket-test-"); genErr != nil {
			return
		}
		genDir = filepath.Join(genRoot, "voices")
		dir := filepath.Join(genDir, testModel)
		out, err := exec.Command("/usr/bin/python3", "testdata/gen/pocket.py", dir).CombinedOutput()
		if err != nil {
			genErr = &genError{err: err, out: string(out)}
			return
		}
		if err := os.MkdirAll(filepath.Join(dir, "test_wavs"), 0o755); err != nil {
			genErr = err
			return
		}
		for name, pitch := range map[string]float64{"alto": 220, "bass": 110} {
			if err := writeWAV(filepath.Join(dir, "test_wavs", name+".wav"), recording(3, pitch)); err != nil {
				genErr = err
				return
			}
		}
	})
	if genErr != nil {
		t.Fatalf("generating the test model (needs Debian's python3-onnx): %v", genErr)
	}
	return genDir
}

type genError struct {
	err error
	out string
}

func (e *genError) Error() string { return e.err.Error() + "\n" + e.out }

// recording returns seconds of a voice-like test signal at SampleRate: a
// pitch with harmonics and vibrato, in syllables, rounded to 16 bits as
// a WAV file holds it.
func recording(seconds, pitch float64) []float32 {
	n := int(seconds * SampleRate)
	x := make([]float32, n)
	phase := 0.0
	for i := range x {
		t := float64(i) / SampleRate
		f := pitch * (1 + 0.03*math.Sin(2*math.Pi*5*t))
		phase += 2 * math.Pi * f / SampleRate
		env := 0.5 + 0.5*math.Sin(2*math.Pi*3*t)
		v := 0.0
		for h := 1.0; h <= 5; h++ {
			v += math.Sin(h*phase) / h
		}
		x[i] = float32(0.3 * env * v)
	}
	return dsp.AppendFloat32(nil, dsp.AppendInt16(nil, x))
}

// writeWAV writes samples as a 16-bit mono WAV file at SampleRate.
func writeWAV(path string, samples []float32) error {
	pcm := dsp.AppendInt16(nil, samples)
	b := encode.WAVHeader(encode.WAVPCM, SampleRate, 16, uint32(2*len(pcm)))
	for _, s := range pcm {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return os.WriteFile(path, b, 0o644)
}

// load loads an engine of opts for the test and closes it at the end.
func load(t testing.TB, opts Options) *Engine {
	t.Helper()
	opts.LibraryPath = onnxtest.Library(t)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	e, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// loadGen loads the generated model from its voices directory.
func loadGen(t testing.TB) *Engine {
	t.Helper()
	return load(t, Options{VoicesDir: voicesDir(t)})
}
