package supertonic

import (
	"context"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/nodepeer"
)

func TestScratchBatchCPU(t *testing.T) {
	voices := genModel(t, "st3", "--version", "3")
	e := load(t, Options{VoicesDir: voices, Threads: 1, MaxBatch: 1})
	m := e.models["st3"]
	st := &m.styles[0]
	mk := func(text string) *job {
		return &job{ctx: context.Background(), st: st, ids: m.ids(text, "en"), steps: 5, speed: 1, n: newNoise(1)}
	}
	for _, text := range []string{batchTexts[0], batchTexts[2]} {
		for _, bs := range []int{1, 2, 4, 8} {
			var c nodepeer.Cost
			for range 2 {
				jobs := make([]*job, bs)
				for i := range jobs {
					jobs[i] = mk(text)
				}
				c.Add(nodepeer.Measure(func() { m.run(context.Background(), jobs) }))
			}
			t.Logf("%q batch %d: cpu per item %.1f ms, wall per item %.1f ms", text[:10], bs, c.CPU.Seconds()*1000/float64(2*bs), c.Wall.Seconds()*1000/float64(2*bs))
		}
	}
}
