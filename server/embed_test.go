package server_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// An application with its own users embeds the server behind its own
// authentication and no key store: speech, models and the WebSocket work
// for its signed-in users, the key, voice and account routes do not exist,
// and its refusals are the documented JSON.
func TestEmbeddedWithOwnAuth(t *testing.T) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	api, err := server.New(server.Options{Synthesizer: synth, Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(r *http.Request) (string, error) {
			c, err := r.Cookie("session")
			switch {
			case err != nil:
				return "", errors.New("Sign in to the app first.")
			case c.Value == "alice-session":
				return "alice", nil
			}
			return "", errors.New("Your session has expired.")
		}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(api)
	defer ts.Close()
	do := func(method, path, cookie, body string) *http.Response {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if cookie != "" {
			req.Header.Set("Cookie", "session="+cookie)
		}
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := do("POST", "/v1/audio/speech", "alice-session", `{"voice":"alloy","input":"Hello.","response_format":"wav"}`)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(string(b), "RIFF") {
		t.Errorf("speech: %d %.40q", res.StatusCode, b)
	}
	res = do("GET", "/v1/models", "alice-session", "")
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("models: %d", res.StatusCode)
	}
	res = do("GET", "/v1/account", "alice-session", "")
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(b) != `{"object":"account","name":"alice"}`+"\n" {
		t.Errorf("account: %d %s (no created: the host's accounts have none we know)", res.StatusCode, b)
	}
	for _, path := range []string{"/v1/keys", "/v1/voices", "/v1/voices/x"} {
		testserver.APIError(t, do("GET", path, "alice-session", ""), 404, "not_found")
	}
	testserver.APIError(t, do("POST", "/v1/accounts", "", `{"name":"eve"}`), 404, "not_found")
	for _, cookie := range []string{"", "old-session"} {
		got := testserver.APIError(t, do("POST", "/v1/audio/speech", cookie, `{"voice":"alloy","input":"Hello."}`), 401, "unauthenticated")
		if !strings.Contains(got.Message, "Sign in") && !strings.Contains(got.Message, "expired") {
			t.Errorf("cookie %q: %q", cookie, got.Message)
		}
	}
	// The WebSocket, signed in by the same cookie.
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(ts.URL, "http")+"/v1/audio/speech/ws",
		&websocket.DialOptions{HTTPClient: ts.Client(), HTTPHeader: http.Header{"Cookie": {"session=alice-session"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(16 << 20)
	if m := testserver.Next(t, c); m.Type != "ready" || m.Account != "alice" {
		t.Fatalf("ready: %+v", m)
	}
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "1", "voice": "alloy", "input": "Hi."})
	for m := testserver.Next(t, c); m.Type != "speech.done"; m = testserver.Next(t, c) {
		if m.Type == "error" {
			t.Fatalf("websocket speech: %+v", m)
		}
	}
}
