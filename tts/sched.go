package tts

import (
	"context"
	"slices"
	"sync"
)

// scheduler hands out a fixed number of render slots fairly between
// accounts. Each account's waiters queue in arrival order; when a slot is
// free it goes to the waiting account that holds the fewest slots, and
// among those to the one served longest ago (round robin). So one
// account's many long requests cannot starve another's short one: that
// one gets the next slot that frees.
type scheduler struct {
	mu    sync.Mutex
	free  int
	held  map[string]int       // slots held, by account
	queue map[string][]*waiter // waiters, by account
	turn  []string             // accounts with waiters, least recently served first
}

type waiter struct {
	account string
	ready   chan struct{} // closed when the slot is granted
}

func newScheduler(slots int) *scheduler {
	return &scheduler{free: slots, held: map[string]int{}, queue: map[string][]*waiter{}}
}

// acquire waits for a slot for account, or for ctx. waiting, if not nil,
// is called when the slot is not free at once. Every successful acquire
// must be followed by release.
func (s *scheduler) acquire(ctx context.Context, account string, waiting func()) error {
	w := &waiter{account: account, ready: make(chan struct{})}
	s.mu.Lock()
	if len(s.queue[account]) == 0 {
		s.turn = append(s.turn, account)
	}
	s.queue[account] = append(s.queue[account], w)
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
		s.put(account)
	default:
		s.remove(w)
	}
	return ctx.Err()
}

// release frees a slot account holds and grants it to the next waiter.
func (s *scheduler) release(account string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(account)
}

// put returns a slot of account's and grants it. s.mu is held.
func (s *scheduler) put(account string) {
	s.held[account]--
	if s.held[account] == 0 {
		delete(s.held, account)
	}
	s.free++
	s.grant()
}

// grant hands free slots to waiters. s.mu is held.
func (s *scheduler) grant() {
	for s.free > 0 && len(s.turn) > 0 {
		best := 0
		for i, a := range s.turn {
			if s.held[a] < s.held[s.turn[best]] {
				best = i
			}
		}
		a := s.turn[best]
		q := s.queue[a]
		w := q[0]
		s.queue[a] = q[1:]
		s.turn = slices.Delete(s.turn, best, best+1)
		if len(s.queue[a]) > 0 {
			s.turn = append(s.turn, a) // served: to the back of the turn
		} else {
			delete(s.queue, a)
		}
		s.free--
		s.held[a]++
		close(w.ready)
	}
}

// remove drops a waiter that gave up. s.mu is held.
func (s *scheduler) remove(w *waiter) {
	q := s.queue[w.account]
	i := slices.Index(q, w)
	if i < 0 {
		return
	}
	q = slices.Delete(q, i, i+1)
	if len(q) > 0 {
		s.queue[w.account] = q
		return
	}
	delete(s.queue, w.account)
	s.turn = slices.DeleteFunc(s.turn, func(a string) bool { return a == w.account })
}
