package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// resolver answers lookups of one name with the addresses the test sets.
type resolver struct {
	name  string
	mu    sync.Mutex
	addrs []string
	err   error
}

func (r *resolver) set(err error, addrs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addrs, r.err = addrs, err
}

func (r *resolver) LookupHost(_ context.Context, host string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case host != r.name:
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	case r.err != nil:
		return nil, r.err
	}
	return slices.Clone(r.addrs), nil
}

// listeners listens on one port on each of the loopback addresses
// 127.0.0.2, 127.0.0.3, ...: the addresses of one name's pods.
func listeners(t *testing.T, n int) ([]net.Listener, string) {
	t.Helper()
	for range 20 {
		first, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			t.Skipf("no 127.0.0.2 to listen on: %v", err)
		}
		_, port, _ := net.SplitHostPort(first.Addr().String())
		lns := []net.Listener{first}
		for i := 1; i < n; i++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:%s", i+2, port))
			if err != nil {
				break
			}
			lns = append(lns, ln)
		}
		if len(lns) == n {
			return lns, port
		}
		for _, ln := range lns {
			ln.Close()
		}
	}
	t.Skip("no port free on every 127.0.0.x")
	return nil, ""
}

// workerOn serves a voxkit worker on espeak-ng on ln, with one more voice,
// extra (en-us under another id), when it is not empty; it counts the
// speech requests it serves.
func workerOn(t *testing.T, ln net.Listener, extra string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat := new(voices.Catalog)
	if err := cat.AddEngine(context.Background(), "espeak", es, time.Now()); err != nil {
		t.Fatal(err)
	}
	if extra != "" {
		if err := cat.Add(voices.Voice{ID: extra, Engine: "espeak", EngineVoice: "en-us", Language: "en-US"}); err != nil {
			t.Fatal(err)
		}
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": es}, Voices: cat, CloseEngines: true})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Synthesizer: synth, Logger: quiet,
		Authenticate: func(*http.Request) (string, error) { return "gateway", nil }})
	if err != nil {
		t.Fatal(err)
	}
	var spoken atomic.Int64
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/audio/speech" {
			spoken.Add(1)
		}
		srv.ServeHTTP(w, r)
	}))
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() { ts.Close(); synth.Close() })
	return ts, &spoken
}

// workersOf returns the workers p's metrics name.
func workersOf(t *testing.T, p *upstream.Pool) []string {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(p.Collector())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		if mf.GetName() != "voxkit_upstream_healthy" {
			continue
		}
		for _, m := range mf.GetMetric() {
			out = append(out, m.GetLabel()[0].GetValue())
		}
	}
	slices.Sort(out)
	return out
}

// modelsOf returns the ids of GET /v1/models of the server at url.
func modelsOf(url string) []string {
	res, err := http.Get(url + "/v1/models")
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	var list wire.ModelList
	if res.StatusCode != 200 || json.NewDecoder(res.Body).Decode(&list) != nil {
		return nil
	}
	var ids []string
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids
}

// TestDNSDiscovery: three workers behind one name; while requests run
// through the gateway, one is taken out of the name and stopped and a
// fourth, with a voice of its own, is added. The gateway's /v1/models
// lists that voice within 5 s, the gateway speaks it, the stopped worker
// leaves the pool, and no request fails.
func TestDNSDiscovery(t *testing.T) {
	lns, port := listeners(t, 4)
	var addrs []string
	var servers []*httptest.Server
	var spoken []*atomic.Int64
	for i, ln := range lns {
		extra := ""
		if i == 3 {
			extra = "newcomer"
		}
		ts, n := workerOn(t, ln, extra)
		servers, spoken = append(servers, ts), append(spoken, n)
		addrs = append(addrs, strings.Split(ln.Addr().String(), ":")[0])
	}
	dns := &resolver{name: "workers.test"}
	dns.set(nil, addrs[:3]...)
	// The default intervals: the 5 s bound holds as deployed. Under
	// -short, short ones: the same path in a fraction of the time.
	opts := upstream.Options{URLs: []string{"dns+http://workers.test:" + port},
		Key: workerKey, Logger: quiet, LookupHost: dns.LookupHost}
	if testing.Short() {
		opts.CheckEvery, opts.ResolveEvery = 50*time.Millisecond, 50*time.Millisecond
	}
	p, err := upstream.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	gw := gateway(t, p, tts.Options{})
	url := func(i int) string { return "http://" + addrs[i] + ":" + port }
	if got, want := workersOf(t, p), []string{url(0), url(1), url(2)}; !slices.Equal(got, want) {
		t.Fatalf("workers %v, want %v", got, want)
	}
	if ids := modelsOf(gw.URL); !slices.Contains(ids, "en-us") || slices.Contains(ids, "newcomer") {
		t.Fatalf("models before: %v", ids)
	}

	// Load: clients in a loop until stop, each failure counted.
	var (
		stop             atomic.Bool
		ok, failed       atomic.Int64
		afterChange      atomic.Int64
		changed          atomic.Bool
		firstErr         atomic.Value
		clients          sync.WaitGroup
		speakThroughGate = func(voice string) error {
			res, err := http.Post(gw.URL+"/v1/audio/speech", "application/json",
				strings.NewReader(`{"model":"tts-1","voice":"`+voice+`","input":"The load goes on.","response_format":"pcm"}`))
			if err != nil {
				return err
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			switch {
			case err != nil:
				return err
			case res.StatusCode != 200 || len(b) < upstream.SampleRate/2:
				return fmt.Errorf("%d, %d bytes: %.200s", res.StatusCode, len(b), b)
			}
			return nil
		}
	)
	for range 6 {
		clients.Go(func() {
			for !stop.Load() {
				if err := speakThroughGate("en-us"); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				ok.Add(1)
				if changed.Load() {
					afterChange.Add(1)
				}
			}
		})
	}
	defer func() { stop.Store(true); clients.Wait() }()
	if !wait.For(10*time.Second, func() bool { return ok.Load() >= 12 && spoken[1].Load() >= 3 }) {
		t.Fatalf("the load does not run: %d ok, %d failed (%v)", ok.Load(), failed.Load(), firstErr.Load())
	}

	// Worker 1 leaves the name and stops; worker 3 joins.
	dns.set(nil, addrs[0], addrs[2], addrs[3])
	changed.Store(true)
	start := time.Now()
	servers[1].Close()
	if !wait.For(5*time.Second, func() bool { return slices.Contains(modelsOf(gw.URL), "newcomer") }) {
		t.Fatalf("the added worker's voice is not listed 5 s after it joined: %v", modelsOf(gw.URL))
	}
	t.Logf("the added worker's voice listed %v after the change", time.Since(start).Round(time.Millisecond))
	if err := speakThroughGate("newcomer"); err != nil {
		t.Errorf("the added worker's voice through the gateway: %v", err)
	}
	if !wait.For(5*time.Second, func() bool {
		return slices.Equal(workersOf(t, p), []string{url(0), url(2), url(3)})
	}) {
		t.Errorf("workers after the change: %v, want %v", workersOf(t, p), []string{url(0), url(2), url(3)})
	}
	// The load goes on over the new set for a while.
	before := spoken[3].Load()
	if !wait.For(10*time.Second, func() bool { return afterChange.Load() >= 30 && spoken[3].Load() > before+3 }) {
		t.Errorf("after the change: %d requests done, the added worker spoke %d of them", afterChange.Load(), spoken[3].Load()-before)
	}
	stop.Store(true)
	clients.Wait()
	if failed.Load() != 0 {
		t.Errorf("%d of %d requests failed; the first: %v", failed.Load(), failed.Load()+ok.Load(), firstErr.Load())
	}
	t.Logf("%d requests, %d after the change; spoken by the workers: %d %d %d %d", ok.Load(), afterChange.Load(),
		spoken[0].Load(), spoken[1].Load(), spoken[2].Load(), spoken[3].Load())
}

// TestDNSLookupFailure: a lookup that fails keeps the workers the name
// had; a name that is not found has none.
func TestDNSLookupFailure(t *testing.T) {
	t.Parallel() // its own worker and resolver; what it waits for holds whatever the load
	lns, port := listeners(t, 1)
	workerOn(t, lns[0], "")
	addr := strings.Split(lns[0].Addr().String(), ":")[0]
	dns := &resolver{name: "workers.test"}
	dns.set(nil, addr)
	p, err := upstream.New(context.Background(), upstream.Options{URLs: []string{"dns+http://workers.test:" + port},
		Key: workerKey, Logger: quiet, LookupHost: dns.LookupHost, CheckEvery: 20 * time.Millisecond, ResolveEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	dns.set(errors.New("server misbehaving"))
	if !wait.Never(300*time.Millisecond, func() bool { return p.Ready(context.Background()) != nil }) {
		t.Error("a failed lookup dropped the workers")
	}
	dns.set(&net.DNSError{Err: "no such host", Name: "workers.test", IsNotFound: true})
	if !wait.For(5*time.Second, func() bool { return p.Ready(context.Background()) != nil }) {
		t.Error("a name not found keeps its workers")
	}
	dns.set(nil, addr)
	if !wait.For(5*time.Second, func() bool { return p.Ready(context.Background()) == nil }) {
		t.Error("the worker found again is not back in rotation")
	}
}

// TestWorkerURLs: what -upstream accepts.
func TestWorkerURLs(t *testing.T) {
	for _, u := range []string{"ftp://x", "dns+https://x:8080", "dns+http://x:8080/v1", "workers:8080"} {
		if _, err := upstream.New(context.Background(), upstream.Options{URLs: []string{u}, Logger: quiet}); err == nil || !strings.Contains(err.Error(), "upstream: ") {
			t.Errorf("%q: %v; want it refused", u, err)
		}
	}
}

// TestSlotsFollowHealthyWorkers: with Follow, the gateway renders
// Options.SlotsPerWorker pieces at once for each healthy worker: a worker
// that becomes ready adds its slots, and the pieces waiting take them.
func TestSlotsFollowHealthyWorkers(t *testing.T) {
	release := make(chan struct{})
	var ready [3]atomic.Bool
	var urls []string
	for i := range ready {
		ready[i].Store(i < 2)
		mux := http.NewServeMux()
		mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
			if !ready[i].Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		})
		mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, oneVoice) })
		mux.HandleFunc("POST /v1/audio/speech", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			w.Header().Set("Content-Type", "audio/pcm")
			w.Write(make([]byte, 4800))
		})
		ts := httptest.NewServer(mux)
		t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
		urls = append(urls, ts.URL)
	}
	p, err := upstream.New(context.Background(), upstream.Options{URLs: urls, Key: workerKey, Logger: quiet,
		CheckEvery: 20 * time.Millisecond, SlotsPerWorker: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"upstream": p}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Follow(ctx, synth, "upstream")
	var requests sync.WaitGroup
	defer requests.Wait()
	defer close(release)
	for range 4 {
		requests.Go(func() { synth.Synthesize(ctx, "en-us", "One piece.", encode.Format{}) })
	}
	load := func(busy, waiting int) bool {
		l := synth.Load()
		return l.Busy == busy && l.Waiting == waiting
	}
	if !wait.For(5*time.Second, func() bool { return load(2, 2) }) {
		t.Fatalf("two healthy workers, one slot each, four pieces: %+v; want 2 busy, 2 waiting", synth.Load())
	}
	ready[2].Store(true)
	if !wait.For(5*time.Second, func() bool { return load(3, 1) }) {
		t.Fatalf("a third worker healthy: %+v; want 3 busy, 1 waiting", synth.Load())
	}
}
