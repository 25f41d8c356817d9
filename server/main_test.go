package server_test

import (
	"os"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/internal/testkit/supertonictest"
)

// The tests that need PostgreSQL share one server, a database each; those
// that need the generated PocketTTS model share one directory of it.
func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	pockettest.RemoveShared()
	supertonictest.RemoveShared()
	os.Exit(code)
}
