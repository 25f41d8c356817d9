package upstream

import (
	"slices"
	"time"

	"github.com/voxkit/voxkit/server/wire"
)

// warmFor is how long after a worker spoke with a voice pick counts the
// voice as loaded there, and coldCost what pick counts a load as: about
// the wait of two requests ahead in its queue (a Piper medium voice loads
// in 0.3 to 1 s, a sentence renders in a fraction of that).
const (
	warmFor  = 10 * time.Minute
	coldCost = 2
)

// pick returns the healthy worker with voice that has the fewest requests
// outstanding, a worker that has not spoken with the voice lately counting
// coldCost more (it may have to load it), leaving out those in tried; when
// no healthy one is left, an unhealthy one (its last failure may have
// passed); nil if there is none.
func (f *fleet) pick(voice string, tried []*worker) *worker {
	return f.pickWith(voice, func(w *worker) bool { return w.has(voice) }, tried)
}

// pickWith is pick among the workers for which has holds (called with
// their mu held).
func (f *fleet) pickWith(voice string, has func(*worker) bool, tried []*worker) *worker {
	if w := f.pickAmong(voice, has, tried, true); w != nil {
		return w
	}
	return f.pickAmong(voice, has, tried, false)
}

// has reports whether w speaks voice: one it lists, or a sample
// (wire.IsSampleVoice) when a model clones there. w.mu is held.
func (w *worker) has(voice string) bool {
	if wire.IsSampleVoice(voice) {
		return len(w.cloneModels) > 0
	}
	_, ok := w.voices[voice]
	return ok
}

func (f *fleet) pickAmong(voice string, has func(*worker) bool, tried []*worker, healthy bool) *worker {
	ws := f.list()
	if len(ws) == 0 {
		return nil
	}
	var best *worker
	var bestCost int64
	// Start the scan at a rotating worker, so that ties go round.
	first := int(f.turn.Add(1) % uint64(len(ws)))
	for i := range ws {
		w := ws[(first+i)%len(ws)]
		if w.healthy.Load() != healthy || slices.Contains(tried, w) {
			continue
		}
		w.mu.Lock()
		speaks := has(w)
		cost := w.outstanding.Load()
		if !w.warm(voice) {
			cost += coldCost
		}
		w.mu.Unlock()
		if speaks && (best == nil || cost < bestCost) {
			best, bestCost = w, cost
		}
	}
	return best
}

// warm reports whether w answered for voice within warmFor. w.mu is held.
func (w *worker) warm(voice string) bool { return time.Since(w.spoke[voice]) <= warmFor }

// spokeWith notes that w answered for voice.
func (w *worker) spokeWith(voice string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spoke == nil {
		w.spoke = map[string]time.Time{}
	}
	w.spoke[voice] = time.Now()
}
