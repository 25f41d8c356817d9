package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/wyoming"
	"github.com/voxkit/voxkit/tts"
)

// doorText is the text every door speaks in BenchmarkDoorFirstAudio: two
// sentences, so that a door that waited for the whole text would show.
const doorText = "The quick brown fox jumps over the lazy dog. A second sentence follows it."

// BenchmarkDoorFirstAudio measures, through each door, the time from a
// request of doorText (espeak-ng's en-us, 16-bit pcm) to its first audio
// byte at the client, p50 and p99: what one door adds over another is the
// difference between its line and the others'. Each door runs on a
// server that renders ahead (tts.Options.Ahead's default: "ahead") and on
// one that does not ("none"), one after the other (in turns which goes
// first), so that what
// look-ahead costs the first audio shows as the ratio of the two lines.
func BenchmarkDoorFirstAudio(b *testing.B) {
	servers := []benchServer{
		{"ahead", doorsOf(b, testserver.New(b, testserver.Options{}))},
		{"none", doorsOf(b, testserver.New(b, testserver.Options{Synth: func(o *tts.Options) { o.Ahead = -1 }}))},
	}
	for i, d := range servers[0].doors {
		order := servers
		if i%2 == 1 { // neither goes first every time
			order = []benchServer{servers[1], servers[0]}
		}
		for _, srv := range order {
			b.Run(d.name+"/"+srv.name, func(b *testing.B) {
				run := srv.doors[i].run
				firsts = firsts[:0]
				for b.Loop() {
					begin = time.Now()
					marked = false
					if err := run(); err != nil {
						b.Fatal(err)
					}
					if !marked {
						markFirst()
					}
				}
				testserver.ReportPercentiles(b, "first-audio-", firsts)
			})
		}
	}
}

// benchServer is a server's doors, named for how it renders.
type benchServer struct {
	name  string
	doors []benchDoor
}

// benchDoor is one way in to speak doorText: run speaks it once, marking the
// first audio (markFirst) where the door's first audio is a message.
type benchDoor struct {
	name string
	run  func() error
}

// doorsOf returns every door of e's server.
func doorsOf(b *testing.B, e *testserver.Env) []benchDoor {
	wsURL := "ws" + strings.TrimPrefix(e.TS.URL, "http")
	post := func(path string, header http.Header, body any, first func(*bufio.Reader) error) func() error {
		data, _ := json.Marshal(body)
		return func() error {
			req, _ := http.NewRequest("POST", e.TS.URL+path, bytes.NewReader(data))
			req.Header = header.Clone()
			req.Header.Set("Content-Type", "application/json")
			res, err := e.TS.Client().Do(req)
			if err != nil {
				return err
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK {
				msg, _ := io.ReadAll(res.Body)
				b.Fatalf("%s: %d %s", path, res.StatusCode, msg)
			}
			r := bufio.NewReader(res.Body)
			if err := first(r); err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, r)
			return err
		}
	}
	anyByte := func(r *bufio.Reader) error { _, err := r.Peek(1); return err }
	event := func(prefix string) func(*bufio.Reader) error {
		return func(r *bufio.Reader) error {
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return err
				}
				if strings.Contains(line, prefix) {
					return nil
				}
			}
		}
	}
	// socket dials path, sends msgs and reads until isAudio says a message
	// is audio, then until isEnd says one ends the speech.
	socket := func(path string, header http.Header, msgs []any, isAudio, isEnd func(websocket.MessageType, []byte) bool) func() error {
		c, _, err := websocket.Dial(context.Background(), wsURL+path, &websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: header})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.CloseNow() })
		c.SetReadLimit(16 << 20)
		return func() error {
			for _, m := range msgs {
				data, _ := json.Marshal(m)
				if err := c.Write(context.Background(), websocket.MessageText, data); err != nil {
					return err
				}
			}
			audio := false
			for {
				typ, data, err := c.Read(context.Background())
				if err != nil {
					return err
				}
				if !audio && isAudio(typ, data) {
					audio = true
					markFirst()
				}
				if isEnd(typ, data) {
					return nil
				}
			}
		}
	}
	bearer := http.Header{"Authorization": {"Bearer " + e.Key}}
	xi := http.Header{"Xi-Api-Key": {e.Key}}
	hasText := func(s string) func(websocket.MessageType, []byte) bool {
		return func(_ websocket.MessageType, data []byte) bool { return bytes.Contains(data, []byte(s)) }
	}
	cartesiaBody := func(id string) map[string]any {
		return map[string]any{"model_id": "sonic-2", "transcript": doorText, "voice": map[string]any{"mode": "id", "id": "en-us"},
			"output_format": map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 22050}, "context_id": id}
	}
	return []benchDoor{
		{"openai-pcm", post("/v1/audio/speech", bearer, map[string]any{"voice": "en-us", "input": doorText, "response_format": "pcm"}, anyByte)},
		{"openai-sse", post("/v1/audio/speech", bearer, map[string]any{"voice": "en-us", "input": doorText, "response_format": "pcm", "stream_format": "sse"}, event("speech.audio.delta"))},
		{"socket", socket("/v1/audio/speech/ws", bearer, []any{map[string]any{"type": "speech.create", "id": "r", "voice": "en-us", "input": doorText, "response_format": "pcm"}},
			func(typ websocket.MessageType, _ []byte) bool { return typ == websocket.MessageBinary }, hasText(`"speech.done"`))},
		{"elevenlabs-stream", post("/elevenlabs/v1/text-to-speech/en-us/stream?output_format=pcm_22050", xi, map[string]any{"text": doorText}, anyByte)},
		{"elevenlabs-socket", socket("/elevenlabs/v1/text-to-speech/en-us/multi-stream-input?output_format=pcm_22050", xi,
			[]any{map[string]any{"text": doorText, "context_id": "c"}, map[string]any{"context_id": "c", "close_context": true}},
			hasText(`"audio":"`), hasText(`"isFinal":true`))},
		{"cartesia-bytes", post("/cartesia/tts/bytes", bearer, cartesiaBody(""), anyByte)},
		{"cartesia-sse", post("/cartesia/tts/sse", bearer, cartesiaBody(""), event("event: chunk"))},
		{"cartesia-socket", socket("/cartesia/tts/websocket", bearer, []any{cartesiaBody("c")}, hasText(`"type":"chunk"`), hasText(`"type":"done"`))},
		{"wyoming", wyomingSpeak(b, e)},
	}
}

// The first-audio clock of the request being measured.
var (
	begin  time.Time
	marked bool
	firsts []time.Duration
)

func markFirst() {
	if !marked {
		marked = true
		firsts = append(firsts, time.Since(begin))
	}
}

// wyomingSpeak speaks doorText over a Wyoming connection, marking the
// first audio-chunk.
func wyomingSpeak(b *testing.B, e *testserver.Env) func() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go e.Server.ServeWyoming(l, "local")
	b.Cleanup(func() { l.Close() })
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	r := bufio.NewReader(c)
	return func() error {
		if err := wyoming.Write(c, "synthesize", map[string]any{"text": doorText, "voice": map[string]any{"name": "en-us"}}, nil); err != nil {
			return err
		}
		for {
			ev, err := wyoming.Read(r)
			if err != nil {
				return err
			}
			switch ev.Type {
			case "audio-chunk":
				markFirst()
			case "audio-stop":
				return nil
			}
		}
	}
}
