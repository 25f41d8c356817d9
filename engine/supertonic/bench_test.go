package supertonic

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
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

// batchTexts are the benchmark clients' texts, of unlike lengths (a batch
// pads them to its longest).
var batchTexts = []string{
	"The first sentence is long enough to stand alone.",
	"The second one follows it and is a little longer than the first, with a clause.",
	"A short one.",
	"Numbers, names and places make the fourth sentence of this small set.",
}

// BenchmarkBatch: requests per second on the full-size generated model at
// one thread per run, with 1, 2, 4 and 8 clients each sending requests
// one after another (two each a round), batched (the default) against
// every chunk run alone (MaxBatch 1); the clients' texts are of mixed
// lengths (batchTexts) or all alike (the first):
//
//	go test -run '^$' -bench Batch -benchtime 2x ./engine/supertonic
//
// The two engines take turns round by round, so a busy machine slows both
// alike. It reports both rates, "speedup" (batched/alone by the wall
// clock), "cpu-speedup" (by the process's CPU time, which other load on
// the machine disturbs less) and "mean-batch", the chunks a batch ran.
func BenchmarkBatch(b *testing.B) {
	voices := genModel(b, "st3", "--version", "3")
	batched := load(b, Options{VoicesDir: voices, Threads: 1})
	alone := load(b, Options{VoicesDir: voices, Threads: 1, MaxBatch: 1})
	const perClient = 2
	for _, bc := range []struct {
		name  string
		texts []string
	}{{"mixed", batchTexts}, {"alike", batchTexts[:1]}} {
		for _, clients := range []int{1, 2, 4, 8} {
			b.Run(fmt.Sprintf("texts=%s/clients=%d", bc.name, clients), func(b *testing.B) {
				benchBatch(b, batched, alone, bc.texts, clients, perClient)
			})
		}
	}
}

func benchBatch(b *testing.B, batched, alone *Engine, texts []string, clients, perClient int) {
	round(b, batched, texts, clients, 1) // warm up both
	round(b, alone, texts, clients, 1)
	bt := batched.models["st3"].batches
	bt.mu.Lock()
	bt.batches, bt.jobs = 0, 0
	bt.mu.Unlock()
	var tb, ta nodepeer.Cost
	n := 0
	for b.Loop() {
		tb.Add(round(b, batched, texts, clients, perClient))
		ta.Add(round(b, alone, texts, clients, perClient))
		n += clients * perClient
	}
	b.ReportMetric(float64(n)/tb.Wall.Seconds(), "batched-req/s")
	b.ReportMetric(float64(n)/ta.Wall.Seconds(), "alone-req/s")
	b.ReportMetric(ta.Wall.Seconds()/tb.Wall.Seconds(), "speedup")
	b.ReportMetric(ta.CPU.Seconds()/tb.CPU.Seconds(), "cpu-speedup")
	bt.mu.Lock()
	b.ReportMetric(float64(bt.jobs)/float64(max(bt.batches, 1)), "mean-batch")
	bt.mu.Unlock()
}

// round runs clients clients at once, each sending each requests one
// after another, and returns how long they took.
func round(b *testing.B, e *Engine, texts []string, clients, each int) nodepeer.Cost {
	return nodepeer.Measure(func() {
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				for k := range each {
					req := engine.Request{Voice: "st3:F1", Text: texts[(c+k)%len(texts)], Seed: int64(1 + c)}
					if err := e.Synthesize(context.Background(), req, func(engine.Chunk) error { return nil }); err != nil {
						b.Error(err)
					}
				}
			})
		}
		wg.Wait()
	})
}

// BenchmarkBatchRun: the cost of a chunk in one run of the graphs with
// 1, 2, 4 and 8 chunks of the same text (no padding), on the full-size
// generated model at one thread: what a batch saves, apart from how
// requests meet. It reports the CPU and wall-clock milliseconds per chunk.
func BenchmarkBatchRun(b *testing.B) {
	e := load(b, Options{VoicesDir: genModel(b, "st3", "--version", "3"), Threads: 1, MaxBatch: 1})
	m := e.models["st3"]
	for _, text := range []string{batchTexts[0], batchTexts[2]} {
		for _, size := range []int{1, 2, 4, 8} {
			b.Run(fmt.Sprintf("ids=%d/size=%d", len(m.ids(text, "en")), size), func(b *testing.B) {
				var c nodepeer.Cost
				for b.Loop() {
					jobs := make([]*job, size)
					for i := range jobs {
						jobs[i] = &job{ctx: context.Background(), st: &m.styles[0], ids: m.ids(text, "en"), steps: DefaultSteps, speed: 1, n: newNoise(uint32(i + 1))}
					}
					c.Add(nodepeer.Measure(func() { m.run(context.Background(), jobs) }))
					if jobs[0].err != nil {
						b.Fatal(jobs[0].err)
					}
				}
				n := float64(b.N*size) / 1000
				b.ReportMetric(c.CPU.Seconds()/n, "cpu-ms/chunk")
				b.ReportMetric(c.Wall.Seconds()/n, "ms/chunk")
			})
		}
	}
}
