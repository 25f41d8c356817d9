package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// sampleWorker is a fake worker whose model clones: it holds the samples
// pieces bring, answers 409 voice_sample_needed for a sample voice it
// does not hold, and counts the pieces that carried a sample.
type sampleWorker struct {
	mu      sync.Mutex
	held    map[string]bool
	carried int
}

func (sw *sampleWorker) serve(t *testing.T) string {
	return fakeWorker(t, `{"object":"list","data":[],"clone_models":["m"]}`, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sp, err := wire.ParseSpeech(body, "")
		if err != nil {
			t.Errorf("the worker's request: %v", err)
		}
		sw.mu.Lock()
		if sp.VoiceSample != nil {
			sw.carried++
			sw.held[sp.Voice] = true
		}
		held := sw.held[sp.Voice]
		sw.mu.Unlock()
		if !held {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			b, _ := json.Marshal(fault.SampleNeeded(sp.Voice))
			w.Write(b)
			return
		}
		w.Header().Set("Content-Type", "audio/pcm")
		w.Write(make([]byte, 480))
	}).URL
}

// forget makes the worker hold no sample (a worker restarted).
func (sw *sampleWorker) forget() {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.held = map[string]bool{}
}

func (sw *sampleWorker) carriedSamples() int {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.carried
}

// TestPoolReadsSamplesWhenNeeded: 200 clones added with AddClone read no
// sample until spoken; the first piece in one reads it once, the pieces
// after need not (the worker holds it, or the pool's cache does when the
// worker asks again), and the samples the pool keeps stay within its
// bound however many clones are spoken; a clone whose sample left the
// cache is read again when a worker asks for it, and a read's error is
// the speech's.
func TestPoolReadsSamplesWhenNeeded(t *testing.T) {
	t.Parallel() // its own workers and pool, no timing bound
	sw := &sampleWorker{held: map[string]bool{}}
	p := boundedPool(t, upstream.Options{}, sw.serve(t))
	const clones, size = 200, 512 << 10
	var reads [clones]atomic.Int64
	for i := range clones {
		p.AddClone(fmt.Sprintf("clone/acme/v%d", i), func(context.Context) ([]byte, error) {
			reads[i].Add(1)
			b := make([]byte, size)
			copy(b, fmt.Sprintf("sample %d", i))
			return b, nil
		})
	}
	total := func() (n int64) {
		for i := range reads {
			n += reads[i].Load()
		}
		return n
	}
	if n, b := p.CachedSamples(); total() != 0 || n != 0 {
		t.Fatalf("after adding %d clones: %d samples read, %d cached (%d bytes); want none", clones, total(), n, b)
	}
	say := func(i int) error {
		return p.Synthesize(context.Background(), engine.Request{Voice: fmt.Sprintf("clone/acme/v%d", i), Text: "Hello."}, func(engine.Chunk) error { return nil })
	}
	for range 3 {
		if err := say(7); err != nil {
			t.Fatal(err)
		}
	}
	if got := reads[7].Load(); got != 1 || total() != 1 || sw.carriedSamples() != 1 {
		t.Errorf("three pieces in one clone: its sample read %d times (%d in all), sent %d times; want once each", got, total(), sw.carriedSamples())
	}
	sw.forget()
	if err := say(7); err != nil {
		t.Fatal(err)
	}
	if got := reads[7].Load(); got != 1 || sw.carriedSamples() != 2 {
		t.Errorf("a worker asking again for a cached sample: read %d times, sent %d times; want 1 and 2", got, sw.carriedSamples())
	}
	const spoken = 40 // 20 MB of samples, past the cache's 16 MB
	for i := range spoken {
		if err := say(i); err != nil {
			t.Fatal(err)
		}
	}
	n, b := p.CachedSamples()
	if total() != spoken || b > 16<<20 || n == 0 || n == spoken {
		t.Errorf("%d clones spoken: %d reads, %d samples cached (%d bytes); want %d reads, a cache within 16 MB", spoken, total(), n, b, spoken)
	}
	sw.forget()
	if err := say(0); err != nil {
		t.Fatal(err)
	}
	if got := reads[0].Load(); got != 2 {
		t.Errorf("a worker asking for a sample no longer cached: read %d times, want 2", got)
	}

	gone := errors.New("deleted meanwhile")
	p.AddClone("clone/acme/gone", func(context.Context) ([]byte, error) { return nil, gone })
	if err := p.Synthesize(context.Background(), engine.Request{Voice: "clone/acme/gone", Text: "Hi."}, func(engine.Chunk) error { return nil }); !errors.Is(err, gone) {
		t.Errorf("a clone whose sample cannot be read: %v, want its read's error", err)
	}
}

// TestPoolReadCountsAsLoad: reading a clone's sample is a voice load,
// asked of the speech's engine.LoadGate before the read: a refusal is
// the speech's error and reads nothing, and a sample the pool holds is
// spoken without asking.
func TestPoolReadCountsAsLoad(t *testing.T) {
	sw := &sampleWorker{held: map[string]bool{}}
	p := boundedPool(t, upstream.Options{}, sw.serve(t))
	var reads atomic.Int64
	for _, name := range []string{"clone/acme/a", "clone/acme/b"} {
		p.AddClone(name, func(context.Context) ([]byte, error) {
			reads.Add(1)
			return []byte("sample of " + name), nil
		})
	}
	refused := errors.New("no more loads this minute")
	var asked []string
	gate := func(voice string) error {
		asked = append(asked, voice)
		if len(asked) > 1 {
			return refused
		}
		return nil
	}
	say := func(voice string) error {
		ctx := engine.WithLoadGate(context.Background(), gate)
		return p.Synthesize(ctx, engine.Request{Voice: voice, Text: "Hello."}, func(engine.Chunk) error { return nil })
	}
	if err := say("clone/acme/a"); err != nil {
		t.Fatal(err)
	}
	if err := say("clone/acme/a"); err != nil {
		t.Fatalf("a clone whose sample the pool holds: %v", err)
	}
	if err := say("clone/acme/b"); !errors.Is(err, refused) {
		t.Errorf("a read the gate refuses: %v, want its refusal", err)
	}
	if reads.Load() != 1 || len(asked) != 2 || asked[0] != "clone/acme/a" {
		t.Errorf("read %d samples, asked the gate %q; want 1 read, asked for clone/acme/a then clone/acme/b", reads.Load(), asked)
	}
}

// countingStore counts the clones' records read one by one (Voice).
type countingStore struct {
	*sqlite.Store
	reads atomic.Int64
}

func (s *countingStore) Voice(ctx context.Context, account, id string) (store.Voice, error) {
	s.reads.Add(1)
	return s.Store.Voice(ctx, account, id)
}

// TestGatewayStartsWithoutSamples: a gateway server on a store holding
// 200 clones cloned from recordings reads none of their samples to
// start, and reads one when it is spoken.
func TestGatewayStartsWithoutSamples(t *testing.T) {
	ctx := context.Background()
	sq, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "voxkit.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	st := &countingStore{Store: sq}
	if _, err := st.CreateAccount(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	_, key, err := st.CreateKey(ctx, store.NewKey{Account: "acme", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	const clones = 200
	for i := range clones {
		sample := make([]byte, 1024)
		copy(sample, fmt.Sprintf("sample %d", i))
		v := store.Voice{ID: fmt.Sprintf("v%d", i), Account: "acme", Base: "m", Speed: 1, Range: 1, Volume: 1, Sample: sample}
		if _, err := st.CreateVoice(ctx, v, 0); err != nil {
			t.Fatal(err)
		}
	}
	sw := &sampleWorker{held: map[string]bool{}}
	p := boundedPool(t, upstream.Options{}, sw.serve(t))
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"upstream": p}})
	if err != nil {
		t.Fatal(err)
	}
	st.reads.Store(0)
	srv, err := server.New(server.Options{Synthesizer: synth, Store: st, Gateway: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	if n := st.reads.Load(); n != 0 {
		t.Errorf("the gateway read %d clones' samples to start, want none", n)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	if status, body := speakPCM(t, ts.URL, key, "v3", "Hello."); status != http.StatusOK {
		t.Fatalf("speaking a clone: %d %s", status, body)
	}
	if n := st.reads.Load(); n != 1 || sw.carriedSamples() != 1 {
		t.Errorf("speaking one clone read %d samples and sent %d, want one", n, sw.carriedSamples())
	}
}
