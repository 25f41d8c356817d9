package tts_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/tts"
)

// chunky is the fake engine with its audio cut into chunks of size
// samples (0: as the fake makes it), coming over time
// (engine.ChunkStreamer); before each chunk, gate (when set) is called
// with its index.
type chunky struct {
	*enginetest.Fake
	size int
	gate func(ctx context.Context, i int) error
}

func (c *chunky) StreamsChunks() bool { return true }

func (c *chunky) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	i := 0
	return c.Fake.Synthesize(ctx, req, func(ch engine.Chunk) error {
		x := ch.Samples
		for len(x) > 0 {
			n := len(x)
			if c.size > 0 {
				n = min(n, c.size)
			}
			if c.gate != nil {
				if err := c.gate(ctx, i); err != nil {
					return err
				}
			}
			i++
			if err := emit(engine.Chunk{Samples: x[:n], SampleRate: ch.SampleRate, Words: ch.Words}); err != nil {
				return err
			}
			x = x[n:]
		}
		return nil
	})
}

func chunkySynth(t *testing.T, e engine.Engine) *tts.Synthesizer {
	t.Helper()
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": e}})
	if err != nil {
		t.Fatal(err)
	}
	return synth
}

// seen is a writer that tells of its writes.
type seen struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // gets a value after a write, unless it holds one
}

func newSeen() *seen { return &seen{wrote: make(chan struct{}, 1)} }

func (s *seen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *seen) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// past waits until s holds more than n bytes, and reports whether it
// did before a long deadline (a deadlock breaker, not a measure).
func (s *seen) past(ctx context.Context, n int) bool {
	deadline := time.After(20 * time.Second)
	for s.len() <= n {
		select {
		case <-s.wrote:
		case <-deadline:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// A stream's audio leaves as the engine makes it: the first chunk of a
// sentence reaches the writer, in every format, while the engine is still
// to make the sentence's next chunk (the engine waits for it there; it
// waited in vain before, when a sentence was held until its end).
func TestStreamSendsChunksBeforeSentenceEnd(t *testing.T) {
	for _, name := range encode.DefaultRegistry.Names() {
		t.Run(name, func(t *testing.T) {
			out := newSeen()
			header, reached := 0, false
			e := &chunky{Fake: enginetest.NewFake(enginetest.FakeOptions{SampleRate: 24000}), size: 24000 / 2,
				gate: func(ctx context.Context, i int) error {
					switch i {
					case 0: // what the encoder wrote before any audio
						header = out.len()
					case 2: // the encoders' delays are under a second
						reached = out.past(ctx, header)
					}
					return ctx.Err()
				}}
			req := tts.Request{Voice: "fake", Input: "One long sentence without a stop in it anywhere at all", Format: encode.Format{Name: name}}
			if _, err := chunkySynth(t, e).Stream(context.Background(), out, req); err != nil {
				t.Fatal(err)
			}
			if !reached {
				t.Errorf("no audio was written before the sentence's third chunk was made (%d bytes of header, %d in all)", header, out.len())
			}
		})
	}
}

// Chunks sent as they come make the same stream, byte for byte, in every
// format, as the sentence's audio given to the encoder whole.
func TestStreamChunksSameBytes(t *testing.T) {
	input := "A first sentence, with a comma. [pause:300ms] And a <|loud|>second<|/loud|> one! A third?"
	for _, name := range encode.DefaultRegistry.Names() {
		t.Run(name, func(t *testing.T) {
			var outs [2]bytes.Buffer
			for i, size := range []int{0, 331} {
				e := &chunky{Fake: enginetest.NewFake(enginetest.FakeOptions{SampleRate: 22050}), size: size}
				req := tts.Request{Voice: "fake", Input: input, Format: encode.Format{Name: name}}
				if _, err := chunkySynth(t, e).Stream(context.Background(), &outs[i], req); err != nil {
					t.Fatal(err)
				}
			}
			if outs[0].Len() == 0 || !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
				t.Errorf("%d bytes from whole sentences, %d from chunks: not the same", outs[0].Len(), outs[1].Len())
			}
		})
	}
}

// panicky panics on its first write.
type panicky struct{}

func (panicky) Write([]byte) (int, error) { panic("the writer broke") }

// A writer's panic reaches Stream's caller, on its goroutine, as it did
// when Stream wrote itself (a server's handler recovers it).
func TestStreamWriterPanicReachesCaller(t *testing.T) {
	e := &chunky{Fake: enginetest.NewFake(enginetest.FakeOptions{}), size: 1000}
	defer func() {
		if v := recover(); v != "the writer broke" {
			t.Errorf("recovered %v", v)
		}
	}()
	chunkySynth(t, e).Stream(context.Background(), panicky{}, tts.Request{Voice: "fake", Input: "Words to say.", Format: encode.Format{Name: "pcm"}})
	t.Error("Stream returned")
}
