package supertonic

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
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
	if testing.Short() {
		t.Skip("runs sherpa-onnx-node, the peer runtime; skipped by -short (make test runs it)")
	}
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
	Model   string   `json:"model"`
	Threads int      `json:"threads"`
	SID     int      `json:"sid"`
	Lang    string   `json:"lang"`
	Texts   []string `json:"texts"`
	Steps   int      `json:"steps"`
	Speed   float64  `json:"speed"`
	Seed    int64    `json:"seed"`
	Out     string   `json:"out"`
	Serve   bool     `json:"serve"`
}

// command returns the command that runs peer.js on req.
func (p peer) command(t testing.TB, req peerRequest) *exec.Cmd {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	reqPath := filepath.Join(t.TempDir(), "req.json")
	if err := os.WriteFile(reqPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(p.node, "testdata/peer.js", reqPath)
	cmd.Env = append(os.Environ(), "NODE_PATH="+p.modules)
	cmd.Stderr = os.Stderr
	return cmd
}

// run runs the request and returns each text's samples.
func (p peer) run(t testing.TB, req peerRequest) [][]float32 {
	t.Helper()
	req.Out = filepath.Join(t.TempDir(), "out")
	if err := p.command(t, req).Run(); err != nil {
		t.Fatalf("sherpa-onnx-node: %v", err)
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
	return audio
}

// server is peer.js serving timings.
type server struct {
	in  io.WriteCloser
	out *bufio.Scanner
}

// serve starts peer.js serving timings for req; it stops when t ends.
func (p peer) serve(t testing.TB, req peerRequest) *server {
	t.Helper()
	req.Serve = true
	cmd := p.command(t, req)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	return &server{in: in, out: bufio.NewScanner(out)}
}

// time returns the wall clock and CPU time sherpa-onnx took for one
// generate() of text.
func (s *server) time(t testing.TB, text string) (wall, cpu time.Duration) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"text": text})
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	if !s.out.Scan() {
		t.Fatalf("sherpa-onnx-node stopped: %v", s.out.Err())
	}
	var ms struct{ MS, CPU float64 }
	if err := json.Unmarshal(s.out.Bytes(), &ms); err != nil {
		t.Fatalf("peer.js said %q: %v", s.out.Text(), err)
	}
	return time.Duration(ms.MS * 1e6), time.Duration(ms.CPU * 1e6)
}
