package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server/servertest"
	"github.com/voxkit/voxkit/tts"
)

// silentSentence is a sentence of 1,000 characters that makes no audio:
// an input stream speaks it at once and nothing is heard.
var silentSentence = strings.Repeat("-", 997) + ".\n\n"

// streamCap is the text one input stream may carry in TestStreamTextCap,
// in the words of the error that ends it: less than the 64 KiB a vendor
// socket's context may have waiting, so that the cap, not that budget,
// ends a stream sent in one go however slowly the server reads it.
var streamCap = fmt.Sprint(40_000)

// TestStreamTextCap: an input stream carries at most the documented
// text, silent sentences included, on every door: past it the stream
// ends with that door's error, the server has not grown with the text,
// and the connection goes on.
func TestStreamTextCap(t *testing.T) {
	e := testserver.New(t, testserver.Options{Synth: func(o *tts.Options) { o.MaxStreamInput = 40_000 }})
	chunk := strings.Repeat(silentSentence, 15) // 15 KB, within every door's message limit

	t.Run("voxkit", func(t *testing.T) {
		c := testserver.DialWS(t, e, e.Key)
		testserver.Next(t, c) // ready
		testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "s", "voice": "en-us", "response_format": "pcm", "input_stream": true})
		runtime.GC()
		debug.FreeOSMemory()
		servertest.ResetPeakRSS(t)
		base := servertest.PeakRSS(t)
		// Up to 48 MB, each 30 KB flushed before the next is sent.
		var ended testserver.WSMsg
		for sent := 0; sent < 48<<20 && ended.Type == ""; sent += len(chunk) {
			testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "s", "text": chunk})
			testserver.SendWS(t, c, map[string]any{"type": "input.flush", "id": "s", "flush_id": "f"})
			for {
				m := testserver.Next(t, c)
				if m.Type == "error" {
					ended = m
				}
				if m.Type == "error" || m.Type == "flush.done" {
					break
				}
			}
		}
		growth := servertest.PeakRSS(t) - base
		t.Logf("peak RSS +%.1f MB", float64(growth)/1e6)
		if ended.ID != "s" || ended.Error["code"] != "string_above_max_length" || !strings.Contains(fmt.Sprint(ended.Error["message"]), streamCap) {
			t.Fatalf("the stream ended with %+v, want string_above_max_length naming %s", ended, streamCap)
		}
		if !testserver.RaceEnabled && growth > 64<<20 {
			t.Errorf("peak RSS grew by %d MB, want < 64 MB", growth>>20)
		}
		testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "t", "voice": "en-us", "response_format": "pcm", "input": "Still here."})
		for m := testserver.Next(t, c); m.Type != "speech.done"; m = testserver.Next(t, c) {
			// The flush sent with the last append may be answered after
			// the stream ended: no stream "s" is open any more.
			if m.Type == "error" && m.ID != "s" {
				t.Fatalf("after the cap: %+v", m)
			}
		}
	})

	t.Run("elevenlabs", func(t *testing.T) {
		c := e.ElevenSocket("/v1/text-to-speech/en-us/multi-stream-input?output_format=pcm_24000")
		testserver.SendJSON(t, c, map[string]any{"text": " ", "context_id": "a"})
		for range 3 {
			testserver.SendJSON(t, c, map[string]any{"text": chunk, "context_id": "a"})
		}
		m := testserver.ReadEleven(t, c)
		if m.ContextID != "a" || !strings.Contains(m.Error, streamCap) {
			t.Fatalf("%+v, want the error of context a naming %s", m, streamCap)
		}
		testserver.SendJSON(t, c, map[string]any{"text": " ", "context_id": "b"})
		testserver.SendJSON(t, c, map[string]any{"text": "Still here. ", "context_id": "b", "flush": true})
		if m := testserver.ReadEleven(t, c); m.ContextID != "b" || m.Audio == "" {
			t.Errorf("after the cap: %+v, want audio of context b", m)
		}
	})

	t.Run("cartesia", func(t *testing.T) {
		c := e.CartesiaSocket()
		gen := func(id, text string) {
			testserver.SendJSON(t, c, map[string]any{"context_id": id, "model_id": "sonic-3", "voice": map[string]any{"mode": "id", "id": "en-us"},
				"output_format": map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 24000}, "transcript": text,
				"continue": true, "add_timestamps": true, "use_normalized_timestamps": true})
		}
		for range 3 {
			gen("a", chunk)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, data, err := c.Read(ctx)
		var ev map[string]any
		if err != nil || json.Unmarshal(data, &ev) != nil || ev["type"] != "error" || ev["context_id"] != "a" ||
			ev["error_code"] != "string_above_max_length" || !strings.Contains(fmt.Sprint(ev["message"]), streamCap) {
			t.Fatalf("%s %v, want the error event of context a naming %s", data, err, streamCap)
		}
		gen("b", "Still here.")
		testserver.SendJSON(t, c, map[string]any{"context_id": "b", "transcript": "", "continue": false})
		if ev := testserver.ReadCartesia(t, c); ev.ContextID != "b" || ev.Type != "chunk" {
			t.Errorf("after the cap: %+v, want a chunk of context b", ev)
		}
	})

	t.Run("wyoming", func(t *testing.T) {
		c := testserver.DialWyoming(t, testserver.StartWyoming(t, e))
		voice := map[string]any{"name": "en-us"}
		c.Send("synthesize-start", map[string]any{"voice": voice})
		for range 3 {
			c.Send("synthesize-chunk", map[string]any{"text": chunk})
		}
		if ev := c.Next(); ev.Type != "error" || ev.String("code") != "string_above_max_length" || !strings.Contains(ev.String("text"), streamCap) {
			t.Fatalf("%s %v, want the error event naming %s", ev.Type, ev.Data, streamCap)
		}
		c.Send("synthesize", map[string]any{"text": "Still here.", "voice": voice})
		if pcm, _, _ := c.Audio(); len(pcm) == 0 {
			t.Error("after the cap: no audio")
		}
	})
}
