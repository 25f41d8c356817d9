package onnx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/testkit/wait"
)

// loadCounter counts the model loads of an engine by voice (Options.OnLoad).
type loadCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *loadCounter) onLoad(name string, _ time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name]++
}

func (c *loadCounter) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

// loaded reports whether the model NAME has a session.
func loaded(e *Engine, name string) bool {
	e.mu.RLock()
	m := e.models[name]
	e.mu.RUnlock()
	e.res.Lock()
	defer e.res.Unlock()
	return m != nil && m.session != nil
}

func say(e *Engine, voice, text string) error {
	return e.Synthesize(context.Background(), engine.Request{Voice: voice, Text: text}, func(engine.Chunk) error { return nil })
}

// voiceDir makes a directory of n copies of the tone-low voice, v0 … vN-1.
func voiceDir(t *testing.T, n int) string {
	dir := t.TempDir()
	for i := range n {
		copyVoice(t, dir, toneLow, fmt.Sprintf("v%d", i))
	}
	return dir
}

// TestLoadReadsNoModel: Load lists the voices without loading a model; the
// first request loads its voice's model, once.
func TestLoadReadsNoModel(t *testing.T) {
	var loads loadCounter
	e := load(t, Options{VoicesDir: voiceDir(t, 5), OnLoad: loads.onLoad})
	if list, _ := e.Voices(context.Background()); len(list) != 5 {
		t.Fatalf("voices %v, want 5", list)
	}
	if r := e.Residency(); r.Models != 0 || r.Loads != 0 {
		t.Fatalf("after Load: %+v, want nothing loaded", r)
	}
	for range 3 {
		if err := say(e, "v2", "Hi."); err != nil {
			t.Fatal(err)
		}
	}
	r := e.Residency()
	if r.Models != 1 || r.Loads != 1 || loads.get("v2") != 1 || r.Bytes != e.models["v2"].size || r.LoadTime <= 0 {
		t.Errorf("after three requests to v2: %+v, loads %v", r, loads.n)
	}
}

// TestEvictionSparesVoiceInUse: a long synthesis on v0 runs while v1 … v7
// are loaded one after another past a budget that holds two models: v0
// is never unloaded and finishes, and the others are evicted, least
// recently used first.
func TestEvictionSparesVoiceInUse(t *testing.T) {
	var loads loadCounter
	dir := voiceDir(t, 8)
	st, _ := os.Stat(filepath.Join(dir, "v0.onnx"))
	e := load(t, Options{VoicesDir: dir, MemoryBudget: 2 * st.Size(), OnLoad: loads.onLoad})

	firstChunk, goOn := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	chunks := 0
	go func() {
		long := strings.Repeat("A sentence of the long text. ", 6)
		done <- e.Synthesize(context.Background(), engine.Request{Voice: "v0", Text: long}, func(engine.Chunk) error {
			if chunks++; chunks == 1 {
				close(firstChunk)
				<-goOn
			}
			return nil
		})
	}()
	<-firstChunk
	for i := 1; i < 8; i++ {
		v := fmt.Sprintf("v%d", i)
		if err := say(e, v, "Hi."); err != nil {
			t.Fatal(err)
		}
		if !loaded(e, "v0") {
			t.Fatalf("v0 was unloaded while speaking, after %s loaded", v)
		}
	}
	if r := e.Residency(); r.Models != 2 || r.Evictions != 6 {
		t.Errorf("while v0 speaks: %+v, want v0 and v7 loaded, 6 evictions", r)
	}
	close(goOn)
	if err := <-done; err != nil || chunks != 6 {
		t.Fatalf("the long synthesis on v0: %v after %d chunks, want 6", err, chunks)
	}
	if n := loads.get("v0"); n != 1 {
		t.Errorf("v0 loaded %d times", n)
	}
	// Its use ended last, so when v6 comes back, v7 is the one to go.
	if err := say(e, "v6", "Hi."); err != nil {
		t.Fatal(err)
	}
	if !loaded(e, "v0") || loaded(e, "v7") || !loaded(e, "v6") {
		t.Errorf("after v0 finished and v6 spoke: v0 %v, v6 %v, v7 %v; want v0 and v6 loaded", loaded(e, "v0"), loaded(e, "v6"), loaded(e, "v7"))
	}
}

// TestOneLoadForConcurrentFirstRequests: 8 requests that come for a cold
// voice while it loads wait for that one load.
func TestOneLoadForConcurrentFirstRequests(t *testing.T) {
	var loads loadCounter
	e := load(t, Options{VoicesDir: voiceDir(t, 1), OnLoad: loads.onLoad})
	m := e.models["v0"]
	// The first load waits until the 7 other requests wait for it.
	e.beforeLoad = func(*model) {
		wait.For(30*time.Second, func() bool {
			e.res.Lock()
			defer e.res.Unlock()
			return m.waiters == 7
		})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() { errs <- say(e, "v0", "Hi.") })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := loads.get("v0"); n != 1 {
		t.Errorf("%d loads for 8 concurrent first requests, want 1", n)
	}
}

// TestHoldVoice: a held voice reports its load time once, survives a
// rescan that removes it until released, and is then unloaded.
func TestHoldVoice(t *testing.T) {
	dir := voiceDir(t, 2)
	e := load(t, Options{VoicesDir: dir})
	ctx := context.Background()
	release, took, err := e.HoldVoice(ctx, "v0")
	if err != nil || took <= 0 {
		t.Fatalf("HoldVoice of a cold voice: took %v, err %v", took, err)
	}
	release2, took2, err := e.HoldVoice(ctx, "v0")
	if err != nil || took2 != 0 {
		t.Fatalf("HoldVoice of a loaded voice: took %v, err %v", took2, err)
	}
	release2()
	for _, ext := range []string{".onnx", ".onnx.json"} {
		os.Remove(filepath.Join(dir, "v0"+ext))
	}
	if changed, err := e.Rescan(ctx); !changed || err != nil {
		t.Fatalf("Rescan: %v %v", changed, err)
	}
	if list, _ := e.Voices(ctx); len(list) != 1 || list[0].Name != "v1" {
		t.Errorf("voices after removing v0: %v", list)
	}
	if err := say(e, "v0", "Still here."); err != nil {
		t.Errorf("the held, removed voice: %v", err)
	}
	if r := e.Residency(); r.Models != 1 {
		t.Errorf("while held: %+v", r)
	}
	release()
	if err := say(e, "v0", "Gone."); !errors.Is(err, engine.ErrUnknownVoice) {
		t.Errorf("the removed voice once released: %v, want ErrUnknownVoice", err)
	}
	if r := e.Residency(); r.Models != 0 || r.Bytes != 0 {
		t.Errorf("after release: %+v, want nothing loaded", r)
	}
	if _, _, err := e.HoldVoice(ctx, "nobody"); !errors.Is(err, engine.ErrUnknownVoice) {
		t.Errorf("HoldVoice of an unknown voice: %v", err)
	}
}

// TestStrictRefusesBrokenModel: a model whose file is whole but names an
// operator ONNX Runtime lacks passes Load's reading of the catalog; its
// requests fail, naming it, and a good voice beside it serves. A Strict
// Load loads every model and refuses it.
func TestStrictRefusesBrokenModel(t *testing.T) {
	dir := voiceDir(t, 1)
	model, _ := os.ReadFile(filepath.Join(voicesDir, toneLow+".onnx"))
	broken := bytes.Replace(model, []byte("Floor"), []byte("Flxxr"), 1)
	if bytes.Equal(broken, model) {
		t.Fatal("the fixture has no Floor operator to break")
	}
	config, _ := os.ReadFile(filepath.Join(voicesDir, toneLow+".onnx.json"))
	os.WriteFile(filepath.Join(dir, "broken.onnx"), broken, 0o644)
	os.WriteFile(filepath.Join(dir, "broken.onnx.json"), config, 0o644)

	e := load(t, Options{VoicesDir: dir})
	if list, _ := e.Voices(context.Background()); len(list) != 2 {
		t.Errorf("voices %v, want broken and v0", list)
	}
	for range 2 { // the reason is kept: the second request fails alike
		if err := say(e, "broken", "Hi."); err == nil || !strings.Contains(err.Error(), "broken") {
			t.Errorf("speaking with the broken voice: %v", err)
		}
	}
	if err := say(e, "v0", "Hi."); err != nil {
		t.Error(err)
	}
	if r := e.Residency(); r.LoadErrors != 1 {
		t.Errorf("%+v, want one failed load", r)
	}

	_, err := Load(context.Background(), Options{LibraryPath: testLibrary(t), Phonemizer: phonemizer(t), VoicesDir: dir, Strict: true})
	if err == nil || !strings.Contains(err.Error(), "broken") || !strings.Contains(err.Error(), "Flxxr") {
		t.Errorf("Strict Load: %v, want the broken model refused", err)
	}
	e2, err := Load(context.Background(), Options{LibraryPath: testLibrary(t), Phonemizer: phonemizer(t), Models: []string{filepath.Join(dir, "v0.onnx")}, Strict: true})
	if err != nil {
		t.Fatalf("Strict Load of a good voice: %v", err)
	}
	defer e2.Close()
	if r := e2.Residency(); r.Models != 0 {
		t.Errorf("a Strict Load keeps %d models loaded, want 0", r.Models)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"512MB": 512e6, "2GB": 2e9, "1.5GiB": 3 << 29, "300000000": 3e8, "64 mib": 64 << 20, "0": 0, "10k": 1e4,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MB", "-5MB", "12XB", "1e30GB", "5 M B"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}
