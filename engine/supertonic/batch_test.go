package supertonic

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/testkit/wait"
)

// batchRequests differ in voice, language, text length, chunks, speed,
// seed and steps. The first four are alike enough in length to run as one
// batch (37, 39, 44 and 37 ids at speeds 1, 1, 1.1 and 0.9; their frames
// padded too); the rest run apart: a long text of two chunks, other
// steps, a short text.
var batchRequests = []struct {
	voice, text string
	rate        float64
	steps       int
	seed        int64
}{
	{"st:F1", "Hello world, this is a test.", 1, 5, 1},
	{"st:M2", "Hello there, this is the test.", 1, 5, 2},
	{"st:F3:de", "Guten Tag, wie geht es Ihnen heute?", 1.1, 5, 3},
	{"st:M1:ko", "안녕하세요. 반갑습니다!", 0.9, 5, 4},
	{"st:F2", strings.Repeat("This sentence runs on and on, with commas and clauses, so that the text is cut. ", 5), 1, 5, 5},
	{"st:F5", "Fewer steps run in a batch of their own.", 1, 2, 6},
	{"st:M5", "Hi.", 1, 5, 7},
}

// TestBatch: requests that wait while the model is busy run as one batch
// (the longest text padding the others, as sherpa-onnx pads a batch), and
// each gets the samples it gets alone, within one 16-bit step; requests
// with other steps or lengths far from theirs run in other batches.
func TestBatch(t *testing.T) {
	t.Run("small", func(t *testing.T) { testBatch(t, "st", "--small") })
	t.Run("full-size", func(t *testing.T) {
		if testing.Short() {
			t.Skip("the full-size model takes tens of seconds to make and to run")
		}
		testBatch(t, "st3", "--version", "3")
	})
}

// testBatch runs batchRequests on the generated model name made with
// flags, alone and then as batches.
func testBatch(t *testing.T, name string, flags ...string) {
	voices := genModel(t, name, flags...)
	voice := func(v string) string { return name + strings.TrimPrefix(v, "st") }
	serial := load(t, Options{VoicesDir: voices, MaxBatch: 1})
	want := make([][]float32, len(batchRequests))
	for i, r := range batchRequests {
		want[i] = say(t, serial, voice(r.voice), r.text, r.rate, r.steps, r.seed)
	}
	e := load(t, Options{VoicesDir: voices})
	b := e.models[name].batches
	release := hold(t, b, len(batchRequests))
	got := make([][]float32, len(batchRequests))
	var wg sync.WaitGroup
	for i, r := range batchRequests {
		wg.Go(func() { got[i] = say(t, e, voice(r.voice), r.text, r.rate, r.steps, r.seed) })
	}
	release()
	wg.Wait()
	if b.largest != 4 {
		t.Errorf("the largest batch ran %d chunks, want 4", b.largest)
	}
	for i, r := range batchRequests {
		if len(got[i]) != len(want[i]) {
			t.Errorf("%s %q: %d samples batched, %d alone", r.voice, r.text, len(got[i]), len(want[i]))
		} else if d := maxLSB(got[i], want[i]); d > 1 {
			t.Errorf("%s %q: batched differs from alone by up to %.3f LSB", r.voice, r.text, d)
		} else {
			t.Logf("%s: %d samples, batched differs from alone by up to %.4f LSB", r.voice, len(got[i]), d)
		}
	}
}

// TestTake: a batch takes the first job waiting and those after it with
// its steps and style shapes, while padding them to the longest adds at
// most padPerChunk ids a chunk to their work and the batch holds at most max; the
// others wait in their order, and jobs whose requests ended are dropped.
func TestTake(t *testing.T) {
	st, other := &style{ttlDims: [3]int64{1, 50, 256}}, &style{ttlDims: [3]int64{1, 50, 128}}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	mk := func(name string, ids, steps int, speed float32, s *style, ctx context.Context) *job {
		return &job{ctx: ctx, ids: make([]int64, ids), steps: steps, speed: speed, st: s, err: errors.New(name), done: make(chan struct{})}
	}
	bg := context.Background()
	for _, tc := range []struct {
		name        string
		max         int
		queue       []*job
		batch, rest string
	}{
		{"alike", 8, []*job{mk("a", 40, 5, 1, st, bg), mk("b", 42, 5, 1, st, bg), mk("c", 41, 5, 1, st, bg), mk("d", 46, 5, 1, st, bg)}, "abc", "d"},
		{"far", 8, []*job{mk("a", 40, 5, 1, st, bg), mk("b", 100, 5, 1, st, bg), mk("c", 12, 5, 1, st, bg), mk("d", 42, 5, 1, st, bg)}, "ad", "bc"},
		{"speed", 8, []*job{mk("a", 40, 5, 1, st, bg), mk("b", 40, 5, 2, st, bg), mk("c", 80, 5, 2, st, bg)}, "ac", "b"},
		{"steps", 8, []*job{mk("a", 40, 5, 1, st, bg), mk("b", 40, 3, 1, st, bg), mk("c", 40, 5, 1, st, bg)}, "ac", "b"},
		{"shapes", 8, []*job{mk("a", 40, 5, 1, st, bg), mk("b", 40, 5, 1, other, bg)}, "a", "b"},
		{"max", 2, []*job{mk("a", 40, 5, 1, st, bg), mk("b", 40, 5, 1, st, bg), mk("c", 40, 5, 1, st, bg)}, "ab", "c"},
		{"ended", 8, []*job{mk("a", 40, 5, 1, st, ended), mk("b", 100, 5, 1, st, bg), mk("c", 40, 5, 1, st, ended)}, "b", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &batcher{max: tc.max, queue: tc.queue}
			names := func(jobs []*job) string {
				s := ""
				for _, j := range jobs {
					s += j.err.Error()
				}
				return s
			}
			if got, rest := names(b.take()), names(b.queue); got != tc.batch || rest != tc.rest {
				t.Errorf("batch %q, left %q; want %q, %q", got, rest, tc.batch, tc.rest)
			}
			for _, j := range tc.queue {
				if j.ctx.Err() != nil && !errors.Is(j.err, context.Canceled) {
					t.Errorf("an ended job's error is %v", j.err)
				}
			}
		})
	}
}

// TestBatchCancel: a request that ends while its chunk waits in the queue
// returns its context's error, and the batch runs on for the others.
func TestBatchCancel(t *testing.T) {
	e := load(t, Options{VoicesDir: genModel(t, "st", "--small")})
	b := e.models["st"].batches
	release := hold(t, b, 3)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		c := context.Background()
		if i == 1 {
			c = ctx
		}
		wg.Go(func() {
			errs[i] = e.Synthesize(c, engine.Request{Voice: "st:F1", Text: text, Seed: 1}, func(engine.Chunk) error { return nil })
		})
	}
	waitQueue(t, b, 3)
	cancel()
	release()
	wg.Wait()
	if errs[0] != nil || errs[2] != nil || !errors.Is(errs[1], context.Canceled) {
		t.Errorf("errors %v, want nil, context.Canceled, nil", errs)
	}
}

// hold makes b's workers busy until release, which waits for n jobs in
// the queue first.
func hold(t *testing.T, b *batcher, n int) (release func()) {
	t.Helper()
	b.mu.Lock()
	b.running = b.workers
	b.mu.Unlock()
	return func() {
		waitQueue(t, b, n)
		b.mu.Lock()
		b.running = 1
		go b.work()
		b.mu.Unlock()
	}
}

func waitQueue(t *testing.T, b *batcher, n int) {
	t.Helper()
	queued := func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.queue) >= n
	}
	if !wait.For(10*time.Second, queued) {
		t.Fatalf("%d jobs never came to the queue", n)
	}
}
