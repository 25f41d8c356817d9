package upstream_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// crashed is a worker's answer to a request its engine crashed on.
const crashed = `{"error":{"message":"The speech engine crashed on this request.","type":"server_error","param":null,"code":"engine_crashed"}}`

// breakMidAnswer answers a piece with a first sentence's audio (and its
// words, when the piece asks for SSE), then breaks the connection.
func breakMidAnswer(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !strings.Contains(string(body), `"stream_format":"sse"`) {
		w.Header().Set("Content-Type", "audio/pcm")
		w.Write(make([]byte, 4800))
	} else {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(wire.SSEDelta(make([]byte, 4800)))
		w.Write([]byte("data: {\"type\":\"speech.timestamps\",\"index\":0,\"words\":[]}\n\n"))
	}
	http.NewResponseController(w).Flush()
	panic(http.ErrAbortHandler) // the connection breaks
}

// TestPoisonTriedOnce: a piece a worker took and then failed (its
// connection broke before it answered or in the middle of its answer, or
// it answered 500) is not sent to another worker: with two such workers
// it is tried on one, and the gateway's caller gets a 5xx that says so (a
// worker's 500 passed on as the worker wrote it).
func TestPoisonTriedOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		speak  http.HandlerFunc
		status int
		code   string
	}{
		{"broken before answering", func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body)
			panic(http.ErrAbortHandler)
		}, http.StatusBadGateway, fault.CodeEngineError},
		{"broken mid-answer", breakMidAnswer, http.StatusBadGateway, fault.CodeEngineError},
		{"500", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, crashed)
		}, http.StatusInternalServerError, "engine_crashed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tries atomic.Int64
			poisoned := func(w http.ResponseWriter, r *http.Request) {
				tries.Add(1)
				tc.speak(w, r)
			}
			a, b := fakeWorker(t, oneVoice, poisoned), fakeWorker(t, oneVoice, poisoned)
			p := boundedPool(t, upstream.Options{}, a.URL, b.URL)
			for _, words := range []bool{false, true} { // bare pcm, SSE
				tries.Store(0)
				err := p.Synthesize(context.Background(), engine.Request{Voice: "en-us", Text: "Poison.", Words: words},
					func(engine.Chunk) error { return nil })
				if err == nil || tries.Load() != 1 {
					t.Errorf("words %v: tried on %d workers (%v); want 1 and an error", words, tries.Load(), err)
				}
			}
			gw := gateway(t, p, tts.Options{})
			tries.Store(0)
			st, body := post(t, gw.URL, `{"model":"tts-1","voice":"en-us","input":"Poison.","response_format":"wav"}`)
			if st != tc.status || errorCode(body) != tc.code || tries.Load() != 1 {
				t.Errorf("through the gateway: %d %.300s, tried on %d workers; want %d %s, tried on 1", st, body, tries.Load(), tc.status, tc.code)
			}
		})
	}
}

// TestNotTakenIsRetried: a worker that refuses connections, or answers
// 503 (not ready, busy) or 429, has not taken the request, which goes to
// the next worker.
func TestNotTakenIsRetried(t *testing.T) {
	busy := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"message":"busy","type":"server_error","code":"server_busy"}}`, status)
		}
	}
	refusing := fakeWorker(t, oneVoice, func(http.ResponseWriter, *http.Request) {})
	// No connection kept alive from the first checks: the worker's
	// address refuses the next one.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, tc := range []struct {
		name string
		bad  *httptest.Server
	}{
		{"refused", refusing},
		{"503", fakeWorker(t, oneVoice, busy(http.StatusServiceUnavailable))},
		{"429", fakeWorker(t, oneVoice, busy(http.StatusTooManyRequests))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good := worker(t)
			p := boundedPool(t, upstream.Options{Client: client}, tc.bad.URL, good.URL)
			refusing.Close()
			for range 4 { // each worker first at least once
				if samples, _, err := speak(p, "Hello."); err != nil || len(samples) == 0 {
					t.Fatalf("%d samples, %v", len(samples), err)
				}
			}
		})
	}
}

// TestGatewayLimitAsServer: a gateway whose pool has the gateway's audio
// limit (as examples/server makes it) answers a piece whose audio passes
// it as a server alone does, 400 audio_too_long, having asked one worker.
func TestGatewayLimitAsServer(t *testing.T) {
	// The gateway sends the long sentence as its normalized text reads it.
	const poison, read = "7777777777777777777", "seven seven seven"
	var asked atomic.Int64
	counted := func() string {
		h := workerHandler(t, quiet, 0)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if strings.Contains(string(body), read) {
				asked.Add(1)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(ts.Close)
		return ts.URL
	}
	p := boundedPool(t, upstream.Options{MaxAudio: 2 * time.Second}, counted(), counted())
	gw := gateway(t, p, tts.Options{MaxAudio: 2 * time.Second})
	st, body := post(t, gw.URL, `{"voice":"en-us","input":"Hi. `+poison+`. Bye now.","response_format":"wav"}`)
	if st != http.StatusBadRequest || errorCode(body) != fault.CodeAudioTooLong || asked.Load() != 1 {
		t.Errorf("%d %.300s, asked %d workers; want 400 audio_too_long from one", st, body, asked.Load())
	}
	if err := p.Ready(context.Background()); err != nil {
		t.Errorf("a worker that sent a long sentence's audio is out of rotation: %v", err)
	}
}
