package catalog

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/vocab"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/tts"
)

// loadCounter is a cloning engine (at the engine.Cloner seam) that
// remembers what is loaded; engine/pocket's own checks are tested with
// the real engine (server's TestSamplesFromGateway).
type loadCounter struct {
	*enginetest.Fake
	mu     sync.Mutex
	loaded map[string]bool
}

func (l *loadCounter) CloneModels() []string { return []string{"m"} }
func (l *loadCounter) CloneVoice(context.Context, engine.CloneRequest) ([]byte, error) {
	return nil, engine.ErrRecording
}

func (l *loadCounter) LoadClone(name string, data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.loaded[name] = true
	return nil
}

func (l *loadCounter) UnloadClone(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.loaded, name)
}

func (l *loadCounter) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.loaded)
}

// TestSamplesHeldAndDropped: a worker holds at most maxSamples samples
// that no request speaks, dropping the least recently used from its
// engine and catalog; samples in use stay; one the catalog lost is asked
// for again.
func TestSamplesHeldAndDropped(t *testing.T) {
	cl := &loadCounter{Fake: enginetest.NewFake(enginetest.FakeOptions{}), loaded: map[string]bool{}}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"clones": cl}})
	if err != nil {
		t.Fatal(err)
	}
	c := &Catalog{Config: Config{Synth: synth}, Voices: synth.Voices()}
	sample := func(i int) request {
		s := []byte(fmt.Sprint("sample ", i))
		return request{Voice: vocab.SampleVoice(s), VoiceSample: s}
	}
	hold := func(sp request) func() {
		t.Helper()
		release, werr := holdRequest(c, "gw", sp)
		if werr != nil {
			t.Fatalf("holding %s: %v", sp.Voice, werr)
		}
		return release
	}
	inUse := hold(sample(0)) // held throughout
	for i := 1; i <= maxSamples+10; i++ {
		hold(sample(i))()
		if i > 2 {
			hold(sample(1))() // used again and again: stays
		}
	}
	if n := cl.count(); n != maxSamples {
		t.Errorf("%d samples loaded, want %d", n, maxSamples)
	}
	bare := func(i int) request { sp := sample(i); sp.VoiceSample = nil; return sp }
	if _, werr := holdRequest(c, "gw", bare(0)); werr != nil {
		t.Errorf("the sample in use was dropped: %v", werr)
	}
	if release, werr := holdRequest(c, "gw", bare(1)); werr != nil {
		t.Errorf("a sample used often was dropped: %v", werr)
	} else {
		release()
	}
	if _, werr := holdRequest(c, "gw", bare(2)); werr == nil || werr.Code != fault.CodeSampleNeeded {
		t.Errorf("the least recently used sample: %v, want it dropped", werr)
	}
	if c.Voices.Has("gw", sample(2).Voice) {
		t.Error("a dropped sample stays in the catalog")
	}
	last := bare(maxSamples + 10)
	if _, werr := holdRequest(c, "gw", last); werr != nil {
		t.Errorf("the last sample: %v", werr)
	}
	if _, werr := holdRequest(c, "other", last); werr == nil || werr.Code != fault.CodeSampleNeeded {
		t.Errorf("another account's gateway naming the sample: %v, want it asked for", werr)
	}
	// A sample the catalog lost is asked for.
	c.Voices.Remove("gw", last.Voice)
	if _, werr := holdRequest(c, "gw", last); werr == nil || werr.Code != fault.CodeSampleNeeded {
		t.Errorf("a sample the catalog lost: %v, want it asked for", werr)
	}
	inUse()
}

// TestResyncKeepsSamples: bringing the catalog in line with the store
// (as a server does when it starts, or after missed changes) leaves the
// samples gateways sent, which the store never holds.
func TestResyncKeepsSamples(t *testing.T) {
	cl := &loadCounter{Fake: enginetest.NewFake(enginetest.FakeOptions{}), loaded: map[string]bool{}}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"clones": cl}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "voxkit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.CreateAccount(t.Context(), "gw"); err != nil {
		t.Fatal(err)
	}
	c := &Catalog{Config: Config{Synth: synth, Store: st}, Voices: synth.Voices()}
	sp := request{Voice: vocab.SampleVoice([]byte("a sample")), VoiceSample: []byte("a sample")}
	release, werr := holdRequest(c, "gw", sp)
	if werr != nil {
		t.Fatal(werr)
	}
	defer release()
	if err := c.resyncVoices(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !c.Voices.Has("gw", sp.Voice) || cl.count() != 1 {
		t.Errorf("after a resync: in the catalog %v, loaded %d", c.Voices.Has("gw", sp.Voice), cl.count())
	}
}

// request is the part of a speech request HoldSample takes.
type request struct {
	Voice       string
	VoiceSample []byte
}

func holdRequest(c *Catalog, account string, sp request) (func(), *fault.Error) {
	return c.HoldSample(account, store.ScopeGateway, sp.Voice, sp.VoiceSample)
}
