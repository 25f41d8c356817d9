package openai_test

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/tts"
)

// heldPocket is the PocketTTS engine whose call for the first piece (its
// text begins with first), once it has emitted its first chunk, decodes
// nothing more until release is closed. Other calls, those rendering
// ahead among them, go on.
type heldPocket struct {
	*pocket.Engine
	first   string
	release chan struct{}
	chunks  atomic.Int32 // chunks decoded by the first piece's call so far
	calls   atomic.Int32 // calls for the first piece
}

func (h *heldPocket) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	first := strings.HasPrefix(req.Text, h.first) && h.calls.Add(1) == 1
	return h.Engine.Synthesize(ctx, req, func(c engine.Chunk) error {
		if !first {
			return emit(c)
		}
		// Counted before emit, which may push the chunk to the client
		// before it returns.
		n := h.chunks.Add(1)
		if err := emit(c); err != nil {
			return err
		}
		if n == 1 {
			select {
			case <-h.release:
			case <-time.After(30 * time.Second): // a deadlock breaker, not a measure
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
}

// The first audio of POST /v1/audio/speech in a streaming format reaches
// the client as soon as PocketTTS has decoded its first chunk: the engine
// decodes the rest of the piece only once the client has read audio.
// Before, a sentence's samples were held until its end, and the client
// read nothing until the engine gave up waiting.
func TestSpeechFirstChunkBeforePieceEnds(t *testing.T) {
	t.Parallel() // its own server and engine; the engine holds, nothing is timed
	dir := testserver.PocketVoices(t)
	pk, err := pocket.Load(context.Background(), pocket.Options{LibraryPath: onnxtest.Library(t), VoicesDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pk.Close() })
	held := &heldPocket{Engine: pk, first: "This first", release: make(chan struct{})}
	e := testserver.New(t, testserver.Options{Synth: func(o *tts.Options) {
		o.Engines["pocket"] = held
		if err := o.Voices.AddEngine(context.Background(), "pocket", pk, time.Now()); err != nil {
			t.Fatal(err)
		}
	}})
	var voice string
	for _, v := range e.Catalog.List("") {
		if v.Engine == "pocket" {
			voice = v.ID
			break
		}
	}
	input := "This first sentence is long enough that the model speaks it in more than one chunk of audio. A second one."
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
		strings.NewReader(`{"voice":"`+voice+`","input":"`+input+`","response_format":"pcm","seed":3}`))
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("%d %s", res.StatusCode, b)
	}
	buf := make([]byte, 4096)
	n, err := io.ReadAtLeast(res.Body, buf, 1)
	decoded := held.chunks.Load() // read before the engine goes on
	close(held.release)
	if err != nil || n == 0 {
		t.Fatalf("reading the first audio: %d bytes, %v", n, err)
	}
	rest, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if decoded != 1 || held.chunks.Load() < 2 {
		t.Errorf("the first audio came after %d chunks of the first piece were decoded, of %d; want after the first of several",
			decoded, held.chunks.Load())
	}
	if len(rest)+n < 24000 {
		t.Errorf("%d bytes of audio in all", len(rest)+n)
	}
}
