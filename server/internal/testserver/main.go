package testserver

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/voxkit/voxkit/internal/pgtest"
	"github.com/voxkit/voxkit/internal/pockettest"
)

// Main is the TestMain of a package whose tests start servers: the tests
// that need PostgreSQL share one server, a database each; those that need
// the generated PocketTTS model share one directory of it.
func Main(m *testing.M) {
	code := pgtest.Run(m)
	pockettest.RemoveShared()
	os.Exit(code)
}

// Long skips, under go test -short, a test that takes seconds by design:
// it waits out a timeout or a window in which something must not happen,
// or puts load on the server. make test runs it.
func Long(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds by design; skipped by -short (make test runs it)")
	}
}

// Root is the module's directory, found from this file's, so that a test
// in any package reaches the module's testdata and .cache.
func Root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testserver: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}
