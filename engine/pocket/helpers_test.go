package pocket

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
)

// testModel is the id of the generated model.
const testModel = pockettest.Model

func TestMain(m *testing.M) {
	code := m.Run()
	pockettest.RemoveShared()
	kvShared.Remove()
	os.Exit(code)
}

// voicesDir returns a voices directory holding the generated model
// testModel, with the recordings alto.wav and bass.wav in its test_wavs
// (made once per test binary by pockettest.Shared).
func voicesDir(t testing.TB) string {
	t.Helper()
	dir, err := pockettest.Shared()
	if err != nil {
		t.Fatalf("generating the test model: %v", err)
	}
	return dir
}

func recording(seconds, pitch float64) []float32 { return pockettest.Recording(seconds, pitch) }

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
