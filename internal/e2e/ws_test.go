package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsConn is a WebSocket client of the speech endpoint.
type wsConn struct {
	t *testing.T
	c *websocket.Conn
}

func (e *env) dialWS(t *testing.T, key string) *wsConn {
	t.Helper()
	opts := &websocket.DialOptions{HTTPClient: e.ts.Client()}
	if key != "" {
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + key}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.ts.URL, "http")+"/v1/audio/speech/ws", opts)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return &wsConn{t, c}
}

// wsEvent is a server message; Binary is the length of a binary one.
type wsEvent struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Error  json.RawMessage `json:"error"`
	Binary int             `json:"-"`
	Err    error           `json:"-"` // the read failed (connection closed)
}

func (w *wsConn) next() wsEvent {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	typ, data, err := w.c.Read(ctx)
	if err != nil {
		return wsEvent{Err: err}
	}
	if typ == websocket.MessageBinary {
		return wsEvent{Type: "binary", Binary: len(data)}
	}
	var ev wsEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		w.t.Fatalf("server sent %q: %v", data, err)
	}
	return ev
}

// until reads events until one of type typ, failing on a closed connection.
func (w *wsConn) until(typ string) (wsEvent, int) {
	w.t.Helper()
	audio := 0
	for {
		ev := w.next()
		if ev.Err != nil {
			w.t.Fatalf("waiting for %s: %v", typ, ev.Err)
		}
		audio += ev.Binary
		if ev.Type == typ {
			return ev, audio
		}
	}
}

func (w *wsConn) send(typ websocket.MessageType, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return w.c.Write(ctx, typ, data)
}

func (w *wsConn) speech(id, voice, input string) {
	w.t.Helper()
	b, _ := json.Marshal(map[string]string{"type": "speech.create", "id": id, "voice": voice, "input": input})
	if err := w.send(websocket.MessageText, b); err != nil {
		w.t.Fatal(err)
	}
}

// errorType returns error.type of an error event.
func errorType(ev wsEvent) string {
	var e apiError
	json.Unmarshal(ev.Error, &e)
	return e.Type
}

func TestWebSocketAbuse(t *testing.T) {
	e := newEnv(t, envOptions{})
	settle := func() int {
		e.ts.Client().CloseIdleConnections()
		time.Sleep(50 * time.Millisecond)
		return runtime.NumGoroutine()
	}
	base := settle()

	t.Run("message over the limit closes with 1009, the server lives on", func(t *testing.T) {
		w := e.dialWS(t, e.key)
		w.until("ready")
		huge := `{"type":"speech.create","voice":"fake","input":"` + strings.Repeat("a", 2<<20) + `"}`
		w.send(websocket.MessageText, []byte(huge)) // may fail once the server closes
		ev := w.next()
		for ev.Err == nil {
			ev = w.next()
		}
		if s := websocket.CloseStatus(ev.Err); s != websocket.StatusMessageTooBig {
			t.Errorf("close status %v (%v), want 1009", s, ev.Err)
		}
		w2 := e.dialWS(t, e.key)
		w2.until("ready")
		w2.speech("a", "fake", "Still here.")
		if _, n := w2.until("speech.done"); n == 0 {
			t.Error("no audio after the huge message")
		}
	})

	t.Run("binary and junk messages get errors, the session goes on", func(t *testing.T) {
		w := e.dialWS(t, e.key)
		w.until("ready")
		for _, m := range []struct {
			typ  websocket.MessageType
			data string
		}{
			{websocket.MessageBinary, `{"type":"speech.create","voice":"fake","input":"x"}`},
			{websocket.MessageBinary, "\x00\xff\xfe"},
			{websocket.MessageText, "not json"},
			{websocket.MessageText, `{"type":"speech.dance"}`},
			{websocket.MessageText, `{"type":"speech.create","voice":"nobody","input":"x"}`},
			{websocket.MessageText, `{"type":"speech.create","voice":"fake","input":"` + strings.Repeat("a", 4097) + `"}`},
			{websocket.MessageText, `{"type":"speech.create","voice":"fake","input":"x","speed":1e309}`},
		} {
			if err := w.send(m.typ, []byte(m.data)); err != nil {
				t.Fatal(err)
			}
		}
		// Seven errors.
		for i := range 7 {
			ev := w.next()
			if ev.Err != nil || ev.Type != "error" || errorType(ev) == "" {
				t.Fatalf("message %d: %+v %s", i, ev, ev.Error)
			}
			if i == 4 && errorType(ev) != "proxy_error" {
				t.Errorf("unknown voice: error type %q", errorType(ev))
			}
		}
		// A cancel with nothing running is silent. (Sent before the
		// errors are in, it would cancel the requests still queued.)
		if err := w.send(websocket.MessageText, []byte(`{"type":"speech.cancel"}`)); err != nil {
			t.Fatal(err)
		}
		w.speech("ok", "fake", "After the junk.")
		if ev := w.next(); ev.Type != "speech.started" || ev.ID != "ok" {
			t.Errorf("after the cancel: %+v", ev)
		}
		if ev, n := w.until("speech.done"); ev.ID != "ok" || n == 0 {
			t.Errorf("done %+v, %d bytes", ev, n)
		}
	})

	t.Run("binary auth message is refused", func(t *testing.T) {
		w := e.dialWS(t, "")
		w.send(websocket.MessageBinary, []byte(`{"type":"auth","api_key":"`+e.key+`"}`))
		ev := w.next()
		for ev.Err == nil {
			ev = w.next()
		}
		if s := websocket.CloseStatus(ev.Err); s != websocket.StatusPolicyViolation {
			t.Errorf("close status %v, want 1008", s)
		}
	})

	t.Run("bad key in the auth message", func(t *testing.T) {
		w := e.dialWS(t, "")
		w.send(websocket.MessageText, []byte(`{"type":"auth","api_key":"sk_nope\u0000"}`))
		if ev := w.next(); ev.Type != "error" {
			t.Errorf("got %+v", ev)
		}
	})

	t.Run("client vanishes mid-synthesis and mid-flood", func(t *testing.T) {
		for range 5 {
			w := e.dialWS(t, e.key)
			w.until("ready")
			w.speech("long", "slow", strings.Repeat("One more sentence here. ", 20))
			if ev := w.next(); ev.Err != nil {
				t.Fatal(ev.Err)
			}
			w.c.CloseNow()
		}
		w := e.dialWS(t, e.key)
		w.until("ready")
		for i := range 200 {
			w.speech("f"+string(rune('a'+i%26)), "slow", "Flood. Flood. Flood.")
		}
		w.c.CloseNow()
	})

	t.Run("close handshake mid-synthesis", func(t *testing.T) {
		w := e.dialWS(t, e.key)
		w.until("ready")
		w.speech("long", "slow", strings.Repeat("One more sentence here. ", 20))
		w.next()
		err := w.c.Close(websocket.StatusNormalClosure, "bye")
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && websocket.CloseStatus(err) == -1 {
			t.Logf("close: %v", err)
		}
	})

	expectGoroutines(t, base, settle)
}
