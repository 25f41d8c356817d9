package pocket

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// peer runs sherpa-onnx-node (installed by .ci/install-node-sdk.sh into
// $VOXKIT_NODE_SDK_DIR, else .cache/node-sdk of the checkout) through
// testdata/peer.js.
type peer struct {
	node, modules string
}

// findPeer returns the peer, or skips t (fails it under CI) when node or
// the package is missing.
func findPeer(t testing.TB) peer {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			t.Fatalf(format+" (run .ci/install-node-sdk.sh)", args...)
		}
		t.Skipf(format+" (run .ci/install-node-sdk.sh)", args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	dir := os.Getenv("VOXKIT_NODE_SDK_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "node-sdk")
	}
	modules, err := filepath.Abs(filepath.Join(dir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "sherpa-onnx-node", "package.json")); err != nil {
		missing("sherpa-onnx-node is not in %s", modules)
	}
	return peer{node: node, modules: modules}
}

// peerRequest is testdata/peer.js's input.
type peerRequest struct {
	Model       string   `json:"model"`
	Threads     int      `json:"threads"`
	Reference   string   `json:"reference"`
	Texts       []string `json:"texts"`
	Steps       int      `json:"steps"`
	Temperature float64  `json:"temperature"`
	Seed        int64    `json:"seed"`
	Repeat      int      `json:"repeat"`
	Out         string   `json:"out"`
}

// peerReport is testdata/peer.js's output, in milliseconds.
type peerReport struct {
	Clone float64 `json:"clone"`
	Texts []struct {
		Total float64 `json:"total"`
		First float64 `json:"first"`
		N     int     `json:"n"`
	} `json:"texts"`
}

// run runs the request and returns the report and each text's samples.
func (p peer) run(t testing.TB, req peerRequest) (peerReport, [][]float32) {
	t.Helper()
	dir := t.TempDir()
	req.Out = filepath.Join(dir, "out")
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	reqPath := filepath.Join(dir, "req.json")
	if err := os.WriteFile(reqPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(p.node, "testdata/peer.js", reqPath)
	cmd.Env = append(os.Environ(), "NODE_PATH="+p.modules)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("sherpa-onnx-node: %v\n%s", err, stderr)
	}
	var rep peerReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("peer.js said %q: %v", out, err)
	}
	audio := make([][]float32, len(req.Texts))
	for i := range req.Texts {
		raw, err := os.ReadFile(fmt.Sprintf("%s.%d.f32", req.Out, i))
		if err != nil {
			t.Fatal(err)
		}
		audio[i] = make([]float32, len(raw)/4)
		for j := range audio[i] {
			audio[i][j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
		}
	}
	return rep, audio
}
