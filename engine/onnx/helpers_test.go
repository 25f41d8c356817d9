package onnx

import (
	"context"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
)

// Fixture voices made by testdata/gen/tone.py.
const (
	toneLow    = "en_US-tone-low"        // 16 kHz, lessac-low config
	toneMedium = "en_US-tone-medium"     // 22.05 kHz, lessac-medium config
	toneVCTK   = "en_GB-tonevctk-medium" // 22.05 kHz, 109 speakers
	tonePeriod = 1024                    // samples per id at length_scale 1
	voicesDir  = "testdata/voices"
)

// testLibrary returns the ONNX Runtime library for tests: ONNXRUNTIME_LIB
// if set (the Makefile sets it after running .ci/install-onnxruntime.sh),
// else FindLibrary's search. Without one the test fails under CI and is
// skipped elsewhere.
func testLibrary(t testing.TB) string {
	t.Helper()
	lib, err := FindLibrary(os.Getenv("ONNXRUNTIME_LIB"))
	if err != nil {
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			t.Fatalf("ONNX Runtime is required in CI: %v", err)
		}
		t.Skipf("ONNX Runtime not installed (run .ci/install-onnxruntime.sh): %v", err)
	}
	return lib
}

var (
	espeakOnce sync.Once
	espeakEng  *espeak.Engine
	espeakErr  error
)

// phonemizer returns the real espeak-ng phonemizer.
func phonemizer(t testing.TB) engine.Phonemizer {
	t.Helper()
	espeakOnce.Do(func() { espeakEng, espeakErr = espeak.New(espeak.Options{}) })
	if espeakErr != nil {
		t.Fatalf("espeak: %v", espeakErr)
	}
	return espeakEng
}

// load loads an engine for the test and closes it at the end.
func load(t testing.TB, opts Options) *Engine {
	t.Helper()
	opts.LibraryPath = testLibrary(t)
	if opts.Phonemizer == nil {
		opts.Phonemizer = phonemizer(t)
	}
	opts.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	e, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// fixtureModels returns the paths of the given fixture voices.
func fixtureModels(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, filepath.Join(voicesDir, n+".onnx"))
	}
	return out
}

// copyVoice copies fixture voice name into dir as newName.
func copyVoice(t testing.TB, dir, name, newName string) {
	t.Helper()
	for _, ext := range []string{".onnx", ".onnx.json"} {
		data, err := os.ReadFile(filepath.Join(voicesDir, name+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, newName+ext), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// collect synthesizes req and returns the concatenated audio and its
// sample rate.
func collect(t testing.TB, e engine.Engine, req engine.Request) ([]float32, int, int) {
	t.Helper()
	var out []float32
	rate, chunks := 0, 0
	err := e.Synthesize(context.Background(), req, func(c engine.Chunk) error {
		out = append(out, c.Samples...)
		rate = c.SampleRate
		chunks++
		return nil
	})
	if err != nil {
		t.Fatalf("Synthesize(%+v): %v", req, err)
	}
	return out, rate, chunks
}

// decodeTones reads back the bins (id + sid) of tone-model audio made
// with d samples per id: 0 for a silent segment. It also returns the
// largest absolute sample.
func decodeTones(x []float32, d int) (bins []int, peak float64) {
	for start := 0; start+d <= len(x); start += d {
		seg := x[start : start+d]
		var energy float64
		crossings := 0
		for i, v := range seg {
			energy += float64(v) * float64(v)
			peak = max(peak, math.Abs(float64(v)))
			if i > 0 && (seg[i-1] < 0) != (v < 0) {
				crossings++
			}
		}
		if energy/float64(d) < 1e-6 {
			bins = append(bins, 0)
			continue
		}
		// Zero crossings give the frequency roughly; the strongest
		// nearby bin gives it exactly.
		guess := int(math.Round(float64(crossings) * tonePeriod / float64(2*d)))
		best, bestPow := 0, -1.0
		for k := max(1, guess-3); k <= guess+3; k++ {
			if p := goertzel(seg, float64(k)/tonePeriod); p > bestPow {
				best, bestPow = k, p
			}
		}
		bins = append(bins, best)
	}
	return bins, peak
}

// goertzel returns the power of x at freq cycles per sample.
func goertzel(x []float32, freq float64) float64 {
	w := 2 * math.Pi * freq
	c := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range x {
		s1, s2 = float64(v)+c*s1-s2, s1
	}
	return s1*s1 + s2*s2 - c*s1*s2
}

// session returns the loaded session of the model NAME, held until t ends.
func session(t testing.TB, e *Engine, name string) (*model, *ort.DynamicAdvancedSession) {
	t.Helper()
	m := e.models[name]
	s, _, err := e.acquire(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.release(m) })
	return m, s
}
