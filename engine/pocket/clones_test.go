package pocket

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/onnx"
)

// cloneData returns a clone of the generated model made from a recording
// at pitch, encoded as CloneVoice makes it (temperature 0: its speech is
// the same every time).
func cloneData(t *testing.T, e *Engine, pitch float64) []byte {
	t.Helper()
	zero := 0.0
	data, err := e.CloneVoice(context.Background(), engine.CloneRequest{Samples: recording(3, pitch), SampleRate: SampleRate, Temperature: &zero})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// samplesOf is what voice says, in full.
func samplesOf(t *testing.T, e *Engine, voice string) []float32 {
	t.Helper()
	var out []float32
	err := e.Synthesize(context.Background(), engine.Request{Voice: voice, Text: "Say it once. Then say it again."}, func(c engine.Chunk) error {
		out = append(out, c.Samples...)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", voice, err)
	}
	return out
}

// fetcher counts the reads of a clone's data.
type fetcher struct {
	data  []byte
	reads atomic.Int32
}

func (f *fetcher) fetch(context.Context) ([]byte, error) {
	f.reads.Add(1)
	return f.data, nil
}

// TestAddCloneLoadsOnDemand: a clone added with AddClone is not read until
// it is spoken, then speaks sample for sample as the same clone loaded
// with LoadClone, and is read once however often it speaks while the
// budget holds it.
func TestAddCloneLoadsOnDemand(t *testing.T) {
	e := load(t, Options{VoicesDir: voicesDir(t), Memory: onnx.NewMemory(1 << 30)})
	data := cloneData(t, e, 180)
	f := &fetcher{data: data}
	e.AddClone("lazy", f.fetch)
	if err := e.LoadClone("eager", data); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.ClonesLoaded(); f.reads.Load() != 0 || n != 0 {
		t.Fatalf("before any speech: %d reads, %d clones loaded", f.reads.Load(), n)
	}
	want := samplesOf(t, e, "eager")
	for range 3 {
		if got := samplesOf(t, e, "lazy"); !slices.Equal(got, want) {
			t.Fatalf("the clone loaded on demand says %d samples, unlike the clone loaded at once (%d)", len(got), len(want))
		}
	}
	if n, bytes := e.ClonesLoaded(); f.reads.Load() != 1 || n != 1 || bytes <= 0 {
		t.Errorf("after three requests: %d reads, %d clones loaded (%d bytes); want 1 read, 1 loaded", f.reads.Load(), n, bytes)
	}
	e.UnloadClone("lazy")
	if n, _ := e.ClonesLoaded(); n != 0 {
		t.Errorf("unloaded, %d clones stay loaded", n)
	}
	if _, err := collect(e, "lazy"); !errors.Is(err, engine.ErrUnknownVoice) {
		t.Errorf("unloaded: %v", err)
	}
}

// TestClonesUnderMemory: under a budget that holds one clone, speaking
// two in turn reads each again each time (the other was forgotten), a
// clone held by a request is never forgotten, and the budget's count
// returns to zero as the clones go.
func TestClonesUnderMemory(t *testing.T) {
	mem := onnx.NewMemory(1) // a byte: no clone fits beside another
	e := load(t, Options{VoicesDir: voicesDir(t), Memory: mem})
	a, b := &fetcher{data: cloneData(t, e, 150)}, &fetcher{data: cloneData(t, e, 210)}
	e.AddClone("a", a.fetch)
	e.AddClone("b", b.fetch)
	for range 3 {
		samplesOf(t, e, "a")
		samplesOf(t, e, "b")
	}
	if a.reads.Load() != 3 || b.reads.Load() != 3 {
		t.Errorf("reads %d and %d, want 3 each: the budget holds no idle clone", a.reads.Load(), b.reads.Load())
	}
	if n, bytes := e.ClonesLoaded(); n != 0 || mem.Used() != 0 || bytes != 0 {
		t.Errorf("idle: %d clones loaded, the budget counts %d bytes; want none", n, mem.Used())
	}
	// Held, a clone stays loaded past the budget, and speaks without a read.
	release, _, err := e.HoldVoice(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	samplesOf(t, e, "b")
	samplesOf(t, e, "a")
	if a.reads.Load() != 4 {
		t.Errorf("a held clone was read %d times, want 4", a.reads.Load())
	}
	release()
	if n, _ := e.ClonesLoaded(); n != 0 || mem.Used() != 0 {
		t.Errorf("released: %d clones loaded, %d bytes counted", n, mem.Used())
	}
}

// TestCloneLoadGate: a load asks the context's gate, whose error refuses
// it; a loaded clone asks nothing.
func TestCloneLoadGate(t *testing.T) {
	e := load(t, Options{VoicesDir: voicesDir(t), Memory: onnx.NewMemory(1 << 30)})
	f := &fetcher{data: cloneData(t, e, 180)}
	e.AddClone("c", f.fetch)
	refused := errors.New("no more loads")
	var asked int
	gate := engine.WithLoadGate(context.Background(), func(voice string) error { asked++; return refused })
	if _, _, err := e.HoldVoice(gate, "c"); !errors.Is(err, refused) || f.reads.Load() != 0 {
		t.Fatalf("gate refused: %v, %d reads", err, f.reads.Load())
	}
	samplesOf(t, e, "c") // loaded without a gate
	release, _, err := e.HoldVoice(gate, "c")
	if err != nil || asked != 1 {
		t.Fatalf("loaded clone: %v, gate asked %d times, want once", err, asked)
	}
	release()
}
