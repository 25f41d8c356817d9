package socket_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// untilError reads messages until an error message and returns it.
func untilError(t *testing.T, c *websocket.Conn) testserver.WSMsg {
	t.Helper()
	for {
		m := testserver.Next(t, c)
		if m.Type == "error" {
			return m
		}
	}
}

// busyWith starts a long request on c, so that what is sent next waits
// behind it.
func busyWith(t *testing.T, c *websocket.Conn) {
	t.Helper()
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "busy", "voice": "slow", "response_format": "pcm",
		"input": strings.Repeat("A slow sentence to keep the connection busy. ", 40)})
}

// TestWSClientIDsBounded: ids and flush ids the server would echo are
// refused past wire.MaxClientID bytes, and a queued input stream holds a
// bounded number of messages however small their text, so a flood of
// input.flush messages with large ids cannot grow the server.
func TestWSClientIDsBounded(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	busyWith(t, c)
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "q", "voice": "en-us", "input_stream": true})

	long := strings.Repeat("f", wire.MaxClientID+1)
	testserver.SendWS(t, c, map[string]any{"type": "input.flush", "id": "q", "flush_id": long})
	m := untilError(t, c)
	if m.Error["code"] != wire.CodeInvalidValue || m.Error["param"] != "flush_id" || m.ID != "" {
		t.Errorf("long flush_id: %+v", m)
	}
	if b, _ := json.Marshal(m); strings.Contains(string(b), long) {
		t.Error("the error echoes the long flush_id")
	}
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": strings.Repeat("i", 200), "voice": "en-us", "input": "Hi."})
	if m := untilError(t, c); m.Error["code"] != wire.CodeInvalidValue || m.Error["param"] != "id" || m.ID != "" {
		t.Errorf("long id: %+v", m)
	}
	testserver.SendWS(t, c, map[string]any{"type": strings.Repeat("t", 200), "id": "q"})
	if m := untilError(t, c); m.Error["code"] != wire.CodeInvalidValue || m.Error["param"] != "type" {
		t.Errorf("long type: %+v", m)
	}
	// A message too large to be an input message is refused unread.
	testserver.SendWS(t, c, map[string]any{"type": "input.flush", "id": "q", "flush_id": strings.Repeat("f", 100<<10)})
	if m := untilError(t, c); m.Error["code"] != wire.CodeInvalidValue || len(fmt.Sprint(m.Error["message"])) > 200 {
		t.Errorf("100 KB flush: %+v", m)
	}

	// Many flushes of the queued stream, each within the id limit.
	id := strings.Repeat("x", wire.MaxClientID)
	for range 300 {
		testserver.SendWS(t, c, map[string]any{"type": "input.flush", "id": "q", "flush_id": id})
	}
	if m := untilError(t, c); m.Error["code"] != wire.CodeBufferFull || m.ID != "q" {
		t.Errorf("300 queued flushes: %+v, want input_buffer_full for q", m)
	}
	// Cancelled, and its end read: the busy request does not hold the
	// server's shutdown at the test's end.
	testserver.SendWS(t, c, map[string]any{"type": "speech.cancel", "id": "busy"})
	for {
		if m := testserver.Next(t, c); m.Type == "speech.cancelled" && m.ID == "busy" {
			break
		}
	}
}

// TestWSAppendsJoin: appends waiting in a queued input stream are one
// message, so a stream fed word by word while it waits is not refused
// for the number of its messages.
func TestWSAppendsJoin(t *testing.T) {
	t.Parallel() // a long test, alongside the others that wait on the slow engine
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "busy", "voice": "slow", "response_format": "pcm",
		"input": strings.Repeat("A slow sentence. ", 10)})
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "q", "voice": "fake", "input_stream": true})
	for range 1000 {
		testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "q", "text": "Word. "})
	}
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "q"})
	for _, want := range []string{"busy", "q"} {
		for {
			m := testserver.Next(t, c)
			if m.Type == "error" {
				t.Fatalf("%+v", m)
			}
			if m.Type == "speech.done" {
				if m.ID != want {
					t.Fatalf("speech.done of %q, want %q", m.ID, want)
				}
				break
			}
		}
	}
}

// TestWSBadKeyHeader: a handshake whose Sec-WebSocket-Key is not 16
// bytes of base64 gets the JSON 400, which does not echo the key.
func TestWSBadKeyHeader(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for name, keys := range map[string][]string{
		"100 KB":   {strings.Repeat("A", 100<<10)},
		"not b64":  {"this is not base64!!"},
		"8 bytes":  {"AAAAAAAAAAA="},
		"two keys": {"dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25jZQ=="},
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", e.TS.URL+"/v1/audio/speech/ws", nil)
			req.Header.Set("Authorization", "Bearer "+e.Key)
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
			req.Header.Set("Sec-WebSocket-Version", "13")
			req.Header["Sec-WebSocket-Key"] = keys
			res, err := e.TS.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var we wire.Error
			if res.StatusCode != 400 || res.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &we) != nil ||
				we.Param != "Sec-WebSocket-Key" || len(body) > 512 {
				t.Errorf("%d %s %.300q", res.StatusCode, res.Header.Get("Content-Type"), body)
			}
		})
	}
}

// TestInputStreamRechecksKey: an input stream whose key is revoked while
// it is open is refused at its next input.flush or input.done with
// invalid_api_key and closed with 1008, as a request would be.
func TestInputStreamRechecksKey(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, end := range []string{"input.flush", "input.done"} {
		t.Run(end, func(t *testing.T) {
			k, key, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: "local", Name: "stream", Scope: store.ScopeSpeech})
			if err != nil {
				t.Fatal(err)
			}
			c := testserver.DialWS(t, e, key)
			testserver.Next(t, c) // ready
			testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "s", "voice": "fake", "input_stream": true, "response_format": "pcm"})
			testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "s", "text": "Hello there. "})
			if m := testserver.Next(t, c); m.Type != "speech.started" {
				t.Fatalf("%+v", m)
			}
			if _, err := e.Store.RevokeKey(t.Context(), "local", k.Prefix); err != nil {
				t.Fatal(err)
			}
			testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "s", "text": "More text"})
			testserver.SendWS(t, c, map[string]any{"type": end, "id": "s"})
			if m := untilError(t, c); m.Error["code"] != wire.CodeInvalidAPIKey || m.ID != "s" {
				t.Errorf("%+v; want invalid_api_key for s", m)
			}
			testserver.ClosedWith(t, c, websocket.StatusPolicyViolation)
		})
	}
}
