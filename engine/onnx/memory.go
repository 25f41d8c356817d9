package onnx

import (
	"sync"
	"sync/atomic"
)

// Memory is a memory budget that several engines share (Options.Memory,
// and engine/pocket's clones): each counts in it the bytes of what it
// keeps loaded, and stamps each thing with Tick when a use of it ends.
// When a load or the end of a use finds the sum past the limit, MakeRoom
// unloads the least recently used thing that nothing is using, whichever
// engine holds it, until the sum fits or nothing is left to unload. So
// the sum stays within the limit but for what is in use. Its methods are
// safe for concurrent use; a nil *Memory is no budget, and counts
// nothing.
type Memory struct {
	limit int64
	used  atomic.Int64
	clock atomic.Uint64

	mu        sync.Mutex // one MakeRoom at a time
	residents []Resident
}

// Resident is what an engine sharing a Memory can unload.
type Resident interface {
	// Oldest returns the stamp (Memory.Tick) of the engine's least
	// recently used loaded thing that nothing is using; ok is false when
	// there is none.
	Oldest() (stamp uint64, ok bool)
	// Unload unloads the thing of that stamp, if it is still loaded and
	// unused, and subtracts its bytes (Add); it reports whether it did.
	Unload(stamp uint64) bool
}

// NewMemory returns a budget of limit bytes; 0 or less means no bound
// (what is loaded is still counted).
func NewMemory(limit int64) *Memory { return &Memory{limit: max(limit, 0)} }

// Limit is the budget in bytes, 0 for none.
func (m *Memory) Limit() int64 {
	if m == nil {
		return 0
	}
	return m.limit
}

// Used is the bytes counted loaded now, by every engine sharing m.
func (m *Memory) Used() int64 {
	if m == nil {
		return 0
	}
	return m.used.Load()
}

// Add counts n more bytes loaded (less, when n is negative).
func (m *Memory) Add(n int64) {
	if m != nil {
		m.used.Add(n)
	}
}

// Over reports whether what is loaded passes the budget.
func (m *Memory) Over() bool { return m != nil && m.limit > 0 && m.used.Load() > m.limit }

// Tick returns a new stamp, later than every one before: what an engine
// marks a thing with when a use of it ends.
func (m *Memory) Tick() uint64 {
	if m == nil {
		return 0
	}
	return m.clock.Add(1)
}

// Join makes r's things candidates for MakeRoom.
func (m *Memory) Join(r Resident) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.residents = append(m.residents, r)
}

// Leave takes r out of MakeRoom's candidates (an engine closing).
func (m *Memory) Leave(r Resident) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, x := range m.residents {
		if x == r {
			m.residents = append(m.residents[:i], m.residents[i+1:]...)
			return
		}
	}
}

// MakeRoom unloads the least recently used things that nothing uses, of
// every engine that joined, while the budget is passed. An engine calls
// it without holding its own locks (the Residents take them).
func (m *Memory) MakeRoom() {
	if !m.Over() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// Each round unloads one thing, or finds that one raced away (in use
	// again, or gone); the bound keeps a flood of such races finite.
	for range 1 << 12 {
		if !m.Over() {
			return
		}
		var oldest Resident
		var at uint64
		for _, r := range m.residents {
			if s, ok := r.Oldest(); ok && (oldest == nil || s < at) {
				oldest, at = r, s
			}
		}
		if oldest == nil {
			return // everything loaded is in use
		}
		oldest.Unload(at)
	}
}
