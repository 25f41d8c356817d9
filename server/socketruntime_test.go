package server_test

import (
	"context"
	"testing"

	"github.com/coder/websocket"
)

// TestVendorSocketShutdownFinishes: every socket runs on one runtime, so
// at shutdown a vendor socket's open context does what voxkit's does
// (TestWSConcurrentShutdown): it speaks what it holds, its unfinished
// tail included, ends with its final event (ElevenLabs' isFinal,
// Cartesia's done), and then the socket closes with 1001.
func TestVendorSocketShutdownFinishes(t *testing.T) {
	for _, door := range vendorDoors {
		t.Run(door.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			c := door.dial(t, e, "fake", e.key)
			sendJSON(t, c, door.text("a", "A first sentence. And a tail without its end"))
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
			go func() { shut <- e.srv.Shutdown(context.Background()) }()
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
