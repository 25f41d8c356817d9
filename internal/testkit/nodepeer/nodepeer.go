// Package nodepeer runs sherpa-onnx-node, the peer runtime that the parity
// tests and benchmarks of engine/pocket and engine/supertonic compare
// voxkit with, through a script of the test's package (its
// testdata/peer.js) that takes a JSON request file.
package nodepeer

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
	"syscall"
	"testing"
	"time"
)

// Peer is node with sherpa-onnx-node's modules.
type Peer struct {
	node, modules string
}

// Find returns the peer (installed by .ci/install-node-sdk.sh into
// $VOXKIT_NODE_SDK_DIR, else .cache/node-sdk of the checkout), or skips t
// when node or the package is missing (fails it under CI), and under
// -short.
func Find(t testing.TB) Peer {
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
	return Peer{node: node, modules: modules}
}

// Command returns the command that runs testdata/peer.js on req, written
// as JSON to a file whose path is its argument.
func (p Peer) Command(t testing.TB, req any) *exec.Cmd {
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

// Run runs peer.js on req, which writes the audio of each of n texts to
// out.I.f32 as raw little-endian float32, and returns each text's samples.
func (p Peer) Run(t testing.TB, req any, out string, n int) [][]float32 {
	t.Helper()
	if err := p.Command(t, req).Run(); err != nil {
		t.Fatalf("sherpa-onnx-node: %v", err)
	}
	audio := make([][]float32, n)
	for i := range audio {
		raw, err := os.ReadFile(fmt.Sprintf("%s.%d.f32", out, i))
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

// Server is peer.js answering requests line by line on its stdin with
// its costs.
type Server struct {
	in  io.WriteCloser
	out *bufio.Scanner
}

// Serve starts peer.js on req (which asks it to serve); it stops when t
// ends.
func (p Peer) Serve(t testing.TB, req any) *Server {
	t.Helper()
	cmd := p.Command(t, req)
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
	return &Server{in: in, out: bufio.NewScanner(out)}
}

// Cost is the time some work took: by the wall clock, and in CPU time
// (user and system, all the process's threads), which a busy machine
// disturbs less.
type Cost struct {
	Wall, CPU time.Duration
}

// Add adds d to c.
func (c *Cost) Add(d Cost) {
	c.Wall += d.Wall
	c.CPU += d.CPU
}

// Time sends line (as JSON) and returns the cost peer.js answers,
// {"ms": wall clock, "cpu": CPU time} in milliseconds.
func (s *Server) Time(t testing.TB, line any) Cost {
	t.Helper()
	b, _ := json.Marshal(line)
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
	return Cost{Wall: time.Duration(ms.MS * 1e6), CPU: time.Duration(ms.CPU * 1e6)}
}

// CPUTime returns the CPU time (user and system) this process has used.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Measure returns the cost of do in this process.
func Measure(do func()) Cost {
	start, cpu := time.Now(), CPUTime()
	do()
	return Cost{Wall: time.Since(start), CPU: CPUTime() - cpu}
}

// Report reports b.N runs' costs in voxkit (ours) and in sherpa-onnx
// (theirs): the mean wall-clock times in milliseconds as UNIT-ms and
// sherpa-UNIT-ms, their ratio voxkit/sherpa ("ratio") and the ratio of the
// CPU times ("cpu-ratio"), which other load on the machine disturbs less.
func Report(b *testing.B, unit string, ours, theirs Cost) {
	n := float64(b.N) * 1e6
	b.ReportMetric(float64(ours.Wall)/n, unit+"-ms")
	b.ReportMetric(float64(theirs.Wall)/n, "sherpa-"+unit+"-ms")
	b.ReportMetric(float64(ours.Wall)/float64(theirs.Wall), "ratio")
	b.ReportMetric(float64(ours.CPU)/float64(theirs.CPU), "cpu-ratio")
}
