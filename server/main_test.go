package server_test

import (
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// Under -short the parallel tests left mostly wait (on write and read
// timeouts, the slow engine, a held store): eight run at once.
func TestMain(m *testing.M) {
	testserver.ShortParallel(8)
	testserver.Main(m)
}
