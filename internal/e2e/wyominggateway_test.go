package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/wait"
)

// wyomingEvent is one event of the Wyoming protocol: a JSON header line,
// then its data and payload.
type wyomingEvent struct {
	Type    string
	Data    json.RawMessage
	Payload []byte
}

// wyomingCall sends one event to a Wyoming listener and returns the
// events of its answer up to (and with) one whose type is last.
func wyomingCall(t *testing.T, addr, typ string, data any, last ...string) []wyomingEvent {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	header := map[string]any{"type": typ, "version": "1.9.0"}
	if data != nil {
		b, _ := json.Marshal(data)
		header["data_length"] = len(b)
		h, _ := json.Marshal(header)
		_, err = c.Write(append(append(h, '\n'), b...))
	} else {
		h, _ := json.Marshal(header)
		_, err = c.Write(append(h, '\n'))
	}
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	var out []wyomingEvent
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %d events: %v", len(out), err)
		}
		var h struct {
			Type          string          `json:"type"`
			Data          json.RawMessage `json:"data"`
			DataLength    int             `json:"data_length"`
			PayloadLength int             `json:"payload_length"`
		}
		if err := json.Unmarshal(line, &h); err != nil {
			t.Fatalf("header %q: %v", line, err)
		}
		e := wyomingEvent{Type: h.Type, Data: h.Data}
		if h.DataLength > 0 {
			e.Data = make([]byte, h.DataLength)
			if _, err := io.ReadFull(r, e.Data); err != nil {
				t.Fatal(err)
			}
		}
		if h.PayloadLength > 0 {
			e.Payload = make([]byte, h.PayloadLength)
			if _, err := io.ReadFull(r, e.Payload); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, e)
		for _, l := range last {
			if e.Type == l {
				return out
			}
		}
	}
}

// wyomingVoices is the TTS program's voices in a describe answer.
func wyomingVoices(t *testing.T, addr string) []map[string]any {
	t.Helper()
	info := wyomingCall(t, addr, "describe", nil, "info")
	var programs struct {
		TTS []struct {
			Voices []map[string]any `json:"voices"`
		} `json:"tts"`
	}
	if err := json.Unmarshal(info[len(info)-1].Data, &programs); err != nil || len(programs.TTS) != 1 {
		t.Fatalf("info %s: %v", info[len(info)-1].Data, err)
	}
	return programs.TTS[0].Voices
}

// TestGatewayWyomingDescribe: a gateway's Wyoming listener describes its
// voices exactly as its worker's does — a multi-speaker Piper model (109
// speakers) one voice with its speakers, not 109 voices — and speaks a
// speaker, and the model's first speaker, as the worker does.
func TestGatewayWyomingDescribe(t *testing.T) {
	lib := ortLibrary(t)
	env := []string{"ONNXRUNTIME_LIB=" + lib}
	// Addresses of their own: the first address a server logs may be its
	// Wyoming listener's.
	workerAddr, workerWyoming, gatewayWyoming := freeAddr(t), freeAddr(t), freeAddr(t)
	worker := startExample(t, env, "-addr", workerAddr, "-voices", piperVoices, "-strict", "-wyoming-addr", workerWyoming)
	var key string
	select {
	case key = <-worker.keys:
	case <-time.After(60 * time.Second):
		t.Fatal("the worker printed no key")
	}
	startExample(t, env, "-upstream", "http://"+workerAddr, "-upstream-key", key, "-wyoming-addr", gatewayWyoming)

	want := wyomingVoices(t, workerWyoming)
	speakers := 0
	for _, v := range want {
		if v["name"] == "en_GB-tonevctk-medium" {
			sp, _ := v["speakers"].([]any)
			speakers = len(sp)
		}
	}
	if speakers != 109 {
		t.Fatalf("the worker lists en_GB-tonevctk-medium with %d speakers, want 109", speakers)
	}
	var got []map[string]any
	if !wait.For(30*time.Second, func() bool {
		got = wyomingVoices(t, gatewayWyoming)
		return len(got) >= len(want)
	}) {
		t.Fatalf("the gateway lists %d voices, the worker %d", len(got), len(want))
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("the gateway's describe differs from its worker's (%d and %d voices); first difference:\n got %v\nwant %v",
					len(got), len(want), got[i], want[i])
			}
		}
		t.Fatalf("the gateway lists %d voices, the worker %d", len(got), len(want))
	}

	for _, voice := range []map[string]any{{"name": "en_GB-tonevctk-medium", "speaker": "p239"}, {"name": "en_GB-tonevctk-medium"}} {
		text := map[string]any{"text": "Tones for a test.", "voice": voice}
		var pcm [2]int
		for i, addr := range []string{workerWyoming, gatewayWyoming} {
			for _, e := range wyomingCall(t, addr, "synthesize", text, "audio-stop", "error") {
				if e.Type == "error" {
					t.Fatalf("%v on %s: %s", voice, addr, e.Data)
				}
				pcm[i] += len(e.Payload)
			}
		}
		if pcm[0] == 0 || pcm[1] < pcm[0]*9/10 || pcm[1] > pcm[0]*11/10 {
			t.Errorf("%v: %d bytes from the gateway, %d from the worker", voice, pcm[1], pcm[0])
		}
	}
}
