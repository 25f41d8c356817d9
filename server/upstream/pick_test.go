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
	f := &fleet{}
	f.workers.Store(&[]*worker{busy, idle, down, other})
	for range 4 {
		if w := f.pick("en-us", nil); w != idle {
			t.Fatalf("picked %v, want idle", w.url)
		}
	}
	if w := f.pick("en-us", []*worker{idle}); w != busy {
		t.Fatalf("with idle tried: %v", w)
	}
	if w := f.pick("fr", nil); w != nil {
		t.Fatalf("a voice no worker has: %v", w.url)
	}
	idle.outstanding.Store(5)
	seen := map[*worker]bool{}
	for range 4 {
		seen[f.pick("en-us", nil)] = true
	}
	if !seen[busy] || !seen[idle] || len(seen) != 2 {
		t.Errorf("ties went to %v", seen)
	}
}

// TestPickPrefersWarm: among workers with the voice, one that spoke with
// it lately (so has it loaded, most likely) is picked unless it has
// coldCost or more requests outstanding beyond another's.
func TestPickPrefersWarm(t *testing.T) {
	cold := &worker{url: "cold", voices: map[string]engine.Voice{"v": {Name: "v"}}}
	warm := &worker{url: "warm", voices: map[string]engine.Voice{"v": {Name: "v"}}}
	cold.healthy.Store(true)
	warm.healthy.Store(true)
	warm.spokeWith("v")
	f := &fleet{}
	f.workers.Store(&[]*worker{cold, warm})
	for outstanding := range int64(coldCost) {
		warm.outstanding.Store(outstanding)
		for range 4 {
			if w := f.pick("v", nil); w != warm {
				t.Fatalf("warm with %d outstanding against 0: picked %s", outstanding, w.url)
			}
		}
	}
	warm.outstanding.Store(coldCost + 1)
	if w := f.pick("v", nil); w != cold {
		t.Errorf("warm with %d outstanding against 0: picked %s, want cold", coldCost+1, w.url)
	}
}
