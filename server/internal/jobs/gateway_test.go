package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/jobs"
	"github.com/voxkit/voxkit/server/servertest"
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/tts"
)

// gwWorkerKey is the key a test gateway sends its workers.
const gwWorkerKey = "gateway-test-key"

// fleetCount counts the speech requests a fleet's workers are answering,
// and the most they answered at once.
type fleetCount struct {
	mu        sync.Mutex
	now, most int
}

// countedWorker is a real voxkit server (espeak-ng) behind a handler that
// counts the speech requests it gets, in its own total and the fleet's.
type countedWorker struct {
	*httptest.Server
	fleet *fleetCount
	total int // under fleet.mu
}

func newCountedWorker(t *testing.T, quiet *slog.Logger, fleet *fleetCount) *countedWorker {
	t.Helper()
	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": es}, CloseEngines: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { synth.Close() })
	srv, err := server.New(server.Options{Synthesizer: synth, Logger: quiet,
		Authenticate: func(r *http.Request) (string, error) {
			if r.Header.Get("Authorization") != "Bearer "+gwWorkerKey {
				return "", errors.New("not the gateway")
			}
			return "gateway", nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	w := &countedWorker{fleet: fleet}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/speech" {
			srv.ServeHTTP(rw, r)
			return
		}
		fleet.mu.Lock()
		fleet.now++
		w.total++
		fleet.most = max(fleet.most, fleet.now)
		fleet.mu.Unlock()
		defer func() {
			fleet.mu.Lock()
			fleet.now--
			fleet.mu.Unlock()
		}()
		srv.ServeHTTP(rw, r)
	}))
	t.Cleanup(w.Close)
	return w
}

// TestJobOnGateway: a gateway (-upstream) with a store serves a job whose
// segments its workers render, both of them, several at once: its job
// workers follow the fleet's render slots, not the gateway's own cores
// (issue 43 point 3), and a segment takes the path interactive speech
// takes (SpeakBackground through the Pool).
func TestJobOnGateway(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	fleet := &fleetCount{}
	w1, w2 := newCountedWorker(t, quiet, fleet), newCountedWorker(t, quiet, fleet)
	pool, err := upstream.New(context.Background(), upstream.Options{URLs: []string{w1.URL, w2.URL}, Key: gwWorkerKey,
		CheckEvery: 50 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"upstream": pool}, MaxParallel: upstream.DefaultSlotsPerWorker})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { synth.Close() })
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	go pool.Follow(ctx, synth, "upstream")
	if !wait.For(10*time.Second, func() bool { return synth.Voices().Has("local", "en-us") }) {
		t.Fatal("the gateway never had the workers' voice en-us")
	}
	// Both workers healthy before the jobs door is mounted.
	if !wait.For(10*time.Second, func() bool { return pool.Ready(ctx) == nil }) {
		t.Fatal("no worker ready")
	}
	gw := servertest.Start(t, servertest.Options{Synthesizer: synth,
		Server: server.Options{Gateway: true, Ready: pool.Ready, Logger: quiet,
			Jobs: server.JobOptions{Enabled: true, MaxSegment: 200, Poll: 50 * time.Millisecond}}})
	ts := httptest.NewServer(gw.Server)
	t.Cleanup(ts.Close)
	key := gw.Keys["local"]

	para := strings.Repeat("The lighthouse keeper climbed the stairs again. The lamp was lit before the storm came in. ", 4)
	var chapters []map[string]string
	for _, title := range []string{"One", "Two", "Three"} {
		chapters = append(chapters, map[string]string{"title": title, "input": para})
	}
	body, _ := json.Marshal(map[string]any{"voice": "en-us", "response_format": "wav", "chapters": chapters})
	req, _ := http.NewRequest("POST", ts.URL+"/v1/audio/jobs", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var j jobs.Job
	json.NewDecoder(res.Body).Decode(&j)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("submit on the gateway: %d %+v", res.StatusCode, j)
	}
	if j.Progress.SegmentsTotal < 4 {
		t.Fatalf("%d segments: too few to render several at once", j.Progress.SegmentsTotal)
	}
	if !wait.For(60*time.Second, func() bool {
		req, _ := http.NewRequest("GET", ts.URL+"/v1/audio/jobs/"+j.ID, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer res.Body.Close()
		json.NewDecoder(res.Body).Decode(&j)
		return j.Status != "queued" && j.Status != "running"
	}) || j.Status != "succeeded" {
		t.Fatalf("job on the gateway: %s %+v", j.Status, j.Error)
	}
	fleet.mu.Lock()
	t1, t2, most := w1.total, w2.total, fleet.most
	fleet.mu.Unlock()
	t.Logf("%d segments in %v: worker 1 got %d pieces, worker 2 %d; at most %d at once on the fleet", j.Progress.SegmentsTotal,
		time.Since(start).Round(time.Millisecond), t1, t2, most)
	if t1 == 0 || t2 == 0 {
		t.Errorf("the job's pieces went to one worker only: %d and %d", t1, t2)
	}
	// A segment renders a sentence at a time (SpeakBackground): two
	// pieces at once are two segments rendering at once.
	if most < 2 {
		t.Errorf("segments rendered one at a time on the fleet: at most %d piece at once on the workers", most)
	}
}
