package supertonic

import (
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/nodepeer"
)

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

// sherpa runs req in sherpa-onnx-node and returns each text's samples.
func sherpa(t testing.TB, p nodepeer.Peer, req peerRequest) [][]float32 {
	t.Helper()
	req.Out = filepath.Join(t.TempDir(), "out")
	return p.Run(t, req, req.Out, len(req.Texts))
}
