package server_test

import (
	"flag"
	"os"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/internal/testkit/supertonictest"
)

// The tests that need PostgreSQL share one server, a database each; those
// that need the generated PocketTTS model share one directory of it.
//
// Under -short the parallel tests left mostly wait (on write and read
// timeouts, the slow engine, a held store): eight run at once, not
// GOMAXPROCS (2 on the project's machine), unless -parallel is given.
func TestMain(m *testing.M) {
	flag.Parse()
	parallel := false
	flag.Visit(func(f *flag.Flag) { parallel = parallel || f.Name == "test.parallel" })
	if testing.Short() && !parallel {
		flag.Set("test.parallel", "8")
	}
	code := pgtest.Run(m)
	pockettest.RemoveShared()
	supertonictest.RemoveShared()
	os.Exit(code)
}
