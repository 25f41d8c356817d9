package testserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsWord is a word of a speech.timestamps message.
type WSWord struct {
	Word      string  `json:"word"`
	StartMS   float64 `json:"start_ms"`
	EndMS     float64 `json:"end_ms"`
	CharStart int     `json:"char_start"`
	CharEnd   int     `json:"char_end"`
	Estimated bool    `json:"estimated"`
}

// wsEvent is one message of a context: audio (its bytes) or JSON.
type WSEvent struct {
	Typ     string
	Audio   []byte
	Index   int
	Words   []WSWord
	FlushID string
	Raw     map[string]any
}

// readContext reads messages until the context's speech.done (or an
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
