package upstream

import (
	"testing"

	"github.com/voxkit/voxkit/engine"
)

// TestPickLeastOutstanding: the healthy worker with the voice and the
// fewest requests outstanding is picked; ties go round.
func TestPickLeastOutstanding(t *testing.T) {
	mk := func(url string, healthy bool, outstanding int64, voices ...string) *worker {
		w := &worker{url: url, voices: map[string]engine.Voice{}}
		w.healthy.Store(healthy)
		w.outstanding.Store(outstanding)
		for _, v := range voices {
			w.voices[v] = engine.Voice{Name: v}
		}
		return w
	}
	busy := mk("busy", true, 5, "en-us")
	idle := mk("idle", true, 1, "en-us")
	down := mk("down", false, 0, "en-us")
	other := mk("other", true, 0, "de")
	p := &Pool{}
	p.workers.Store(&[]*worker{busy, idle, down, other})
	for range 4 {
		if w := p.pick("en-us", nil); w != idle {
			t.Fatalf("picked %v, want idle", w.url)
		}
	}
	if w := p.pick("en-us", []*worker{idle}); w != busy {
		t.Fatalf("with idle tried: %v", w)
	}
	if w := p.pick("fr", nil); w != nil {
		t.Fatalf("a voice no worker has: %v", w.url)
	}
	idle.outstanding.Store(5)
	seen := map[*worker]bool{}
	for range 4 {
		seen[p.pick("en-us", nil)] = true
	}
	if !seen[busy] || !seen[idle] || len(seen) != 2 {
		t.Errorf("ties went to %v", seen)
	}
}
