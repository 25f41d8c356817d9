package socket_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/tts"
)

// benchSentences end without their terminator, which the benchmark sends
// on its own.
var benchSentences = []string{
	"The quick brown fox jumps over the lazy dog",
	"Please call me back when you have a minute",
	"Our flight leaves at seven in the morning",
	"She found the old map in a box under the stairs",
	"Nobody expected the meeting to end so early",
}

// BenchmarkInputStreamLatency measures, over a WebSocket on loopback, the
// time from a sentence's terminator arriving in an input.append to the
// first audio of that sentence, against the time the server spent
// synthesizing it (speech.done's upstream_ms): the target is synthesis +
// 5 ms. It reports p50 and p99 of both and of their difference, for
// espeak-ng and for the generated Piper-medium model (make bench
// generates it into .cache/bench; without it that case is skipped).
func BenchmarkInputStreamLatency(b *testing.B) {
	b.Run("espeak", func(b *testing.B) {
		e := testserver.New(b, testserver.Options{})
		benchLatency(b, e, "en-us")
	})
	b.Run("piper-medium", func(b *testing.B) {
		model := filepath.Join(testserver.Root(), ".cache", "bench", "en_US-bench-medium.onnx")
		if dir := os.Getenv("VOXKIT_BENCH_DIR"); dir != "" {
			model = filepath.Join(dir, "en_US-bench-medium.onnx")
		}
		if _, err := os.Stat(model); err != nil {
			b.Skip("no generated Piper-medium model (make bench makes it):", err)
		}
		eng := onnxtest.Load(b, onnx.Options{Models: []string{model}})
		e := testserver.New(b, testserver.Options{Synth: func(o *tts.Options) {
			o.Engines["onnx"] = eng
			if err := o.Voices.AddEngine(context.Background(), "onnx", eng, time.Now()); err != nil {
				b.Fatal(err)
			}
		}})
		benchLatency(b, e, "en_US-bench-medium")
	})
}

func benchLatency(b *testing.B, e *testserver.Env, voice string) {
	c := testserver.DialWS(b, e, e.Key)
	ctx := context.Background()
	read := func() (websocket.MessageType, map[string]any) {
		typ, data, err := c.Read(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var m map[string]any
		if typ == websocket.MessageText {
			json.Unmarshal(data, &m)
		}
		return typ, m
	}
	send := func(v any) {
		data, _ := json.Marshal(v)
		if err := c.Write(ctx, websocket.MessageText, data); err != nil {
			b.Fatal(err)
		}
	}
	read() // ready
	var latency, synthesis, over []time.Duration
	for i := 0; b.Loop(); i++ {
		id := fmt.Sprint("c", i)
		sentence := benchSentences[i%len(benchSentences)]
		send(map[string]any{"type": "speech.create", "id": id, "voice": voice, "input_stream": true, "input": sentence[:10]})
		send(map[string]any{"type": "input.append", "id": id, "text": sentence[10:]})
		time.Sleep(2 * time.Millisecond) // the text waits for its end
		start := time.Now()
		send(map[string]any{"type": "input.append", "id": id, "text": "."})
		var first time.Duration
		for first == 0 {
			typ, m := read()
			if typ == websocket.MessageBinary {
				first = time.Since(start)
			} else if m["type"] == "error" {
				b.Fatal(m)
			}
		}
		send(map[string]any{"type": "input.done", "id": id})
		for {
			typ, m := read()
			if typ == websocket.MessageText && m["type"] == "speech.done" {
				up := time.Duration(m["upstream_ms"].(float64) * float64(time.Millisecond))
				latency, synthesis, over = append(latency, first), append(synthesis, up), append(over, first-up)
				break
			}
		}
	}
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"latency", latency}, {"synth", synthesis}, {"over", over}} {
		testserver.ReportPercentiles(b, m.name+"-", m.d)
	}
}
