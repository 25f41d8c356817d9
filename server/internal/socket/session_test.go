package socket_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/tts"
)

// dialWSID opens the WebSocket with a request id, so the test finds its
// access-log line.
func dialWSID(t *testing.T, e *testserver.Env, key, id string) *websocket.Conn {
	t.Helper()
	opts := &websocket.DialOptions{HTTPClient: e.TS.Client(),
		HTTPHeader: http.Header{"Authorization": {"Bearer " + key}, "X-Request-Id": {id}}}
	c, _, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+"/v1/audio/speech/ws", opts)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(16 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func create(id, input string) map[string]any {
	return map[string]any{"type": "speech.create", "id": id, "voice": "en-us", "input": input, "response_format": "pcm"}
}

// Closing the socket stops the request in progress and drops the queued
// ones: after the first sentence of three long requests, the engine is
// asked for at most one more sentence, and the session ends.
func TestWebSocketCloseStopsWork(t *testing.T) {
	var log testserver.SyncBuffer
	g := testserver.Gate{Arrived: make(chan string, 100), Next: make(chan struct{}), Open: make(chan struct{})}
	var sentences atomic.Int32
	e := testserver.New(t, testserver.Options{Log: &log, Synth: func(o *tts.Options) {
		g.Engine = o.Engines["espeak"]
		o.Engines["espeak"] = g
		o.Ahead = -1 // the gate lets one sentence at a time through, in turn
	}})
	defer close(g.Open)
	c := dialWSID(t, e, e.Key, "ws-close")
	if m := testserver.Next(t, c); m.Type != "ready" {
		t.Fatalf("got %+v", m)
	}
	long := strings.Repeat("This sentence is one of many. ", 20)
	for _, id := range []string{"a", "b", "c"} {
		testserver.SendWS(t, c, create(id, long))
	}
	<-g.Arrived
	sentences.Add(1)
	g.Next <- struct{}{}
	for testserver.Next(t, c).Type != "binary" {
	}
	c.CloseNow()
	go func() {
		for range g.Arrived {
			sentences.Add(1)
		}
	}()
	line := log.RequestLine(t, "ws-close") // the session has ended
	if n := sentences.Load(); n > 2 {
		t.Errorf("%d sentences began, want at most 2 of the 60 queued", n)
	}
	if line["aborted"] != true || !strings.Contains(line["abort_reason"].(string), "client closed") {
		t.Errorf("access log: %v; want aborted=true, the client closed", line)
	}
}

// A client that stops reading is cut at the write timeout: its synthesis
// stops and the access log says aborted, with the reason.
func TestWebSocketSlowReaderIsAborted(t *testing.T) {
	t.Parallel() // a long test, alongside the others that wait on the slow engine
	var log testserver.SyncBuffer
	e := testserver.New(t, testserver.Options{Log: &log, WriteTimeout: 300 * time.Millisecond})
	c := dialWSID(t, e, e.Key, "ws-slow")
	if m := testserver.Next(t, c); m.Type != "ready" {
		t.Fatalf("got %+v", m)
	}
	// About 4.5 minutes of pcm (13 MB), never read.
	testserver.SendWS(t, c, create("x", strings.Repeat("The quick brown fox jumps over the lazy dog, twice. ", 80)[:4096]))
	line := log.RequestLine(t, "ws-slow")
	if line["aborted"] != true || !strings.Contains(line["abort_reason"].(string), "write timeout") {
		t.Errorf("access log: %v; want aborted=true for the write timeout", line)
	}
}

// A key revoked during a session fails the session's next request at once,
// and the session closes with a policy violation.
func TestWebSocketRevokedKeyStops(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	var made struct {
		Key    string `json:"key"`
		Prefix string `json:"prefix"`
	}
	if st := e.Call("POST", "/v1/keys", e.Key, `{"name":"ws"}`, &made); st != 200 && st != 201 {
		t.Fatalf("creating a key: %d", st)
	}
	c := dialWSID(t, e, made.Key, "ws-revoked")
	if m := testserver.Next(t, c); m.Type != "ready" {
		t.Fatalf("got %+v", m)
	}
	testserver.SendWS(t, c, create("first", "Hello."))
	for m := testserver.Next(t, c); m.Type != "speech.done"; m = testserver.Next(t, c) {
		if m.Type == "error" {
			t.Fatalf("first request: %+v", m)
		}
	}
	if st := e.Call("DELETE", "/v1/keys/"+made.Prefix, e.Key, "", nil); st != 200 {
		t.Fatalf("revoking: %d", st)
	}
	testserver.SendWS(t, c, create("second", "Hello again."))
	m := testserver.Next(t, c)
	if m.Type != "error" || m.ID != "second" || m.Error["code"] != "invalid_api_key" {
		t.Fatalf("after revocation: %+v, want an invalid_api_key error for the request", m)
	}
	_, _, err := c.Read(t.Context())
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("session end: %v, want close status 1008", err)
	}
}

// An authenticated session with nothing to do is closed after the idle
// timeout.
func TestWebSocketIdleTimeout(t *testing.T) {
	e := testserver.New(t, testserver.Options{WSIdle: 200 * time.Millisecond})
	c := dialWSID(t, e, e.Key, "ws-idle")
	if m := testserver.Next(t, c); m.Type != "ready" {
		t.Fatalf("got %+v", m)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, _, err := c.Read(ctx)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusNormalClosure || !strings.Contains(ce.Reason, "idle") {
		t.Errorf("got %v, want a normal closure for being idle", err)
	}
}

// Handshakes the endpoint refuses are answered with the documented JSON.
func TestWebSocketHandshakeErrorsAreJSON(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	upgrade := http.Header{}
	upgrade.Set("Connection", "Upgrade")
	upgrade.Set("Upgrade", "websocket")
	upgrade.Set("Sec-WebSocket-Version", "13")
	upgrade.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	for _, tc := range []struct {
		name   string
		header http.Header
		status int
		code   string
	}{
		{"no upgrade", http.Header{}, 426, "upgrade_required"},
		{"version 8", with(upgrade, "Sec-WebSocket-Version", "8"), 400, "invalid_value"},
		{"no key", with(upgrade, "Sec-WebSocket-Key", ""), 400, "missing_required_parameter"},
		{"foreign origin", with(upgrade, "Origin", "https://evil.example"), 403, "origin_not_allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", e.TS.URL+"/v1/audio/speech/ws", nil)
			req.Header = tc.header.Clone()
			req.Header.Set("Authorization", "Bearer "+e.Key)
			res, err := e.TS.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			testserver.APIError(t, res, tc.status, tc.code)
		})
	}
}

// with returns a copy of h with name set to value ("" deletes it).
func with(h http.Header, name, value string) http.Header {
	h = h.Clone()
	if value == "" {
		h.Del(name)
	} else {
		h.Set(name, value)
	}
	return h
}
