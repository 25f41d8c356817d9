package admin

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
)

// TestHashQueueBounded: past maxHashQueue attempts waiting for a hashing
// slot, an attempt is refused with 429 at once instead of queueing.
func TestHashQueueBounded(t *testing.T) {
	s := &signin{hashing: make(chan struct{}, maxHashing)}
	for range maxHashing {
		s.hashing <- struct{}{} // every slot busy
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var waiting sync.WaitGroup
	for range maxHashQueue {
		waiting.Go(func() { s.acquireHashing(httptest.NewRecorder(), ctx) })
	}
	for s.hashWaiting.Load() < maxHashQueue {
		runtime.Gosched()
	}
	w := httptest.NewRecorder()
	if werr := s.acquireHashing(w, ctx); werr == nil || werr.Status != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Fatalf("attempt past the queue: %+v", werr)
	}
	cancel()
	waiting.Wait()
	if n := s.hashWaiting.Load(); n != 0 {
		t.Errorf("%d still counted as waiting", n)
	}
}
