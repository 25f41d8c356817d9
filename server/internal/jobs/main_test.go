package jobs_test

import (
	"flag"
	"strconv"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// parallel is how many of the package's parallel tests run at once
// under -short unless -parallel says (make test keeps the default, one per
// core, beside the race detector): most of their time is waiting (the slow
// voice's 40 ms a sentence, River's 50 ms poll, a child server starting),
// not computing, so four at a time keep two cores busy where one per core
// left them idle half the time (-short: 14.6 -> 9.1 s, the same CPU, at
// load 6).
const parallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && testing.Short() {
		flag.Set("test.parallel", strconv.Itoa(parallel))
	}
	testserver.Main(m)
}
