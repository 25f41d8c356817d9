package tts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// gatedCloner is a fake engine that clones: each CloneVoice waits for a
// value on gate and returns it.
type gatedCloner struct {
	*enginetest.Fake
	gate chan []byte
}

func (g gatedCloner) CloneModels() []string { return []string{"m"} }
func (g gatedCloner) CloneVoice(ctx context.Context, _ engine.CloneRequest) ([]byte, error) {
	select {
	case b := <-g.gate:
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
func (g gatedCloner) LoadClone(string, []byte) error { return nil }
func (g gatedCloner) UnloadClone(string)             {}

// TestCloneVoiceTakesASlot: a clone is encoded in a render slot, so with
// one slot a second clone waits for the first, and one without a cloning
// engine is ErrNoCloner.
func TestCloneVoiceTakesASlot(t *testing.T) {
	g := gatedCloner{enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"v"}}), make(chan []byte)}
	cat := new(voices.Catalog)
	if err := cat.AddEngine(context.Background(), "e", g, time.Now()); err != nil {
		t.Fatal(err)
	}
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"e": g}, Voices: cat, MaxParallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []byte, 2)
	for range 2 {
		go func() {
			b, err := s.CloneVoice(context.Background(), "acct", engine.CloneRequest{})
			if err != nil {
				t.Error(err)
			}
			done <- b
		}()
	}
	if !wait.For(10*time.Second, func() bool { l := s.Load(); return l.Busy == 1 && l.Waiting == 1 }) {
		t.Fatalf("two clones with one slot: %+v, want one busy and one waiting", s.Load())
	}
	g.gate <- []byte("a")
	<-done
	if !wait.For(10*time.Second, func() bool { l := s.Load(); return l.Busy == 1 && l.Waiting == 0 }) {
		t.Fatalf("after the first clone: %+v, want the second busy", s.Load())
	}
	g.gate <- []byte("b")
	<-done

	plain, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"e": g.Fake}, Voices: new(voices.Catalog)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.CloneVoice(context.Background(), "acct", engine.CloneRequest{}); !errors.Is(err, tts.ErrNoCloner) {
		t.Errorf("without a cloning engine: %v, want ErrNoCloner", err)
	}
}
