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

func DialWS(t testing.TB, e *Env, key string) *websocket.Conn {
	t.Helper()
	opts := &websocket.DialOptions{HTTPClient: e.TS.Client()}
	if key != "" {
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + key}}
	}
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+"/v1/audio/speech/ws", opts)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(16 << 20) // a sentence of audio is one message
	t.Cleanup(func() { c.CloseNow() })
	return c
}

type WSMsg struct {
	Type        string         `json:"type"`
	ID          string         `json:"id"`
	Account     string         `json:"account"`
	ContentType string         `json:"content_type"`
	SampleRate  int            `json:"sample_rate"`
	Sentences   int            `json:"sentences"`
	UpstreamMS  float64        `json:"upstream_ms"`
	GatewayMS   float64        `json:"gateway_ms"`
	Error       map[string]any `json:"error"`
	Binary      int            `json:"-"`
}

// Next reads one message; a binary one is returned with its length.
func Next(t *testing.T, c *websocket.Conn) WSMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	typ, data, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if typ == websocket.MessageBinary {
		return WSMsg{Type: "binary", Binary: len(data)}
	}
	var m WSMsg
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return m
}

func SendWS(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := c.Write(context.Background(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

// ClosedWith reads c's messages until it closes, which must be with
// status want.
func ClosedWith(t *testing.T, c *websocket.Conn, want websocket.StatusCode) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			if st := websocket.CloseStatus(err); st != want {
				t.Errorf("closed with %v (%v), want %v", st, err, want)
			}
			return
		}
	}
}

// WSWord is a word of a speech.timestamps message.
type WSWord struct {
	Word      string  `json:"word"`
	StartMS   float64 `json:"start_ms"`
	EndMS     float64 `json:"end_ms"`
	CharStart int     `json:"char_start"`
	CharEnd   int     `json:"char_end"`
	Estimated bool    `json:"estimated"`
}

// WSEvent is one message of a context: audio (its bytes) or JSON.
type WSEvent struct {
	Typ     string
	Audio   []byte
	Index   int
	Words   []WSWord
	FlushID string
	Raw     map[string]any
}

// ReadContext reads messages until the context's speech.done (or an
// error, or speech.cancelled), and returns them in order.
func ReadContext(t *testing.T, c *websocket.Conn) []WSEvent {
	t.Helper()
	var out []WSEvent
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		typ, data, err := c.Read(ctx)
		cancel()
		if err != nil {
			t.Fatalf("after %d messages: %v", len(out), err)
		}
		if typ == websocket.MessageBinary {
			out = append(out, WSEvent{Typ: "binary", Audio: data})
			continue
		}
		var m struct {
			Type    string   `json:"type"`
			Index   int      `json:"index"`
			Words   []WSWord `json:"words"`
			FlushID string   `json:"flush_id"`
		}
		var raw map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(data, &raw)
		out = append(out, WSEvent{Typ: m.Type, Index: m.Index, Words: m.Words, FlushID: m.FlushID, Raw: raw})
		switch m.Type {
		case "speech.done", "error", "speech.cancelled":
			return out
		}
	}
}
