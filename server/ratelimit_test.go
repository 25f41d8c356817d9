package server_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/wait"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// slowSpeech starts a speech request of key on the slow voice (40 ms per
// sentence, n sentences) and returns its response once the headers are
// in: pcm streams, so the request is still running.
func slowSpeech(t *testing.T, e *env, key string, n int) *http.Response {
	t.Helper()
	input := strings.Repeat("Slow sentence. ", n)
	return e.do("POST", "/v1/audio/speech", key, "application/json",
		strings.NewReader(`{"model":"tts-1","voice":"slow","input":"`+input+`","response_format":"pcm"}`))
}

func quickSpeech(e *env, key string) *http.Response {
	return e.do("POST", "/v1/audio/speech", key, "application/json",
		strings.NewReader(`{"model":"tts-1","voice":"fake","input":"Quick.","response_format":"pcm"}`))
}

func TestConcurrencyLimitPerAccount(t *testing.T) {
	long(t)
	t.Parallel() // a long test, waiting on the slow engine or its own server most of the time
	e := newEnv(t, envOptions{limits: store.Limits{Concurrent: 1}})
	long := slowSpeech(t, e, e.key, 50) // 2 s of work, streaming
	defer long.Body.Close()
	if long.StatusCode != 200 {
		t.Fatalf("first request: %d", long.StatusCode)
	}
	res := quickSpeech(e, e.key)
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	got := apiError(t, res, 429, wire.CodeRateLimit)
	if got.Type != wire.TypeRateLimit {
		t.Errorf("type %q", got.Type)
	}
	// Another account is not held up by local's.
	status(t, quickSpeech(e, e.otherKey), 200)
	// Once the long one ends, local may speak again.
	io.Copy(io.Discard, long.Body)
	long.Body.Close()
	status := 0
	if !wait.For(10*time.Second, func() bool {
		res := quickSpeech(e, e.key)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		status = res.StatusCode
		return status == 200
	}) {
		t.Fatalf("still %d after the first request ended", status)
	}
}

func TestRequestsPerMinute(t *testing.T) {
	e := newEnv(t, envOptions{limits: store.Limits{RequestsPerMinute: 3}})
	for range 3 {
		status(t, quickSpeech(e, e.key), 200)
	}
	res := quickSpeech(e, e.key)
	retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	if retry < 1 || retry > 20 {
		t.Errorf("Retry-After %q: want about 20 s (a minute over 3 requests)", res.Header.Get("Retry-After"))
	}
	apiError(t, res, 429, wire.CodeRateLimit)
	status(t, quickSpeech(e, e.otherKey), 200)
	// Models are not speech: not counted, not refused.
	status(t, e.do("GET", "/v1/models", e.key, "", nil), 200)
	// The WebSocket counts utterances against the same limit.
	c := dialWS(t, e, e.key)
	next(t, c) // ready
	sendWS(t, c, map[string]any{"type": "speech.create", "id": "1", "voice": "fake", "input": "Quick."})
	if m := next(t, c); m.Type != "error" || m.Error["code"] != wire.CodeRateLimit {
		t.Errorf("websocket over the limit: %+v", m)
	}
}

func TestBusyWhenQueueFull(t *testing.T) {
	long(t)
	t.Parallel() // a long test, waiting on the slow engine or its own server most of the time
	e := newEnv(t, envOptions{maxQueue: 1, synth: func(o *tts.Options) { o.MaxParallel = 1 }})
	waitLoad := func(want tts.Load) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for e.synth.Load() != want {
			if time.Now().After(deadline) {
				t.Fatalf("load %+v, want %+v", e.synth.Load(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	first := slowSpeech(t, e, e.key, 50) // renders
	defer first.Body.Close()
	second := make(chan *http.Response, 1)
	go func() { second <- slowSpeech(t, e, e.otherKey, 2) }()
	waitLoad(tts.Load{Busy: 1, Waiting: 1}) // the second waits for the slot
	res := quickSpeech(e, e.key)
	if res.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	apiError(t, res, 503, wire.CodeServerBusy)
	io.Copy(io.Discard, first.Body)
	first.Body.Close()
	res = <-second
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("the queued request: %d", res.StatusCode)
	}
}
