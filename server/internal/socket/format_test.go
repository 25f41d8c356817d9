package socket_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/wire"
)

// TestWebSocketErrorOrderAsHTTP: a speech.create that is wrong twice — a
// voice the caller may not use and a format the server does not have —
// is answered with the error the OpenAI HTTP door answers for the same
// request, now that the core owns the codec (issue 41 point 3): the voice
// first, as tts checks a request, where the socket checked the format
// before the core.
func TestWebSocketErrorOrderAsHTTP(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	body := `{"voice":"other-clone","input":"Hi.","response_format":"aac"}`
	resp := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(body))
	defer resp.Body.Close()
	var httpErr wire.Error
	if err := json.NewDecoder(resp.Body).Decode(&httpErr); err != nil {
		t.Fatal(err)
	}
	c := testserver.DialWS(t, e, e.Key)
	if m := testserver.Next(t, c); m.Type != "ready" {
		t.Fatalf("first message %+v", m)
	}
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "r", "voice": "other-clone", "input": "Hi.", "response_format": "aac"})
	m := testserver.Next(t, c)
	if m.Type != "error" || m.Error["code"] != httpErr.Code || m.Error["message"] != httpErr.Message {
		t.Fatalf("socket answered %+v; the HTTP door %+v", m, httpErr)
	}
}
