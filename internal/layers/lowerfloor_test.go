package layers

import (
	"os/exec"
	"strings"
	"testing"
)

// The lower floor: internal/codec holds the codecs and containers
// (encode's and the recordings' decoding), internal/dsp the signal
// processing; both are below every other room and know none of them.
// internal/testkit holds what tests share (fixtures, fakes, servers they
// start): tests import it, production code never does.
const testkits = "internal/testkit/..."

func init() {
	above := []string{"encode/...", "engine/...", "tags/...", "tts/...", "voices/...", "lexicon/...", "server/...", testkits}
	forbidden["internal/codec/..."] = above
	forbidden["internal/dsp"] = above
}

// TestKitsOnlyInTests: no package's own code (its tests aside) depends
// on a test kit, except the test kits themselves and the packages that
// are test helpers by their name, as net/http/httptest is
// (engine/enginetest, server/servertest, a door's tests' harness).
func TestKitsOnlyInTests(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{.Name}}{{range .Deps}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	kits := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module+"/")
		if matches(testkits, pkg) {
			kits++
			continue
		}
		if testHelper(pkg, fields[1]) {
			continue
		}
		for _, d := range fields[2:] {
			if rel, ok := strings.CutPrefix(d, module+"/"); ok && matches(testkits, rel) {
				t.Errorf("%s depends on the test kit %s", pkg, rel)
			}
		}
	}
	if kits == 0 {
		t.Errorf("no package matches %s", testkits)
	}
}

// testHelper reports whether pkg, a package of that name, is one that
// tests import by its name: a library (not a command) whose last path
// element ends or starts with "test".
func testHelper(pkg, name string) bool {
	last := pkg[strings.LastIndex(pkg, "/")+1:]
	return name != "main" && (strings.HasSuffix(last, "test") || strings.HasPrefix(last, "test"))
}
