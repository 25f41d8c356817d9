package supertonic

import (
	"context"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if generated.root != "" {
		os.RemoveAll(generated.root)
	}
	os.Exit(code)
}

// generated holds the models testdata/gen/supertonic.py made in this test
// binary, by their flags: each is made once and shared (engines only read
// them).
var generated struct {
	mu   sync.Mutex
	root string
	dirs map[string]string
	errs map[string]error
}

// smallModels are the small models the tests use, by name and flags:
// the first of them asked for makes them all, in one run of the script
// (Python and onnx start in about 0.35 s; a small model takes a tenth of
// that).
var smallModels = [][]string{
	{"st", "--small"}, {"st", "--small", "--int8"}, {"st", "--small", "--upstream"},
	{"v1", "--small", "--version", "1"}, {"v2", "--small", "--version", "2"}, {"v3", "--small", "--version", "3"},
}

// genModel returns a voices directory holding one model generated with
// flags, named name (flags "--small --version 2", say). The full-size
// model takes tens of seconds to generate.
func genModel(t testing.TB, name string, flags ...string) string {
	t.Helper()
	generated.mu.Lock()
	defer generated.mu.Unlock()
	key := name + " " + strings.Join(flags, " ")
	if generated.dirs == nil {
		generated.dirs, generated.errs = map[string]string{}, map[string]error{}
		root, err := os.MkdirTemp("", "supertonictest-")
		if err != nil {
			t.Fatal(err)
		}
		generated.root = root
	}
	if _, ok := generated.dirs[key]; !ok {
		batch := [][]string{append([]string{name}, flags...)}
		if slices.ContainsFunc(smallModels, func(m []string) bool { return slices.Equal(m, batch[0]) }) {
			batch = nil
			for _, m := range smallModels {
				if _, ok := generated.dirs[strings.Join(m, " ")]; !ok {
					batch = append(batch, m)
				}
			}
		}
		var args, keys []string
		for _, m := range batch {
			k := strings.Join(m, " ")
			voices := filepath.Join(generated.root, strings.NewReplacer(" ", "_", "-", "").Replace(k))
			args = append(append(args, m[1:]...), filepath.Join(voices, m[0]))
			generated.dirs[k] = voices
			keys = append(keys, k)
		}
		out, err := exec.Command("/usr/bin/python3", append([]string{"testdata/gen/supertonic.py"}, args...)...).CombinedOutput()
		if err != nil {
			err = &genError{err: err, out: string(out)}
		}
		for _, k := range keys {
			generated.errs[k] = err
		}
	}
	if err := generated.errs[key]; err != nil {
		t.Fatal(err)
	}
	return generated.dirs[key]
}

type genError struct {
	err error
	out string
}

func (e *genError) Error() string {
	return "generating a model (needs Debian's python3-onnx): " + e.err.Error() + "\n" + e.out
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

// say speaks text in voice with steps and seed and returns the samples.
func say(t testing.TB, e *Engine, voice, text string, rate float64, steps int, seed int64) []float32 {
	t.Helper()
	var out []float32
	req := engine.Request{Voice: voice, Text: text, Seed: seed, Prosody: engine.Prosody{Rate: rate}}
	err := e.SynthesizeSteps(context.Background(), req, steps, func(c engine.Chunk) error {
		if c.SampleRate != 44100 {
			t.Errorf("a chunk at %d Hz", c.SampleRate)
		}
		out = append(out, c.Samples...)
		return nil
	})
	if err != nil {
		t.Fatalf("%s %q: %v", voice, text, err)
	}
	return out
}

// maxLSB returns the largest difference of a and b in 16-bit steps.
func maxLSB(a, b []float32) float64 {
	d := 0.0
	for i := range min(len(a), len(b)) {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i]))*32768)
	}
	return d
}

// rms returns the root mean square of x.
func rms(x []float32) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(max(len(x), 1)))
}
