package supertonic

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/testkit/nodepeer"
)

// BenchmarkVersusSherpa compares one request in voxkit with the same in
// sherpa-onnx-node 1.13.8, on the full-size generated model at one thread,
// 5 steps and a seed:
//
//	go test -run '^$' -bench VersusSherpa ./engine/supertonic
//
// Each iteration speaks benchText once in voxkit and once in sherpa-onnx
// (testdata/peer.js serving, timed inside Node), one after the other, so
// a busy machine slows both alike. It reports the mean wall-clock times in
// milliseconds, their ratio voxkit/sherpa ("ratio") and the ratio of the
// CPU times ("cpu-ratio").
func BenchmarkVersusSherpa(b *testing.B) {
	const benchText = "The first sentence is long enough to stand alone. The second one follows it and is a little longer than the first."
	p := nodepeer.Find(b)
	voices := genModel(b, "st3", "--version", "3")
	peer := p.Serve(b, peerRequest{Model: filepath.Join(voices, "st3"), Threads: 1, Lang: "en", Steps: 5, Speed: 1, Seed: 42, Serve: true})
	e := load(b, Options{VoicesDir: voices, Threads: 1})
	req := engine.Request{Voice: "st3:F1", Text: benchText, Seed: 42}
	do := func() {
		if err := e.Synthesize(context.Background(), req, func(engine.Chunk) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	line := map[string]string{"text": benchText}
	do() // warm up both
	peer.Time(b, line)
	var ours, theirs nodepeer.Cost
	b.ResetTimer()
	for b.Loop() {
		ours.Add(nodepeer.Measure(do))
		theirs.Add(peer.Time(b, line))
	}
	nodepeer.Report(b, "total", ours, theirs)
}
