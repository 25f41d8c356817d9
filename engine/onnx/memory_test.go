package onnx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/engine"
)

// fakeResident is another engine's thing in a shared Memory: size bytes,
// last used at stamp, unloaded by MakeRoom.
type fakeResident struct {
	mem      *Memory
	size     int64
	stamp    uint64
	loaded   bool
	unloaded int
}

func (f *fakeResident) use() {
	if !f.loaded {
		f.loaded = true
		f.mem.Add(f.size)
	}
	f.stamp = f.mem.Tick()
	f.mem.MakeRoom()
}

func (f *fakeResident) Oldest() (uint64, bool) { return f.stamp, f.loaded }

func (f *fakeResident) Unload(stamp uint64) bool {
	if !f.loaded || stamp != f.stamp {
		return false
	}
	f.loaded = false
	f.unloaded++
	f.mem.Add(-f.size)
	return true
}

// TestSharedMemory: in a Memory one voice's model fills, another
// engine's use unloads the model, which was used before it (least
// recently used, whichever engine holds it), and the voice's next use
// unloads the other engine's thing in turn; the sum never stays past the
// budget.
func TestSharedMemory(t *testing.T) {
	dir := voiceDir(t, 1)
	st, _ := os.Stat(filepath.Join(dir, "v0.onnx"))
	mem := NewMemory(st.Size())
	e := load(t, Options{VoicesDir: dir, Memory: mem})
	other := &fakeResident{mem: mem, size: 1}
	mem.Join(other)
	if err := say(e, "v0", "Hi."); err != nil {
		t.Fatal(err)
	}
	other.use()
	if loaded(e, "v0") || !other.loaded || mem.Used() != 1 {
		t.Fatalf("the other engine's use: v0 loaded %v, other %v, %d bytes counted; want v0 unloaded", loaded(e, "v0"), other.loaded, mem.Used())
	}
	if err := say(e, "v0", "Hi."); err != nil {
		t.Fatal(err)
	}
	if !loaded(e, "v0") || other.loaded || mem.Used() != st.Size() {
		t.Errorf("v0 again: v0 loaded %v, other %v, %d bytes counted", loaded(e, "v0"), other.loaded, mem.Used())
	}
	if r := e.Residency(); r.Evictions != 1 || r.Budget != st.Size() {
		t.Errorf("residency %+v, want 1 eviction and the shared budget", r)
	}
}

// TestLoadGate: a load asks the context's engine.LoadGate, whose error
// refuses it; a loaded voice asks nothing.
func TestLoadGate(t *testing.T) {
	e := load(t, Options{VoicesDir: voiceDir(t, 1)})
	refused := errors.New("no more loads")
	asked := 0
	ctx := engine.WithLoadGate(context.Background(), func(string) error { asked++; return refused })
	if _, _, err := e.HoldVoice(ctx, "v0"); !errors.Is(err, refused) || loaded(e, "v0") {
		t.Fatalf("refused load: %v, loaded %v", err, loaded(e, "v0"))
	}
	if err := say(e, "v0", "Hi."); err != nil {
		t.Fatal(err)
	}
	release, _, err := e.HoldVoice(ctx, "v0")
	if err != nil || asked != 1 {
		t.Fatalf("loaded voice: %v, gate asked %d times", err, asked)
	}
	release()
}
