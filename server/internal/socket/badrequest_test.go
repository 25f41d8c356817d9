package socket_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestBadWebSocketMessages: the error events of bad messages on an open
// WebSocket, byte for byte.
func TestBadWebSocketMessages(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	if m := testserver.Next(t, c); m.Type != "ready" {
		t.Fatalf("first message %+v", m)
	}
	bodies := map[string]string{}
	defer testserver.CheckGolden(t, "testdata/bad_ws_messages.json", bodies)
	for _, tc := range []struct{ name, msg string }{
		{"not json", `{"type":`},
		{"no type", `{"voice":"en-us"}`},
		{"unknown type", `{"type":"speech.frobnicate"}`},
		{"voice missing", `{"type":"speech.create","input":"Hi."}`},
		{"input blank", `{"type":"speech.create","voice":"en-us","input":" "}`},
		{"unknown voice", `{"type":"speech.create","voice":"nobody","input":"Hi."}`},
		{"speed", `{"type":"speech.create","voice":"en-us","input":"Hi.","speed":9}`},
		{"format", `{"type":"speech.create","voice":"en-us","input":"Hi.","response_format":"aac"}`},
		{"audio too long", `{"type":"speech.create","voice":"en-us","input":"Hi.` + strings.Repeat("<|pause:5s|>", 130) + `"}`},
		{"strict tags", `{"type":"speech.create","voice":"en-us","input":"<|frobnicate|> Hi.","strict_tags":true}`},
		{"input stream text", `{"type":"speech.create","voice":"en-us","input":"Hi.","input_stream":true}`},
		{"append without stream", `{"type":"input.append","id":"nope","text":"Hi."}`},
		{"long id", `{"type":"speech.create","id":"` + strings.Repeat("i", 129) + `","voice":"en-us","input":"Hi."}`},
	} {
		if err := c.Write(context.Background(), websocket.MessageText, []byte(tc.msg)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, data, err := c.Read(ctx)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		bodies[tc.name] = testserver.Varying.ReplaceAllString(string(data), "ID")
	}
}
