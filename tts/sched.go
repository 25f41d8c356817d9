package tts

import (
	"context"
	"slices"
	"sync"
)

// scheduler hands out a fixed number of render slots fairly between
// accounts. Each account's waiters queue in arrival order; when a slot is
// free it goes to the waiting account that holds the fewest slots, among
// those to the one served longest ago (round robin), then to the earliest
// waiter. So one account's many long requests cannot starve another's
// short one: that one gets the next slot that frees.
type scheduler struct {
	mu       sync.Mutex
	free     int // slots not held; below 0 after resize took held ones away
	total    int
	seq      uint64 // counts arrivals and grants
	accounts map[string]*account
}

// account is what the scheduler knows of one account with slots or
// waiters.
type account struct {
	held    int
	waiting []*waiter
	served  uint64 // seq of the last grant, 0 for none
}

type waiter struct {
	seq   uint64        // arrival
	ready chan struct{} // closed when the slot is granted
}

func newScheduler(slots int) *scheduler {
	return &scheduler{free: slots, total: slots, accounts: map[string]*account{}}
}

// resize makes the number of slots n. Slots held beyond n are not taken
// back: no slot is granted until enough are released.
func (s *scheduler) resize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free += n - s.total
	s.total = n
	s.grant()
}

// acquire waits for a slot for name, or for ctx. waiting, if not nil, is
// called when the slot is not free at once. Every successful acquire must
// be followed by release.
func (s *scheduler) acquire(ctx context.Context, name string, waiting func()) error {
	s.mu.Lock()
	a := s.accounts[name]
	if a == nil {
		a = &account{}
		s.accounts[name] = a
	}
	s.seq++
	w := &waiter{seq: s.seq, ready: make(chan struct{})}
	a.waiting = append(a.waiting, w)
	s.grant()
	s.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	default:
	}
	if waiting != nil {
		waiting()
	}
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-w.ready: // granted meanwhile: give it back
		s.put(name)
	default:
		a.waiting = slices.DeleteFunc(a.waiting, func(x *waiter) bool { return x == w })
		s.forget(name)
	}
	return ctx.Err()
}

// tryAcquire takes a slot for name without waiting: only when one is
// free, nobody waits for one (work that asked first goes first), and name
// holds fewer than most (0: any number). It reports whether it took one;
// a slot it took is released as acquire's is.
func (s *scheduler) tryAcquire(name string, most int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.free <= 0 {
		return false
	}
	for _, a := range s.accounts {
		if len(a.waiting) > 0 {
			return false
		}
	}
	a := s.accounts[name]
	if a == nil {
		a = &account{}
	}
	if most > 0 && a.held >= most {
		return false
	}
	s.accounts[name] = a
	s.seq++
	a.served = s.seq
	a.held++
	s.free--
	return true
}

// size returns the number of slots.
func (s *scheduler) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// load returns the slots held and the pieces waiting for one.
func (s *scheduler) load() (held, waiting int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.accounts {
		held += a.held
		waiting += len(a.waiting)
	}
	return held, waiting
}

// release frees a slot name holds and grants it to the next waiter.
func (s *scheduler) release(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(name)
}

// put returns a slot of name's and grants it. s.mu is held.
func (s *scheduler) put(name string) {
	s.accounts[name].held--
	s.free++
	s.forget(name)
	s.grant()
}

// forget drops an account that holds and awaits nothing. s.mu is held.
func (s *scheduler) forget(name string) {
	if a := s.accounts[name]; a.held == 0 && len(a.waiting) == 0 {
		delete(s.accounts, name)
	}
}

// grant hands free slots to waiters. s.mu is held.
func (s *scheduler) grant() {
	for s.free > 0 {
		var best *account
		for _, a := range s.accounts {
			if len(a.waiting) > 0 && (best == nil || before(a, best)) {
				best = a
			}
		}
		if best == nil {
			return
		}
		w := best.waiting[0]
		best.waiting = best.waiting[1:]
		s.seq++
		best.served = s.seq
		best.held++
		s.free--
		close(w.ready)
	}
}

// before reports whether a's next waiter goes before b's.
func before(a, b *account) bool {
	if a.held != b.held {
		return a.held < b.held
	}
	if a.served != b.served {
		return a.served < b.served
	}
	return a.waiting[0].seq < b.waiting[0].seq
}
