package jobs_test

import (
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// Under -short four parallel tests run at once: most of their time is
// waiting (the slow voice's 40 ms a sentence, River's 50 ms poll, a child
// server starting), not computing (-short: 14.6 -> 9.1 s, the same CPU,
// at load 6).
func TestMain(m *testing.M) {
	testserver.ShortParallel(4)
	testserver.Main(m)
}
