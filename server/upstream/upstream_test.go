package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
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
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/tts"
)

const workerKey = "worker-key"

var quiet = slog.New(slog.DiscardHandler)

// worker starts an ordinary voxkit server on espeak-ng that admits
// workerKey, as a fleet's workers would.
func worker(t testing.TB) *httptest.Server {
	t.Helper()
	return loggingWorker(t, quiet)
}

// loggingWorker is worker logging to log.
func loggingWorker(t testing.TB, log *slog.Logger) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(workerHandler(t, log, 0))
	t.Cleanup(ts.Close)
	return ts
}

// workerHandler is an ordinary voxkit server on espeak-ng that admits
// workerKey, as a fleet's workers run, logging to log, with the audio
// limit maxAudio (0: the default).
func workerHandler(t testing.TB, log *slog.Logger, maxAudio time.Duration) http.Handler {
	t.Helper()
	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": es}, CloseEngines: true, MaxAudio: maxAudio})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { synth.Close() })
	srv, err := server.New(server.Options{Synthesizer: synth, Logger: log,
		Authenticate: func(r *http.Request) (string, error) {
			if r.Header.Get("Authorization") != "Bearer "+workerKey {
				return "", errors.New("not the gateway")
			}
			return "gateway", nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// deadURL is an address where nothing listens.
func deadURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	return "http://" + ln.Addr().String()
}

func newPool(t testing.TB, urls ...string) *upstream.Pool {
	t.Helper()
	p, err := upstream.New(context.Background(), upstream.Options{URLs: urls, Key: workerKey, CheckEvery: 50 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// speak runs one Synthesize and returns its samples and words.
func speak(p *upstream.Pool, text string) ([]float32, []engine.Word, error) {
	var samples []float32
	var words []engine.Word
	err := p.Synthesize(context.Background(), engine.Request{Voice: "en-us", Text: text, Words: true}, func(c engine.Chunk) error {
		if c.SampleRate != upstream.SampleRate {
			return fmt.Errorf("rate %d", c.SampleRate)
		}
		samples = append(samples, c.Samples...)
		words = append(words, c.Words...)
		return nil
	})
	return samples, words, err
}

// TestPoolSpeaksAndRetries: the voices are the workers'; speech comes
// back with its words; a worker that is gone is skipped, and one that
// dies is retried around and taken out of rotation until it is back.
func TestPoolSpeaksAndRetries(t *testing.T) {
	a, b := worker(t), worker(t)
	p := newPool(t, a.URL, b.URL, deadURL(t))
	vs, _ := p.Voices(context.Background())
	if len(vs) < 10 || !strings.Contains(fmt.Sprint(vs), "en-us") {
		t.Fatalf("voices: %v", vs)
	}
	for _, v := range vs {
		if v.Name == "en-us" && v.SampleRate != 22050 { // espeak-ng's rate, as the worker lists it
			t.Errorf("en-us through the gateway: sample rate %d, want the worker's 22050", v.SampleRate)
		}
	}
	text := "Hello from the workers. And again."
	samples, words, err := speak(p, text)
	if err != nil || len(samples) < upstream.SampleRate {
		t.Fatalf("%d samples, %v", len(samples), err)
	}
	var said []string
	for _, w := range words {
		said = append(said, text[w.Start:w.End])
		if w.From >= w.To || w.To > len(samples) {
			t.Errorf("word %q at samples [%d, %d) of %d", text[w.Start:w.End], w.From, w.To, len(samples))
		}
	}
	if strings.Join(said, " ") != "Hello from the workers And again" {
		t.Errorf("words %q", said)
	}
	// One worker dies: every request still succeeds.
	a.CloseClientConnections()
	a.Close()
	for range 4 {
		if _, _, err := speak(p, "Still here."); err != nil {
			t.Fatalf("with a worker gone: %v", err)
		}
	}
	if err := p.Ready(context.Background()); err != nil {
		t.Fatalf("ready with one worker: %v", err)
	}
	// All gone: an error, and not ready.
	b.Close()
	if _, _, err := speak(p, "Anyone?"); !errors.Is(err, upstream.ErrNoWorker) {
		t.Fatalf("no worker: %v", err)
	}
	if !wait.For(5*time.Second, func() bool { return p.Ready(context.Background()) != nil }) {
		t.Fatal("still ready with every worker gone")
	}
}

// TestPoolBackInRotation: a worker whose health check passes again takes
// requests again.
func TestPoolBackInRotation(t *testing.T) {
	var down sync.Mutex
	fail := false
	inner := worker(t)
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		down.Lock()
		f := fail
		down.Unlock()
		if f {
			http.Error(w, `{"error":{"message":"down"}}`, http.StatusServiceUnavailable)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, inner.URL+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		io.Copy(flushWriter{w}, res.Body)
	}))
	defer flaky.Close()
	p := newPool(t, flaky.URL)
	down.Lock()
	fail = true
	down.Unlock()
	if _, _, err := speak(p, "Down now."); err == nil {
		t.Fatal("spoke through a failing worker")
	}
	down.Lock()
	fail = false
	down.Unlock()
	if !wait.For(5*time.Second, func() bool { _, _, err := speak(p, "Back again."); return err == nil }) {
		t.Fatal("the worker never came back into rotation")
	}
}

type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(b []byte) (int, error) {
	n, err := f.w.Write(b)
	http.NewResponseController(f.w).Flush()
	return n, err
}

// TestPoolMidStreamFailure: a worker that breaks after a sentence of audio
// has emitted nothing (a piece is emitted whole): the piece fails, and the
// broken worker leaves rotation. (That no other worker is asked is
// TestPoisonTriedOnce.)
func TestPoolMidStreamFailure(t *testing.T) {
	good := worker(t)
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/speech" {
			// Health and voices: ask the good worker.
			req, _ := http.NewRequest(r.Method, good.URL+r.URL.Path, nil)
			req.Header = r.Header.Clone()
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				http.Error(w, err.Error(), 502)
				return
			}
			defer res.Body.Close()
			w.WriteHeader(res.StatusCode)
			io.Copy(w, res.Body)
			return
		}
		breakMidAnswer(w, r)
	}))
	defer broken.Close()

	alone := newPool(t, broken.URL)
	for _, words := range []bool{false, true} { // bare pcm, SSE
		var got int
		err := alone.Synthesize(context.Background(), engine.Request{Voice: "en-us", Text: "Broken halfway. Second part.", Words: words},
			func(c engine.Chunk) error {
				got += len(c.Samples)
				return nil
			})
		if err == nil || got != 0 {
			t.Fatalf("a broken stream (words %v): %v, %d samples emitted", words, err, got)
		}
	}
	if alone.Ready(context.Background()) == nil {
		t.Error("the broken worker is still in rotation")
	}
}

// TestGatewayServer: a voxkit server on the pool is a gateway: speech in
// every format, 503 with Retry-After when no worker can speak, and /readyz
// following the workers.
func TestGatewayServer(t *testing.T) {
	w := worker(t)
	p := newPool(t, w.URL)
	ts := gateway(t, p, tts.Options{MaxParallel: 32})
	post := func(body string) *http.Response {
		t.Helper()
		res, err := http.Post(ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, f := range []string{"wav", "flac", "pcm"} {
		res := post(`{"model":"tts-1","voice":"en-us","input":"Through the gateway.","response_format":"` + f + `"}`)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || len(b) < 10000 {
			t.Errorf("%s: %d, %d bytes", f, res.StatusCode, len(b))
		}
		if up := res.Header.Get("x-upstream-ms") + res.Trailer.Get("x-upstream-ms"); up == "" {
			t.Errorf("%s: no x-upstream-ms", f)
		}
	}
	// Word timestamps pass through the gateway.
	res := post(`{"model":"tts-1","voice":"en-us","input":"Words come through.","stream_format":"sse","timestamps":"word"}`)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(b), `"speech.timestamps"`) || !strings.Contains(string(b), `"word":"through"`) {
		t.Errorf("SSE with timestamps through the gateway: %.600s", b)
	}
	if res, _ := http.Get(ts.URL + "/readyz"); res.StatusCode != 200 {
		t.Errorf("readyz with a worker: %d", res.StatusCode)
	}
	w.Close()
	res = post(`{"model":"tts-1","voice":"en-us","input":"Nobody there.","response_format":"wav"}`)
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" || !strings.Contains(string(b), "No healthy worker") {
		t.Errorf("no worker: %d, Retry-After %q, %s; want 503 with Retry-After 1", res.StatusCode, res.Header.Get("Retry-After"), b)
	}
	if !wait.For(5*time.Second, func() bool {
		res, err := http.Get(ts.URL + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 503
	}) {
		t.Fatal("readyz stays 200 with no worker")
	}
}

// TestGatewayCutsWhenNoWorkerIsLeft: when the last worker goes away in the
// middle of a response, a pcm stream already begun is cut short (no
// trailers), and an SSE stream ends with an error event.
func TestGatewayCutsWhenNoWorkerIsLeft(t *testing.T) {
	input := strings.Repeat("This sentence is one of many. ", 60)
	for _, tc := range []struct{ name, body string }{
		{"pcm", `{"model":"tts-1","voice":"en-us","input":"` + input + `","response_format":"pcm"}`},
		{"sse", `{"model":"tts-1","voice":"en-us","input":"` + input + `","stream_format":"sse"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := worker(t)
			p := newPool(t, w.URL)
			synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"upstream": p}, MaxParallel: 8})
			if err != nil {
				t.Fatal(err)
			}
			gw, err := server.New(server.Options{Synthesizer: synth, Gateway: true, Ready: p.Ready, Logger: quiet,
				Authenticate: func(*http.Request) (string, error) { return "caller", nil }})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(gw)
			defer ts.Close()
			res, err := http.Post(ts.URL+"/v1/audio/speech", "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("status %d", res.StatusCode)
			}
			first := make([]byte, 1000)
			if _, err := io.ReadFull(res.Body, first); err != nil {
				t.Fatal(err)
			}
			w.CloseClientConnections()
			w.Close() // the only worker is gone
			rest, err := io.ReadAll(res.Body)
			switch tc.name {
			case "pcm":
				if err == nil || res.Trailer.Get("x-upstream-ms") != "" {
					t.Errorf("pcm stream ended cleanly (%v, trailer %q) after %d more bytes: want it cut", err, res.Trailer.Get("x-upstream-ms"), len(rest))
				}
			case "sse":
				if !strings.Contains(string(rest), `"proxy_error"`) || strings.Contains(string(rest), "[DONE]") {
					t.Errorf("SSE stream's end: %.300q", rest[max(0, len(rest)-300):])
				}
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the handler's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHealthChecksLogAtDebug: a worker logs the gateway's health checks
// (GET /readyz and /v1/models) at debug level, and its speech at info.
func TestHealthChecksLogAtDebug(t *testing.T) {
	var log syncBuffer
	w := loggingWorker(t, slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	p := newPool(t, w.URL) // checks every 50 ms
	if !wait.For(5*time.Second, func() bool { return strings.Count(log.String(), "path=/v1/models") >= 3 }) {
		t.Fatalf("no health checks logged: %s", log.String())
	}
	if _, _, err := speak(p, "Logged."); err != nil {
		t.Fatal(err)
	}
	spoken := 0
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if !strings.Contains(line, "msg=request") {
			continue
		}
		speech := strings.Contains(line, "path=/v1/audio/speech")
		if speech {
			spoken++
		}
		if level := strings.Contains(line, "level=INFO"); level != speech {
			t.Errorf("speech at INFO, health checks at DEBUG; logged: %s", line)
		}
	}
	if spoken == 0 {
		t.Errorf("the speech request is not logged: %s", log.String())
	}
}
