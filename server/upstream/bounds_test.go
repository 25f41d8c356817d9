package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/tts"
)

// gateway serves a gateway over p, its synthesizer made with opts (whose
// engine is p) and following the workers (Follow), that lets every
// caller in.
func gateway(t testing.TB, p *upstream.Pool, opts tts.Options) *httptest.Server {
	t.Helper()
	opts.Engines = map[string]engine.Engine{"upstream": p}
	synth, err := tts.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	go p.Follow(ctx, synth, "upstream")
	gw, err := server.New(server.Options{Synthesizer: synth, Gateway: true, Ready: p.Ready, Logger: quiet,
		Authenticate: func(*http.Request) (string, error) { return "caller", nil }})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(gw)
	t.Cleanup(ts.Close)
	return ts
}

// limitedWorker is worker with an audio limit of its own.
func limitedWorker(t *testing.T, maxAudio time.Duration) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(workerHandler(t, quiet, maxAudio))
	t.Cleanup(ts.Close)
	return ts
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	res, err := http.Post(url+"/v1/audio/speech", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// errorCode returns the code of an OpenAI-shaped error body.
func errorCode(body string) string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal([]byte(body), &e)
	return e.Error.Code
}

// TestGatewayNeverShortensOnFailure: a sentence that passes the gateway's
// audio limit fails the request as it does on a server alone (400
// audio_too_long), instead of being left out of a 200; and a worker's own
// refusal of a piece (its audio limit) is answered as that client error,
// not as a 502.
func TestGatewayNeverShortensOnFailure(t *testing.T) {
	t.Parallel() // its own workers, no timing bound
	const input = `{"voice":"en-us","input":"Hi. 7777777777777777777. Bye now.","response_format":"wav"}`
	t.Run("gateway limit", func(t *testing.T) {
		gw := gateway(t, newPool(t, worker(t).URL), tts.Options{MaxAudio: 2 * time.Second})
		if st, body := post(t, gw.URL, input); st != 400 || errorCode(body) != "audio_too_long" {
			t.Errorf("%d %.300s; want 400 audio_too_long", st, body)
		}
	})
	t.Run("worker limit", func(t *testing.T) {
		gw := gateway(t, newPool(t, limitedWorker(t, 2*time.Second).URL), tts.Options{MaxAudio: time.Minute})
		if st, body := post(t, gw.URL, input); st != 400 || errorCode(body) != "audio_too_long" {
			t.Errorf("%d %.300s; want the worker's 400 audio_too_long", st, body)
		}
	})
}

// fakeWorker answers health checks with one voice, and speech with speak.
func fakeWorker(t *testing.T, models string, speak http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"status":"ok"}`) })
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, models) })
	mux.HandleFunc("POST /v1/audio/speech", speak)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	return ts
}

const oneVoice = `{"object":"list","data":[{"id":"en-us","object":"model","owned_by":"service"}]}`

func boundedPool(t *testing.T, opts upstream.Options, urls ...string) *upstream.Pool {
	t.Helper()
	opts.URLs, opts.Key, opts.Logger = urls, workerKey, quiet
	opts.CheckEvery = time.Hour // no check restores a failed worker during the test
	p, err := upstream.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestPoolBoundsWhatItReads: a worker answering a piece with far more
// audio than a piece may hold (600 MB) fails the piece after reading
// little more than the bound, with the gateway's audio limit (the
// request's failure: the worker stays in rotation); so does one whose
// SSE event line is too long for any piece.
func TestPoolBoundsWhatItReads(t *testing.T) {
	var sent atomic.Int64
	flood := fakeWorker(t, oneVoice, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/pcm")
		chunk := make([]byte, 64<<10)
		for range (600 << 20) / len(chunk) {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	longLine := fakeWorker(t, oneVoice, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+strings.Repeat("A", 4<<20)+"\n\n")
	})
	for _, tc := range []struct {
		name string
		bad  *httptest.Server
	}{{"pcm flood", flood}, {"long SSE line", longLine}} {
		t.Run(tc.name, func(t *testing.T) {
			// A second of audio per piece: 96 KB of pcm with the slack.
			p := boundedPool(t, upstream.Options{MaxAudio: time.Second}, tc.bad.URL)
			_, _, err := speak(p, "Hello.")
			if !errors.Is(err, tts.ErrAudioTooLong) || !strings.Contains(err.Error(), "more audio than a piece may hold") {
				t.Fatalf("speak: %v", err)
			}
			if err := p.Ready(context.Background()); err != nil {
				t.Errorf("out of rotation: %v", err)
			}
		})
	}
	if n := sent.Load(); n > 16<<20 {
		t.Errorf("the flooding worker got %d MB out before the gateway stopped reading", n>>20)
	}
	t.Logf("the flooding worker wrote %d KB before its connection was closed (of 600 MB)", sent.Load()>>10)
}

// TestPoolFailsSlowWorkers: a worker that sends nothing past the idle
// timeout, or trickles bytes past the piece timeout, fails the piece (it
// had the request: no other worker is asked) and leaves rotation, so the
// next pieces go to another worker.
func TestPoolFailsSlowWorkers(t *testing.T) {
	t.Parallel() // its own workers; the good one answers at once, so the short timeouts hold on a busy machine
	var tries atomic.Int64
	stalled := fakeWorker(t, oneVoice, func(w http.ResponseWriter, r *http.Request) {
		tries.Add(1)
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "audio/pcm")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	trickle := fakeWorker(t, oneVoice, func(w http.ResponseWriter, r *http.Request) {
		tries.Add(1)
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "audio/pcm")
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				w.Write([]byte{0})
				w.(http.Flusher).Flush()
			}
		}
	})
	// The good worker answers at once: a real one may take longer than
	// these short timeouts on a busy machine.
	quick := fakeWorker(t, oneVoice, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "audio/pcm")
		w.Write(make([]byte, 4800))
	})
	opts := upstream.Options{IdleTimeout: 200 * time.Millisecond, PieceTimeout: 500 * time.Millisecond}
	for _, tc := range []struct {
		name string
		bad  *httptest.Server
		why  string
	}{{"stalled", stalled, "sent nothing for too long"}, {"trickling", trickle, "took too long"}} {
		t.Run(tc.name, func(t *testing.T) {
			p := boundedPool(t, opts, tc.bad.URL)
			if _, _, err := speak(p, "Hello."); err == nil || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("speak: %v; want %q", err, tc.why)
			}
			p = boundedPool(t, opts, tc.bad.URL, quick.URL)
			tries.Store(0)
			spoken := 0
			for range 3 {
				samples, _, err := speak(p, "Hello.")
				switch {
				case err == nil && len(samples) > 0:
					spoken++
				case err == nil || !strings.Contains(err.Error(), tc.why):
					t.Errorf("with a good worker: %d samples, %v", len(samples), err)
				}
			}
			if tries.Load() > 1 || spoken != 3-int(tries.Load()) {
				t.Errorf("with a good worker: the slow one asked %d times, %d of 3 spoken; want it asked at most once, the rest spoken", tries.Load(), spoken)
			}
		})
	}
}

// TestPoolBoundsModels: a worker whose voice list is larger than any
// real one is not taken into rotation.
func TestPoolBoundsModels(t *testing.T) {
	t.Parallel() // its own worker, no timing bound
	huge := `{"object":"list","data":[` + strings.Repeat(`{"id":"en-us","object":"model","owned_by":"service"},`, 400000) + `{"id":"x"}]}`
	bad := fakeWorker(t, huge, func(w http.ResponseWriter, r *http.Request) {})
	_, err := upstream.New(context.Background(), upstream.Options{URLs: []string{bad.URL}, Key: workerKey, Logger: quiet})
	if err == nil {
		t.Fatal("a pool of one worker with a 21 MB voice list is ready")
	}
	if !errors.Is(err, upstream.ErrNoneReady) || !strings.Contains(err.Error(), "none of the 1 workers is ready") {
		t.Errorf("New: %v", err)
	}
}
