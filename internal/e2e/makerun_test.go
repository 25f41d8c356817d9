package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// TestMakeRunWyoming: "make run WYOMING=ADDR" starts the server with the
// Wyoming listener at ADDR (ZEROCONF=1 announcing it), and plain "make
// run" without it, as README.md and docs/deploy.md say.
func TestMakeRunWyoming(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	dryRun := func(vars ...string) string {
		t.Helper()
		cmd := exec.Command("make", append([]string{"-n", "run"}, vars...)...)
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n run %v: %v\n%s", vars, err, out)
		}
		return string(out)
	}
	if out := dryRun("WYOMING=0.0.0.0:10200", "ZEROCONF=1"); !strings.Contains(out, "-wyoming-addr 0.0.0.0:10200 -wyoming-zeroconf") {
		t.Errorf("make run WYOMING=0.0.0.0:10200 ZEROCONF=1 runs:\n%s", out)
	}
	if out := dryRun(); strings.Contains(out, "-wyoming") {
		t.Errorf("plain make run turns Wyoming on:\n%s", out)
	}
}

// TestMakeRunBuildsOnlyTheServer: "make run" builds the one binary it
// serves, not every example (minutes on a cold cache), and "make build"
// still builds them all.
func TestMakeRunBuildsOnlyTheServer(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	for target, want := range map[string]string{"run": "./examples/server", "build": "./examples/..."} {
		cmd := exec.Command("make", "-n", target)
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, out)
		}
		var builds []string
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, " build ") && strings.Contains(line, "./examples") {
				builds = append(builds, line)
			}
		}
		if len(builds) != 1 || !strings.HasSuffix(strings.TrimSpace(builds[0]), want) {
			t.Errorf("make %s builds %q, want one build of %s", target, builds, want)
		}
	}
}
