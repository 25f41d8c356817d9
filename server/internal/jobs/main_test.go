package jobs_test

import (
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

func TestMain(m *testing.M) { testserver.Main(m) }
