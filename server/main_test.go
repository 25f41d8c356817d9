package server_test

import (
	"os"
	"testing"

	"github.com/voxkit/voxkit/internal/pgtest"
)

// The tests that need PostgreSQL share one server, a database each.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
