package core

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// newTestCore returns a core over a synthesizer of the fake engine's
// voice "fake", with metrics in reg.
func newTestCore(t *testing.T, reg *prometheus.Registry) *Core {
	t.Helper()
	fake := enginetest.NewFake(enginetest.FakeOptions{})
	cat := new(voices.Catalog)
	if err := cat.AddEngine(context.Background(), "fake", fake, time.Now()); err != nil {
		t.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": fake}, Voices: cat})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Synth: synth, Host: func(*http.Request) (string, error) { return "a", nil }, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxQueue: 64,
		Limits: store.Limits{}, RecheckGap: time.Hour, SocketAuth: time.Hour}
	if reg != nil {
		cfg.Metrics = reg
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	return c
}

// audioSink counts the audio bytes written to it, from any goroutine.
type audioSink struct {
	mu sync.Mutex
	n  int
}

func (a *audioSink) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n += len(p)
	return len(p), nil
}

func (a *audioSink) size() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

func streamJob() StreamJob {
	return StreamJob{Job: Job{Request: tts.Request{Voice: "fake", Account: "a", Format: encode.Format{Name: "pcm"}}, Voice: "fake"}, Delay: -1}
}

func open(t *testing.T, c *Core, ctx context.Context, job StreamJob) (*Input, *audioSink) {
	t.Helper()
	out := new(audioSink)
	in, err := c.Open(ctx, job, out)
	if err != nil {
		t.Fatal(err)
	}
	return in, out
}

// TestInputTake: text short of a sentence end waits; a later sentence end,
// a flush, a zero delay and the chunk schedule each speak it.
func TestInputTake(t *testing.T) {
	c := newTestCore(t, nil)
	cases := []struct {
		name   string
		job    func(*StreamJob)
		ops    []Op
		spoken bool // after the last op
	}{
		{"waits", nil, []Op{{Text: "Hello there"}}, false},
		{"sentence end", nil, []Op{{Text: "Hello there"}, {Text: ". And"}}, true},
		{"flush", nil, []Op{{Text: "Hello there"}, {Flush: true}}, true},
		{"zero delay", func(j *StreamJob) { j.Delay = 0 }, []Op{{Text: "Hello there"}}, true},
		{"schedule", func(j *StreamJob) { j.Schedule = []int{10} }, []Op{{Text: "Hello there you"}}, true},
		{"schedule short", func(j *StreamJob) { j.Schedule = []int{50} }, []Op{{Text: "Hello there you"}}, false},
		{"trigger", func(j *StreamJob) { j.Schedule = []int{10, 100} }, []Op{{Text: "Hello there you"}, {Text: " and more words", Trigger: true}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := streamJob()
			if tc.job != nil {
				tc.job(&job)
			}
			in, out := open(t, c, t.Context(), job)
			var before int
			for i, op := range tc.ops {
				if i == len(tc.ops)-1 {
					before = out.size()
				}
				if done, err := in.Take(op); done || err != nil {
					t.Fatalf("Take: %v, %v", done, err)
				}
			}
			if spoken := out.size() > before; spoken != tc.spoken {
				t.Errorf("last op spoke: %v, want %v", spoken, tc.spoken)
			}
			res, err := in.Finish(nil)
			if err != nil || res.Audio == 0 {
				t.Errorf("Finish: %v, %v of audio", err, res.Audio)
			}
		})
	}
}

// TestInputRun: the buffer delay speaks waiting text without a flush; the
// end returns the result, counted in the metrics; a flush is answered
// after its audio.
func TestInputRun(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := newTestCore(t, reg)
	job := streamJob()
	job.Delay = 10 * time.Millisecond
	var flushedAt int
	var out *audioSink
	job.Flushed = func(op Op) error {
		if op.Ref != "f1" {
			t.Errorf("Flushed got %v", op.Ref)
		}
		flushedAt = out.size()
		return nil
	}
	in, out := open(t, c, t.Context(), job)
	q := NewQueue()
	done := make(chan error, 1)
	go func() { _, err := in.Run(q); done <- err }()
	q.Put(Op{Text: "No sentence end here"}, 0)
	if !wait.For(10*time.Second, func() bool { return out.size() > 0 }) {
		t.Fatal("the buffer delay spoke nothing")
	}
	q.Put(Op{Text: " then some more", Flush: true, Ref: "f1"}, 0)
	q.Put(Op{End: true}, 0)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if flushedAt == 0 || flushedAt != out.size() {
		t.Errorf("flush answered at %d bytes of %d: want after the audio before it", flushedAt, out.size())
	}
	if got := counted(t, reg, "voxkit_audio_seconds_total"); got <= 0 {
		t.Errorf("audio seconds counted: %v", got)
	}
}

// TestInputEnds: the ways a stream ends other than its end.
func TestInputEnds(t *testing.T) {
	c := newTestCore(t, nil)
	t.Run("idle", func(t *testing.T) {
		job := streamJob()
		job.Idle = 20 * time.Millisecond
		in, out := open(t, c, t.Context(), job)
		q := NewQueue()
		q.Put(Op{Text: "Spoken before the idle end"}, 0)
		_, err := in.Run(q)
		var werr *fault.Error
		if !errors.As(err, &werr) || werr.Code != fault.CodeIdleTimeout {
			t.Fatalf("Run: %v, want idle_timeout", err)
		}
		if out.size() == 0 {
			t.Error("the text before the idle end was not spoken")
		}
	})
	t.Run("refused", func(t *testing.T) {
		job := streamJob()
		refusal := fault.InvalidKey("sk_x", true)
		job.Recheck = func(context.Context) *fault.Error { return refusal }
		in, _ := open(t, c, t.Context(), job)
		q := NewQueue()
		q.Put(Op{Text: "Hello."}, 0)
		q.Put(Op{End: true}, 0)
		if _, err := in.Run(q); err != refusal {
			t.Errorf("Run: %v, want the recheck's refusal", err)
		}
	})
	t.Run("gone", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		in, _ := open(t, c, ctx, streamJob())
		cancel()
		if _, err := in.Run(NewQueue()); !errors.Is(err, ErrGone) {
			t.Errorf("Run: %v, want ErrGone", err)
		}
	})
	t.Run("failed", func(t *testing.T) {
		job := streamJob()
		job.Request.Voice = "nobody"
		if _, err := c.Open(t.Context(), job, io.Discard); err == nil {
			t.Error("Open of an unknown voice: no error")
		}
	})
}

// TestContextSet: a socket's contexts are at most MaxSocketContexts, and
// one whose client sends more than may wait is cancelled.
func TestContextSet(t *testing.T) {
	c := newTestCore(t, nil)
	cs := c.NewContextSet(c.NewGuard(Creds{R: httptest.NewRequest("GET", "/", nil), Account: "a"}))
	var mu sync.Mutex
	ends := map[string]error{}
	done := func(id string) func(tts.Result, error) {
		return func(_ tts.Result, err error) {
			mu.Lock()
			ends[id] = err
			mu.Unlock()
		}
	}
	block := make(chan struct{})
	defer close(block)
	var open []*Context
	for i := range MaxSocketContexts {
		id := string(rune('a' + i))
		job := streamJob()
		job.Text = func(string) { <-block } // holds the context's goroutine at its first text
		sc, werr := cs.Start(t.Context(), id, job, io.Discard, done(id))
		if werr != nil {
			t.Fatal(werr)
		}
		open = append(open, sc)
	}
	if _, werr := cs.Start(t.Context(), "over", streamJob(), io.Discard, done("over")); werr == nil || werr.Status != http.StatusTooManyRequests {
		t.Errorf("context %d: %v, want 429", MaxSocketContexts+1, werr)
	}
	full := open[0]
	sent := 0
	for cs.Send(full, Op{Text: strings.Repeat("x", 1000)}, 1000) {
		sent++
	}
	if sent == 0 || sent > MaxOps || cs.Get(full.ID) != nil {
		t.Errorf("%d ops of 1000 bytes queued before the budget, then still open: %v", sent, cs.Get(full.ID) != nil)
	}
}

// counted is the sum of the samples of the counter name in reg.
func counted(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() == name {
			for _, m := range f.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// TestInputStopsWhenGone: once its client is gone, an input stream takes
// none of the text still queued.
func TestInputStopsWhenGone(t *testing.T) {
	c := newTestCore(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	job := streamJob()
	taken := 0
	job.Text = func(string) {
		taken++
		cancel() // the client leaves while its first text is worked on
	}
	in, _ := open(t, c, ctx, job)
	q := NewQueue()
	for range 20 {
		q.Put(Op{Text: "more words without an end ", Trigger: true}, 30)
	}
	if _, err := in.Run(q); err != ErrGone {
		t.Errorf("Run: %v, want ErrGone", err)
	}
	if taken != 1 {
		t.Errorf("%d ops taken after the client left with the first; want 1", taken)
	}
}

// TestContextSetCountsEnding: a context its client ended (End: the rest
// is spoken, its id free for a new context) still holds its place among
// the MaxSocketContexts until it has finished, so a client cannot speak
// more than that at once by ending each context as it opens it; a
// cancelled one gives its place back at once.
func TestContextSetCountsEnding(t *testing.T) {
	c := newTestCore(t, nil)
	cs := c.NewContextSet(c.NewGuard(Creds{R: httptest.NewRequest("GET", "/", nil), Account: "a"}))
	block := make(chan struct{})
	var ended sync.WaitGroup
	start := func(id string) (*Context, *fault.Error) {
		job := streamJob()
		job.Text = func(string) { <-block } // holds the context's goroutine at its first text
		ended.Add(1)
		sc, werr := cs.Start(t.Context(), id, job, io.Discard, func(tts.Result, error) { ended.Done() })
		if werr != nil {
			ended.Done()
		}
		return sc, werr
	}
	for i := range MaxSocketContexts {
		sc, werr := start(string(rune('a' + i)))
		if werr != nil {
			t.Fatal(werr)
		}
		cs.End(sc, Op{Text: "Hello there."}, 12) // ended at once, still speaking
	}
	if sc, werr := start("over"); werr == nil {
		t.Errorf("context %d while %d ended ones speak: opened, want 429", MaxSocketContexts+1, MaxSocketContexts)
		cs.End(sc, Op{End: true}, 0)
	} else if werr.Status != http.StatusTooManyRequests {
		t.Errorf("context %d: %v, want 429", MaxSocketContexts+1, werr)
	}
	if sc, werr := start("a"); werr == nil { // the id of an ended context is free, its place is not
		t.Errorf("a new context under an ended one's id while it speaks: opened, want 429")
		cs.End(sc, Op{End: true}, 0)
	}
	close(block)
	ended.Wait()
	for i := range MaxSocketContexts {
		if _, werr := start(string(rune('v' + i))); werr != nil {
			t.Fatalf("context %d once the ended ones finished: %v", i+1, werr)
		}
	}
	cs.Cancel("v")
	if _, werr := start("after-cancel"); werr != nil {
		t.Errorf("a context after one was cancelled: %v, want its place free at once", werr)
	}
	cs.EndAll()
}

// TestContextSetCancelEnded: a context its client has ended (its last
// text sent, still speaking) is still cancelled by its id, as Cartesia's
// cancel is documented: the barge-in of a reply sent whole.
func TestContextSetCancelEnded(t *testing.T) {
	c := newTestCore(t, nil)
	cs := c.NewContextSet(c.NewGuard(Creds{R: httptest.NewRequest("GET", "/", nil), Account: "a"}))
	block := make(chan struct{})
	ended := make(chan error, 1)
	job := streamJob()
	job.Text = func(string) { <-block } // holds the context's goroutine at its first text
	sc, werr := cs.Start(t.Context(), "reply", job, io.Discard, func(_ tts.Result, err error) { ended <- err })
	if werr != nil {
		t.Fatal(werr)
	}
	cs.End(sc, Op{Text: strings.Repeat("A sentence of the reply. ", 20)}, 500)
	cs.Cancel("reply")
	close(block)
	if err := <-ended; !errors.Is(err, ErrGone) {
		t.Errorf("an ended context cancelled by its id: ended with %v, want ErrGone (it spoke on)", err)
	}
}
