package server_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// slowSpeech starts a speech request of key on the slow voice (40 ms per
// sentence, n sentences) and returns its response once the headers are
// in: pcm streams, so the request is still running.
func slowSpeech(t *testing.T, e *testserver.Env, key string, n int) *http.Response {
	t.Helper()
	input := strings.Repeat("Slow sentence. ", n)
	return e.Do("POST", "/v1/audio/speech", key, "application/json",
		strings.NewReader(`{"model":"tts-1","voice":"slow","input":"`+input+`","response_format":"pcm"}`))
}

func quickSpeech(e *testserver.Env, key string) *http.Response {
	return e.Do("POST", "/v1/audio/speech", key, "application/json",
		strings.NewReader(`{"model":"tts-1","voice":"fake","input":"Quick.","response_format":"pcm"}`))
}

func TestConcurrencyLimitPerAccount(t *testing.T) {
	testserver.Long(t)
	t.Parallel() // a long test, waiting on the slow engine or its own server most of the time
	e := testserver.New(t, testserver.Options{Limits: store.Limits{Concurrent: 1}})
	long := slowSpeech(t, e, e.Key, 50) // 2 s of work, streaming
	defer long.Body.Close()
	if long.StatusCode != 200 {
		t.Fatalf("first request: %d", long.StatusCode)
	}
	res := quickSpeech(e, e.Key)
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	got := testserver.APIError(t, res, 429, wire.CodeRateLimit)
	if got.Type != wire.TypeRateLimit {
		t.Errorf("type %q", got.Type)
	}
	// Another account is not held up by local's.
	testserver.Status(t, quickSpeech(e, e.OtherKey), 200)
	// Once the long one ends, local may speak again.
	io.Copy(io.Discard, long.Body)
	long.Body.Close()
	status := 0
	if !wait.For(10*time.Second, func() bool {
		res := quickSpeech(e, e.Key)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		status = res.StatusCode
		return status == 200
	}) {
		t.Fatalf("still %d after the first request ended", status)
	}
}

func TestRequestsPerMinute(t *testing.T) {
	e := testserver.New(t, testserver.Options{Limits: store.Limits{RequestsPerMinute: 3}})
	for range 3 {
		testserver.Status(t, quickSpeech(e, e.Key), 200)
	}
	res := quickSpeech(e, e.Key)
	retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	if retry < 1 || retry > 20 {
		t.Errorf("Retry-After %q: want about 20 s (a minute over 3 requests)", res.Header.Get("Retry-After"))
	}
	testserver.APIError(t, res, 429, wire.CodeRateLimit)
	testserver.Status(t, quickSpeech(e, e.OtherKey), 200)
	// Models are not speech: not counted, not refused.
	testserver.Status(t, e.Do("GET", "/v1/models", e.Key, "", nil), 200)
	// The WebSocket counts utterances against the same limit.
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "1", "voice": "fake", "input": "Quick."})
	if m := testserver.Next(t, c); m.Type != "error" || m.Error["code"] != wire.CodeRateLimit {
		t.Errorf("websocket over the limit: %+v", m)
	}
}

func TestBusyWhenQueueFull(t *testing.T) {
	testserver.Long(t)
	t.Parallel() // a long test, waiting on the slow engine or its own server most of the time
	e := testserver.New(t, testserver.Options{MaxQueue: 1, Synth: func(o *tts.Options) { o.MaxParallel = 1 }})
	waitLoad := func(want tts.Load) {
		t.Helper()
		if !wait.For(10*time.Second, func() bool { return e.Synth.Load() == want }) {
			t.Fatalf("load %+v, want %+v", e.Synth.Load(), want)
		}
	}
	first := slowSpeech(t, e, e.Key, 50) // renders
	defer first.Body.Close()
	second := make(chan *http.Response, 1)
	go func() { second <- slowSpeech(t, e, e.OtherKey, 2) }()
	waitLoad(tts.Load{Busy: 1, Waiting: 1}) // the second waits for the slot
	res := quickSpeech(e, e.Key)
	if res.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	testserver.APIError(t, res, 503, wire.CodeServerBusy)
	io.Copy(io.Discard, first.Body)
	first.Body.Close()
	res = <-second
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("the queued request: %d", res.StatusCode)
	}
}
