//go:build cgo

package testserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// CartesiaDo sends a Cartesia API request with the key in X-API-Key.
func (e *Env) CartesiaDo(method, path, key, body string) (*http.Response, []byte) {
	e.T.Helper()
	return e.VendorDo(method, "/cartesia"+path, body, "X-API-Key", key, "Cartesia-Version", "2026-08-14")
}

// CartesiaSocket opens /tts/websocket with the key in Authorization, as
// the Cartesia SDKs send it.
func (e *Env) CartesiaSocket() *websocket.Conn {
	e.T.Helper()
	h := http.Header{}
	h.Set("Authorization", "Bearer "+e.Key)
	h.Set("Cartesia-Version", "2026-08-14")
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+"/cartesia/tts/websocket",
		&websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: h})
	if err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() { c.CloseNow() })
	c.SetReadLimit(16 << 20)
	return c
}

// CartesiaEvent is a server message of the WebSocket.
type CartesiaEvent struct {
	Type      string `json:"type"`
	ContextID string `json:"context_id"`
	Data      string `json:"data"`
	FlushID   int    `json:"flush_id"`
	ErrorCode string `json:"error_code"`
	Words     *struct {
		Words []string `json:"words"`
	} `json:"word_timestamps"`
}

func ReadCartesia(t *testing.T, c *websocket.Conn) CartesiaEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ev CartesiaEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}
