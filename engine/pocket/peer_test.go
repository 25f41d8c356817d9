package pocket

import (
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/nodepeer"
)

// peer runs sherpa-onnx-node through testdata/peer.js (internal/testkit/nodepeer).
type peer struct{ nodepeer.Peer }

// findPeer returns the peer, or skips t (see nodepeer.Find).
func findPeer(t testing.TB) peer { return peer{nodepeer.Find(t)} }

// peerRequest is testdata/peer.js's input.
type peerRequest struct {
	Model       string   `json:"model"`
	Threads     int      `json:"threads"`
	Reference   string   `json:"reference"`
	Texts       []string `json:"texts"`
	Steps       int      `json:"steps"`
	Temperature float64  `json:"temperature"`
	Seed        int64    `json:"seed"`
	Out         string   `json:"out"`
	Serve       bool     `json:"serve"`
}

// run runs the request and returns each text's samples.
func (p peer) run(t testing.TB, req peerRequest) [][]float32 {
	t.Helper()
	req.Out = filepath.Join(t.TempDir(), "out")
	return p.Run(t, req, req.Out, len(req.Texts))
}

// server is peer.js serving timings: each call of time is one call of
// sherpa-onnx, timed inside the Node process.
type server struct{ *nodepeer.Server }

// serve starts peer.js serving timings for req; it stops when t ends.
func (p peer) serve(t testing.TB, req peerRequest) server {
	t.Helper()
	req.Serve = true
	return server{p.Serve(t, req)}
}

// time returns sherpa-onnx's cost for op ("total", "first" or "clone") on
// text.
func (s server) time(t testing.TB, op, text string) nodepeer.Cost {
	t.Helper()
	return s.Time(t, map[string]string{"op": op, "text": text})
}
