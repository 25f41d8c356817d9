package socket_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"
)

func TestWebSocketSpeech(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, auth := range []string{"header", "message"} {
		t.Run(auth, func(t *testing.T) {
			var c *websocket.Conn
			if auth == "header" {
				c = testserver.DialWS(t, e, e.Key)
			} else {
				c = testserver.DialWS(t, e, "")
				testserver.SendWS(t, c, map[string]string{"type": "auth", "api_key": e.Key})
			}
			if m := testserver.Next(t, c); m.Type != "ready" || m.Account != "local" {
				t.Fatalf("first message %+v", m)
			}
			// A bad request is answered and the session goes on.
			testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "bad", "voice": "other-clone", "input": "Hi."})
			if m := testserver.Next(t, c); m.Type != "error" || m.ID != "bad" || m.Error["code"] != "voice_not_found" || m.Error["type"] != "proxy_error" {
				t.Fatalf("error message %+v", m)
			}
			testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "r1", "voice": "alloy", "input": "One. Two words. Three more words."})
			m := testserver.Next(t, c)
			if m.Type != "speech.started" || m.ID != "r1" || m.ContentType != "audio/pcm" || m.SampleRate != 24000 {
				t.Fatalf("started %+v", m)
			}
			var chunks, bytes int
			for m = testserver.Next(t, c); m.Type == "binary"; m = testserver.Next(t, c) {
				chunks++
				bytes += m.Binary
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
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "long", "voice": "slow", "input": testserver.Sentences10})
	if m := testserver.Next(t, c); m.Type != "speech.started" {
		t.Fatalf("%+v", m)
	}
	if m := testserver.Next(t, c); m.Type != "binary" {
		t.Fatalf("%+v", m)
	}
	testserver.SendWS(t, c, map[string]string{"type": "speech.cancel"})
	at := len(e.Slow.Requests())
	m := testserver.Next(t, c)
	for m.Type == "binary" {
		m = testserver.Next(t, c)
	}
	if m.Type != "speech.cancelled" || m.ID != "long" {
		t.Fatalf("after cancel: %+v", m)
	}
	if n := len(e.Slow.Requests()); n > at+1 || n >= 10 {
		t.Errorf("%d sentences at cancel, %d after", at, n)
	}
}

func TestWebSocketAuthFailures(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	// A bad header key is refused before the upgrade, with the JSON error.
	_, res, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+"/v1/audio/speech/ws",
		&websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: http.Header{"Authorization": {"Bearer " + e.Revoked}}})
	if err == nil || res == nil || res.StatusCode != 401 {
		t.Fatalf("revoked key upgrade: %v %v", err, res)
	}
	for _, first := range []any{
		map[string]string{"type": "auth", "api_key": "sk_wrong"},
		map[string]string{"type": "speech.create", "voice": "en-us", "input": "Hi."},
	} {
		c := testserver.DialWS(t, e, "")
		testserver.SendWS(t, c, first)
		if m := testserver.Next(t, c); m.Type != "error" || m.Error["type"] != "invalid_request_error" {
			t.Fatalf("%v: %+v", first, m)
		}
		_, _, err := c.Read(context.Background())
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Errorf("close status %v", err)
		}
	}
}

func TestWebSocketShutdownFinishesUtterance(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "last", "voice": "slow", "input": "One. Two. Three. Four."})
	if m := testserver.Next(t, c); m.Type != "speech.started" {
		t.Fatalf("%+v", m)
	}
	done := make(chan error, 1)
	go func() { done <- e.Server.Shutdown(context.Background()) }()
	m := testserver.Next(t, c)
	for m.Type == "binary" {
		m = testserver.Next(t, c)
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
	_, res, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+"/v1/audio/speech/ws",
		&websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: http.Header{"Authorization": {"Bearer " + e.Key}}})
	if err == nil || res == nil || res.StatusCode != 503 {
		t.Errorf("dial during shutdown: %v %v", err, res)
	}
}

// speech.cancel naming a queued request (its whole input in its
// speech.create) stops it before it starts: speech.cancelled, none of
// its audio; the request before it goes on (it was spoken whole).
func TestWebSocketCancelQueued(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "first", "voice": "slow", "input": testserver.Sentences10})
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "queued", "voice": "en-us", "input": "Never said."})
	testserver.SendWS(t, c, map[string]any{"type": "speech.cancel", "id": "queued"})
	for {
		m := testserver.Next(t, c)
		if m.ID == "queued" {
			if m.Type != "speech.cancelled" {
				t.Errorf("the cancelled queued request: %+v, want speech.cancelled", m)
			}
			return
		}
	}
}
