package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/wire"
)

// TestWebSocketErrorOrderAsHTTP: a speech.create that is wrong twice — a
// voice the caller may not use and a format the server does not have —
// is answered with the error the OpenAI HTTP door answers for the same
// request, now that the core owns the codec (issue 41 point 3): the voice
// first, as tts checks a request, where the socket checked the format
// before the core.
func TestWebSocketErrorOrderAsHTTP(t *testing.T) {
	e := newEnv(t, envOptions{})
	body := `{"voice":"other-clone","input":"Hi.","response_format":"aac"}`
	resp := e.do("POST", "/v1/audio/speech", e.key, "application/json", strings.NewReader(body))
	defer resp.Body.Close()
	var httpErr wire.Error
	if err := json.NewDecoder(resp.Body).Decode(&httpErr); err != nil {
		t.Fatal(err)
	}
	c := dialWS(t, e, e.key)
	if m := next(t, c); m.Type != "ready" {
		t.Fatalf("first message %+v", m)
	}
	sendWS(t, c, map[string]any{"type": "speech.create", "id": "r", "voice": "other-clone", "input": "Hi.", "response_format": "aac"})
	m := next(t, c)
	if m.Type != "error" || m.Error["code"] != httpErr.Code || m.Error["message"] != httpErr.Message {
		t.Fatalf("socket answered %+v; the HTTP door %+v", m, httpErr)
	}
}
