package tts_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/nodepeer"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
)

// peerSentences has five sentences, each a piece of its own for sherpa.
const peerSentences = "The keeper climbed the stairs with a lantern in his hand. " +
	"Outside, the wind pulled at the shutters and the sea was loud. " +
	"He set the lantern down and looked out over the dark water. " +
	"Far away, a single light moved slowly towards the harbour. " +
	"He watched it for a long time before he went back down."

// BenchmarkPeerSentences (issue 42 point 3): five sentences over HTTP,
// one render slot of one thread and nothing rendered ahead, so voxkit
// speaks them sentence by sentence, to the last byte; against sherpa's
// generate() of the text with one thread. Besides the wall clock's ratio,
// the ratio of CPU times (voxkit's process: server and client) and both
// real-time factors.
func BenchmarkPeerSentences(b *testing.B) {
	ts := pocketServer(b, 1, -1)
	peer := startPeer(b, 1)
	fetch(b, ts.URL, peerSentences)
	peer.cost(b, "total", peerSentences)
	var ours, theirs nodepeer.Cost
	var audio float64
	for b.Loop() {
		n := 0
		ours.Add(nodepeer.Measure(func() { _, _, n = fetch(b, ts.URL, peerSentences) }))
		audio += float64(n/2) / pockettest.SampleRate
		theirs.Add(peer.cost(b, "total", peerSentences))
	}
	nodepeer.Report(b, "total", ours, theirs)
	b.ReportMetric(ours.Wall.Seconds()/audio, "rtf")
	b.ReportMetric(theirs.Wall.Seconds()/audio, "sherpa-rtf")
}

// cost is time's answer with the CPU time sherpa's process used.
func (p *peerTimer) cost(b *testing.B, op, text string) nodepeer.Cost {
	msg, _ := json.Marshal(map[string]string{"op": op, "text": text})
	if _, err := p.in.Write(append(msg, '\n')); err != nil || !p.out.Scan() {
		b.Fatalf("sherpa-onnx-node stopped: %v %v", err, p.out.Err())
	}
	var t struct{ MS, CPU float64 }
	if err := json.Unmarshal(p.out.Bytes(), &t); err != nil {
		b.Fatal(err)
	}
	return nodepeer.Cost{Wall: time.Duration(t.MS * 1e6), CPU: time.Duration(t.CPU * 1e6)}
}
