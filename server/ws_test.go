package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func dialWS(t testing.TB, e *env, key string) *websocket.Conn {
	t.Helper()
	opts := &websocket.DialOptions{HTTPClient: e.ts.Client()}
	if key != "" {
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + key}}
	}
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.ts.URL, "http")+"/v1/audio/speech/ws", opts)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(16 << 20) // a sentence of audio is one message
	t.Cleanup(func() { c.CloseNow() })
	return c
}

type wsMsg struct {
	Type        string         `json:"type"`
	ID          string         `json:"id"`
	Account     string         `json:"account"`
	ContentType string         `json:"content_type"`
	SampleRate  int            `json:"sample_rate"`
	Sentences   int            `json:"sentences"`
	UpstreamMS  float64        `json:"upstream_ms"`
	GatewayMS   float64        `json:"gateway_ms"`
	Error       map[string]any `json:"error"`
	binary      int
}

// next reads one message; a binary one is returned with its length.
func next(t *testing.T, c *websocket.Conn) wsMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	typ, data, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if typ == websocket.MessageBinary {
		return wsMsg{Type: "binary", binary: len(data)}
	}
	var m wsMsg
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return m
}

func sendWS(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := c.Write(context.Background(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

func TestWebSocketSpeech(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, auth := range []string{"header", "message"} {
		t.Run(auth, func(t *testing.T) {
			var c *websocket.Conn
			if auth == "header" {
				c = dialWS(t, e, e.key)
			} else {
				c = dialWS(t, e, "")
				sendWS(t, c, map[string]string{"type": "auth", "api_key": e.key})
			}
			if m := next(t, c); m.Type != "ready" || m.Account != "local" {
				t.Fatalf("first message %+v", m)
			}
			// A bad request is answered and the session goes on.
			sendWS(t, c, map[string]any{"type": "speech.create", "id": "bad", "voice": "other-clone", "input": "Hi."})
			if m := next(t, c); m.Type != "error" || m.ID != "bad" || m.Error["code"] != "voice_not_found" || m.Error["type"] != "proxy_error" {
				t.Fatalf("error message %+v", m)
			}
			sendWS(t, c, map[string]any{"type": "speech.create", "id": "r1", "voice": "alloy", "input": "One. Two words. Three more words."})
			m := next(t, c)
			if m.Type != "speech.started" || m.ID != "r1" || m.ContentType != "audio/pcm" || m.SampleRate != 24000 {
				t.Fatalf("started %+v", m)
			}
			var chunks, bytes int
			for m = next(t, c); m.Type == "binary"; m = next(t, c) {
				chunks++
				bytes += m.binary
			}
			if m.Type != "speech.done" || m.ID != "r1" || m.Sentences != 3 || m.GatewayMS < m.UpstreamMS || m.UpstreamMS <= 0 {
				t.Fatalf("done %+v", m)
			}
			if chunks < 3 || bytes < 24000 {
				t.Errorf("%d binary messages, %d bytes: want one per sentence", chunks, bytes)
			}
		})
	}
}

func TestWebSocketCancel(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := dialWS(t, e, e.key)
	next(t, c) // ready
	sendWS(t, c, map[string]any{"type": "speech.create", "id": "long", "voice": "slow", "input": sentences10})
	if m := next(t, c); m.Type != "speech.started" {
		t.Fatalf("%+v", m)
	}
	if m := next(t, c); m.Type != "binary" {
		t.Fatalf("%+v", m)
	}
	sendWS(t, c, map[string]string{"type": "speech.cancel"})
	at := len(e.slow.Requests())
	m := next(t, c)
	for m.Type == "binary" {
		m = next(t, c)
	}
	if m.Type != "speech.cancelled" || m.ID != "long" {
		t.Fatalf("after cancel: %+v", m)
	}
	if n := len(e.slow.Requests()); n > at+1 || n >= 10 {
		t.Errorf("%d sentences at cancel, %d after", at, n)
	}
}

func TestWebSocketAuthFailures(t *testing.T) {
	e := newEnv(t, envOptions{})
	// A bad header key is refused before the upgrade, with the JSON error.
	_, res, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.ts.URL, "http")+"/v1/audio/speech/ws",
		&websocket.DialOptions{HTTPClient: e.ts.Client(), HTTPHeader: http.Header{"Authorization": {"Bearer " + e.revoked}}})
	if err == nil || res == nil || res.StatusCode != 401 {
		t.Fatalf("revoked key upgrade: %v %v", err, res)
	}
	for _, first := range []any{
		map[string]string{"type": "auth", "api_key": "sk_wrong"},
		map[string]string{"type": "speech.create", "voice": "en-us", "input": "Hi."},
	} {
		c := dialWS(t, e, "")
		sendWS(t, c, first)
		if m := next(t, c); m.Type != "error" || m.Error["type"] != "invalid_request_error" {
			t.Fatalf("%v: %+v", first, m)
		}
		_, _, err := c.Read(context.Background())
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Errorf("close status %v", err)
		}
	}
}

func TestWebSocketShutdownFinishesUtterance(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := dialWS(t, e, e.key)
	next(t, c) // ready
	sendWS(t, c, map[string]any{"type": "speech.create", "id": "last", "voice": "slow", "input": "One. Two. Three. Four."})
	if m := next(t, c); m.Type != "speech.started" {
		t.Fatalf("%+v", m)
	}
	done := make(chan error, 1)
	go func() { done <- e.srv.Shutdown(context.Background()) }()
	m := next(t, c)
	for m.Type == "binary" {
		m = next(t, c)
	}
	if m.Type != "speech.done" || m.Sentences != 4 {
		t.Fatalf("the utterance in progress was not finished: %+v", m)
	}
	_, _, err := c.Read(context.Background())
	if websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("close: %v", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return")
	}
	// New sessions are refused while shutting down.
	_, res, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.ts.URL, "http")+"/v1/audio/speech/ws",
		&websocket.DialOptions{HTTPClient: e.ts.Client(), HTTPHeader: http.Header{"Authorization": {"Bearer " + e.key}}})
	if err == nil || res == nil || res.StatusCode != 503 {
		t.Errorf("dial during shutdown: %v %v", err, res)
	}
}
