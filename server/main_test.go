package server_test

import (
	"os"
	"testing"

	"github.com/voxkit/voxkit/internal/pgtest"
	"github.com/voxkit/voxkit/internal/pockettest"
)

// The tests that need PostgreSQL share one server, a database each; those
// that need the generated PocketTTS model share one directory of it.
func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	pockettest.RemoveShared()
	os.Exit(code)
}

// long skips, under go test -short, a test that takes seconds by design:
// it waits out a timeout or a window in which something must not happen,
// or puts load on the server. make test runs it.
func long(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds by design; skipped by -short (make test runs it)")
	}
}
