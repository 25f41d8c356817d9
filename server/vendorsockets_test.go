package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/server/servertest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// The vendor sockets' limits (ElevenLabs' multi-stream-input, Cartesia's
// websocket): input waiting per context, context ids, the key deadline,
// and the key checked again while a socket is open.

// vendorDoor is one vendor socket as the tests drive it: how to open it
// with a key, and its message for text of a context. ElevenLabs' socket
// speaks with the voice it was opened for, Cartesia's contexts with
// "slow".
type vendorDoor struct {
	name string
	dial func(t *testing.T, e *testserver.Env, voice, key string) *websocket.Conn
	// text is a message adding text to context id (opening it first).
	text func(id, text string) map[string]any
}

var vendorDoors = []vendorDoor{
	{
		name: "elevenlabs",
		dial: func(t *testing.T, e *testserver.Env, voice, key string) *websocket.Conn {
			return e.VendorDial(t, "/elevenlabs/v1/text-to-speech/"+voice+"/multi-stream-input?output_format=pcm_24000&inactivity_timeout=180",
				http.Header{"Xi-Api-Key": {key}})
		},
		text: func(id, text string) map[string]any { return map[string]any{"context_id": id, "text": text} },
	},
	{
		name: "cartesia",
		dial: func(t *testing.T, e *testserver.Env, voice, key string) *websocket.Conn {
			return e.VendorDial(t, "/cartesia/tts/websocket", http.Header{"X-Api-Key": {key}})
		},
		text: func(id, text string) map[string]any {
			return map[string]any{"context_id": id, "transcript": text, "continue": true, "voice": map[string]any{"mode": "id", "id": "slow"},
				"output_format": map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 24000}}
		},
	},
}

// vendorEvent is a server message of either vendor socket.
type vendorEvent struct {
	// ElevenLabs'
	Audio     string `json:"audio"`
	IsFinal   *bool  `json:"isFinal"`
	ContextID string `json:"contextId"`
	Error     string `json:"error"`
	Code      string `json:"code"`
	// Cartesia's
	Type      string `json:"type"`
	CContext  string `json:"context_id"`
	Data      string `json:"data"`
	ErrorCode string `json:"error_code"`

	raw string
}

// context is the context the event names.
func (ev vendorEvent) context() string { return ev.ContextID + ev.CContext }

// errorCode is the event's error code, "" for an event that is no error.
func (ev vendorEvent) errorCode() string {
	if ev.Type == "error" {
		return ev.ErrorCode
	}
	if ev.Error != "" {
		return ev.Code
	}
	return ""
}

// audio reports whether the event carries audio.
func (ev vendorEvent) audio() bool { return ev.Audio != "" || ev.Type == "chunk" && ev.Data != "" }

// readVendor reads the next event; err is the connection's end.
func readVendor(t *testing.T, c *websocket.Conn) (vendorEvent, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, data, err := c.Read(ctx)
	if err != nil {
		return vendorEvent{}, err
	}
	ev := vendorEvent{raw: string(data)}
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	return ev, nil
}

// untilVendorError reads events until an error event, and returns it.
func untilVendorError(t *testing.T, c *websocket.Conn) vendorEvent {
	t.Helper()
	for {
		ev, err := readVendor(t, c)
		if err != nil {
			t.Fatalf("connection ended without an error event: %v", err)
		}
		if ev.errorCode() != "" {
			return ev
		}
	}
}

// TestVendorSocketByteBudget: text waiting for a context's synthesis is
// bounded in bytes, as on voxkit's socket: while a context is busy, two
// 40 KB messages (more than 64 KiB together) get the context an
// input_buffer_full error in the vendor's shape.
func TestVendorSocketByteBudget(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, door := range vendorDoors {
		t.Run(door.name, func(t *testing.T) {
			c := door.dial(t, e, "slow", e.Key)
			testserver.SendJSON(t, c, door.text("a", strings.Repeat("A slow sentence. ", 100))) // 4 s of synthesis
			// Once its first audio is out, the context is at work on that
			// text: what comes next waits (text sent before it starts may
			// join the first and be taken with it).
			for {
				ev, err := readVendor(t, c)
				if err != nil {
					t.Fatal(err)
				}
				if ev.audio() {
					break
				}
			}
			piece := strings.Repeat(" ", 40<<10)
			testserver.SendJSON(t, c, door.text("a", piece))
			testserver.SendJSON(t, c, door.text("a", piece))
			ev := untilVendorError(t, c)
			if ev.errorCode() != wire.CodeBufferFull || ev.context() != "a" {
				t.Errorf("%s; want input_buffer_full for context a", ev.raw)
			}
		})
	}
}

// TestVendorSocketContextIDBounded: a context id longer than
// wire.MaxClientID is refused with the vendor's error, which does not
// echo it, and opens no context.
func TestVendorSocketContextIDBounded(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, door := range vendorDoors {
		t.Run(door.name, func(t *testing.T) {
			c := door.dial(t, e, "fake", e.Key)
			long := strings.Repeat("i", wire.MaxClientID+1)
			testserver.SendJSON(t, c, door.text(long, "Hello there."))
			ev := untilVendorError(t, c)
			if ev.errorCode() != wire.CodeInvalidValue || strings.Contains(ev.raw, long) {
				t.Errorf("%s; want invalid_value without the id", ev.raw)
			}
			// An id at the limit is echoed.
			id := strings.Repeat("j", wire.MaxClientID)
			testserver.SendJSON(t, c, door.text(id, "Hello there."))
			for {
				ev, err := readVendor(t, c)
				if err != nil || ev.errorCode() != "" || ev.context() == long {
					t.Fatalf("%s %v; want audio for the id at the limit", ev.raw, err)
				}
				if ev.audio() {
					if ev.context() != id {
						t.Errorf("audio of context %q, want %q", ev.context(), id)
					}
					break
				}
			}
		})
	}
}

// TestElevenLabsSocketKeyDeadline: an ElevenLabs socket opened without a
// key is closed (1008) when no key came within the auth timeout, however
// long its inactivity_timeout; one whose first message brought the key
// stays open past it.
func TestElevenLabsSocketKeyDeadline(t *testing.T) {
	t.Parallel() // a long test, alongside the others that wait on the slow engine
	const deadline = 300 * time.Millisecond
	e := testserver.New(t, testserver.Options{SocketAuth: deadline})
	path := "/elevenlabs/v1/text-to-speech/fake/multi-stream-input?output_format=pcm_24000&inactivity_timeout=180"

	c := e.VendorDial(t, path, nil)
	_, err := readVendor(t, c)
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation || !strings.Contains(err.Error(), "API key") {
		t.Errorf("silent socket without a key: %v; want close 1008 for the missing key", err)
	}

	c = e.VendorDial(t, path, nil)
	testserver.SendJSON(t, c, map[string]any{"text": " ", "context_id": "a", "xi_api_key": e.Key})
	time.Sleep(2 * deadline) // past the deadline: the key came in time
	testserver.SendJSON(t, c, map[string]any{"text": "Hello there. ", "context_id": "a", "flush": true})
	if ev, err := readVendor(t, c); err != nil || !ev.audio() {
		t.Errorf("socket admitted by its first message: %s %v; want audio", ev.raw, err)
	}
}

// TestVendorSocketsRecheckKey: a key revoked while a vendor socket is
// open stops it: a context opened after the revocation is refused with
// invalid_api_key (the periodic check is then an hour away), and an open
// socket that sends nothing more gets invalid_api_key from the periodic
// check (shortened to 100 ms); either way the socket closes with 1008.
// The key may have come in the vendor's header or (ElevenLabs) in the
// first message.
func TestVendorSocketsRecheckKey(t *testing.T) {
	envs := map[string]*testserver.Env{"new-context": testserver.New(t, testserver.Options{Recheck: time.Hour}), "periodic": testserver.New(t, testserver.Options{Recheck: 100 * time.Millisecond})}
	firstMessage := vendorDoor{
		name: "elevenlabs-first-message",
		dial: func(t *testing.T, e *testserver.Env, voice, key string) *websocket.Conn {
			c := e.VendorDial(t, "/elevenlabs/v1/text-to-speech/"+voice+"/multi-stream-input?output_format=pcm_24000&inactivity_timeout=180", nil)
			testserver.SendJSON(t, c, map[string]any{"text": " ", "context_id": "open", "xi_api_key": key})
			return c
		},
		text: vendorDoors[0].text,
	}
	for _, door := range append(vendorDoors, firstMessage) {
		for _, when := range []string{"new-context", "periodic"} {
			t.Run(door.name+"/"+when, func(t *testing.T) {
				e := envs[when]
				k, key, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: "local", Name: "socket", Scope: store.ScopeSpeech})
				if err != nil {
					t.Fatal(err)
				}
				c := door.dial(t, e, "fake", key)
				testserver.SendJSON(t, c, door.text("a", "Hello there. "))
				if ev, err := readVendor(t, c); err != nil || !ev.audio() {
					t.Fatalf("before the revocation: %s %v; want audio", ev.raw, err)
				}
				if _, err := e.Store.RevokeKey(t.Context(), "local", k.Prefix); err != nil {
					t.Fatal(err)
				}
				if when == "new-context" {
					testserver.SendJSON(t, c, door.text("b", "Hello there. "))
				}
				refused := false
				for {
					ev, err := readVendor(t, c)
					if err != nil {
						if st := websocket.CloseStatus(err); st != websocket.StatusPolicyViolation {
							t.Errorf("closed with %v (%v), want 1008", st, err)
						}
						break
					}
					switch {
					case ev.errorCode() == wire.CodeInvalidAPIKey:
						refused = true
						if when == "new-context" && ev.context() != "b" {
							t.Errorf("refusal %s; want it for context b", ev.raw)
						}
					case ev.errorCode() != "":
						t.Errorf("error %s; want invalid_api_key", ev.raw)
					case ev.audio() && ev.context() == "b":
						t.Fatal("the context opened after the revocation speaks")
					}
				}
				if !refused {
					t.Error("no invalid_api_key error before the close")
				}
			})
		}
	}
}

// TestVendorSocketFloodMemory: a client that stops reading and sends five
// contexts 60 messages of 1 MB of text each (the attack of issue 31), or
// 300 of 60 KB (each within the message limit), does not grow the server
// by more than vendorFloodBound: text waits within each context's budget.
func TestVendorSocketFloodMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 300 MB per socket")
	}
	if testserver.RaceEnabled {
		t.Skip("the race detector's memory makes RSS meaningless")
	}
	const vendorFloodBound = 150 << 20
	e := testserver.New(t, testserver.Options{})
	for _, door := range vendorDoors {
		for _, flood := range []struct {
			name          string
			size, repeats int
		}{{"1MB", 1_000_000, 60}, {"60KB", 60_000, 300}} {
			t.Run(door.name+"/"+flood.name, func(t *testing.T) {
				text := strings.Repeat("Hello there. ", flood.size/13)
				c := door.dial(t, e, "fake", e.Key)
				runtime.GC()
				debug.FreeOSMemory()
				servertest.ResetPeakRSS(t)
				base := servertest.PeakRSS(t)
				sent := 0
			send:
				for range flood.repeats {
					for _, id := range []string{"c1", "c2", "c3", "c4", "c5"} {
						data, _ := json.Marshal(door.text(id, text))
						ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
						err := c.Write(ctx, websocket.MessageText, data)
						cancel()
						if err != nil {
							break send // the server stopped reading
						}
						sent++
					}
				}
				growth := servertest.PeakRSS(t) - base
				t.Logf("%d messages of %d bytes: peak RSS +%.1f MB", sent, len(text), float64(growth)/1e6)
				if growth > vendorFloodBound {
					t.Errorf("peak RSS grew by %d MB, the bound is %d MB", growth>>20, vendorFloodBound>>20)
				}
				c.CloseNow()
			})
		}
	}
}

// TestWSRechecksKeyPeriodically: voxkit's own socket checks its key
// every recheck interval too, not only before each request: a key
// revoked during a long request ends it with invalid_api_key and 1008.
func TestWSRechecksKeyPeriodically(t *testing.T) {
	e := testserver.New(t, testserver.Options{Recheck: 100 * time.Millisecond})
	k, key, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: "local", Name: "socket", Scope: store.ScopeSpeech})
	if err != nil {
		t.Fatal(err)
	}
	c := testserver.DialWS(t, e, key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "long", "voice": "slow", "response_format": "pcm",
		"input": strings.Repeat("A slow sentence. ", 240)}) // 240 sentences of 40 ms
	if m := testserver.Next(t, c); m.Type != "speech.started" {
		t.Fatalf("%+v", m)
	}
	if _, err := e.Store.RevokeKey(t.Context(), "local", k.Prefix); err != nil {
		t.Fatal(err)
	}
	for {
		m := testserver.Next(t, c)
		if m.Type == "speech.done" {
			t.Fatal("the request of the revoked key went on to its end")
		}
		if m.Type == "error" {
			if m.Error["code"] != wire.CodeInvalidAPIKey {
				t.Errorf("%+v; want invalid_api_key", m)
			}
			break
		}
	}
	testserver.ClosedWith(t, c, websocket.StatusPolicyViolation)
}
