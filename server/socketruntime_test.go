package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestVendorSocketShutdownFinishes: every socket runs on one runtime, so
// at shutdown a vendor socket's open context does what voxkit's does
// (TestWSConcurrentShutdown): it speaks what it holds, its unfinished
// tail included, ends with its final event (ElevenLabs' isFinal,
// Cartesia's done), and then the socket closes with 1001.
func TestVendorSocketShutdownFinishes(t *testing.T) {
	for _, door := range vendorDoors {
		t.Run(door.name, func(t *testing.T) {
			e := testserver.New(t, testserver.Options{})
			c := door.dial(t, e, "fake", e.Key)
			testserver.SendJSON(t, c, door.text("a", "A first sentence. And a tail without its end"))
			for { // the first sentence's audio: the context is at work, the tail waits
				ev, err := readVendor(t, c)
				if err != nil {
					t.Fatal(err)
				}
				if ev.audio() {
					break
				}
			}
			shut := make(chan error, 1)
			go func() { shut <- e.Server.Shutdown(context.Background()) }()
			tail, final := false, false
			for {
				ev, err := readVendor(t, c)
				if err != nil {
					if websocket.CloseStatus(err) != websocket.StatusGoingAway {
						t.Errorf("closed with %v, want 1001", err)
					}
					break
				}
				switch {
				case ev.errorCode() != "":
					t.Errorf("error at shutdown: %s", ev.raw)
				case ev.audio():
					tail = true
				case ev.IsFinal != nil && *ev.IsFinal || ev.Type == "done":
					final = true
				}
			}
			if !tail || !final {
				t.Errorf("at shutdown: the tail's audio %v, the final event %v; want both before 1001", tail, final)
			}
			if err := <-shut; err != nil {
				t.Error(err)
			}
		})
	}
}

// TestVendorSocketSlowReaderIsAborted: a vendor socket's client that
// stops reading is cut at the write timeout, and its access log line says
// aborted with the reason, as voxkit's socket's does
// (TestWebSocketSlowReaderIsAborted): one writer for every socket.
func TestVendorSocketSlowReaderIsAborted(t *testing.T) {
	t.Parallel() // its own servers; a client that never reads is cut whatever the load
	for _, door := range vendorDoors {
		t.Run(door.name, func(t *testing.T) {
			t.Parallel()
			var log testserver.SyncBuffer
			e := testserver.New(t, testserver.Options{Log: &log, WriteTimeout: 300 * time.Millisecond})
			id := "slow-" + door.name
			h := http.Header{"X-Request-Id": {id}, "Xi-Api-Key": {e.Key}, "X-Api-Key": {e.Key}}
			path := "/cartesia/tts/websocket"
			if door.name == "elevenlabs" {
				path = "/elevenlabs/v1/text-to-speech/en-us/multi-stream-input?output_format=pcm_24000"
			}
			c := e.VendorDial(t, path, h)
			m := door.text("a", strings.Repeat("The quick brown fox jumps over the lazy dog, twice. ", 80)[:4096])
			m["voice"] = map[string]any{"mode": "id", "id": "en-us"}
			if door.name == "elevenlabs" {
				delete(m, "voice")
			}
			testserver.SendJSON(t, c, m) // minutes of audio, never read
			line := log.RequestLine(t, id)
			if reason, _ := line["abort_reason"].(string); line["aborted"] != true || !strings.Contains(reason, "write timeout") {
				t.Errorf("access log: %v; want aborted=true for the write timeout", line)
			}
		})
	}
}
