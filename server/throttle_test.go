package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestThrottleRefills(t *testing.T) {
	now := time.Unix(1700000000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	k := throttleKey{"account a", rate{burst: 3, every: 10 * time.Second}}
	for range 3 {
		if w := th.reserve(k); w != 0 {
			t.Fatalf("waits %v with attempts left", w)
		}
	}
	if w := th.reserve(k); w != 10*time.Second {
		t.Fatalf("empty bucket waits %v, want 10s", w)
	}
	now = now.Add(4 * time.Second)
	if w := th.reserve(k); w != 6*time.Second {
		t.Fatalf("after 4 s waits %v, want 6s", w)
	}
	now = now.Add(6 * time.Second)
	if w := th.reserve(k); w != 0 {
		t.Fatalf("refilled bucket waits %v", w)
	}
	// Another key is not affected.
	if w := th.reserve(throttleKey{"account b", k.rate}); w != 0 {
		t.Fatalf("other key waits %v", w)
	}
}

func TestThrottleBounded(t *testing.T) {
	now := time.Unix(1700000000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	r := rate{burst: 2, every: time.Second}
	for i := range maxBuckets + 10 {
		th.reserve(throttleKey{"address " + strconv.Itoa(i), r})
	}
	if n := len(th.buckets); n > maxBuckets {
		t.Fatalf("%d buckets, more than %d", n, maxBuckets)
	}
	// Refilled buckets are the first to go: after a minute all of those
	// are full, and the next prune keeps only the new ones.
	now = now.Add(time.Minute)
	for i := 0; len(th.buckets) < maxBuckets; i++ {
		th.reserve(throttleKey{"late " + strconv.Itoa(i), r})
	}
	th.reserve(throttleKey{"last", r})
	for key := range th.buckets {
		if key[:len("late")] != "late" && key != "last" {
			t.Fatalf("refilled bucket %q kept over new ones", key)
		}
	}
}

// TestThrottleNeverBelowEmpty: attempts refused for an empty bucket take
// nothing from it, so however many there are the wait stays within one
// refill, and a refund gives an attempt back.
func TestThrottleNeverBelowEmpty(t *testing.T) {
	now := time.Unix(1700000000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	k := throttleKey{"account a", rate{burst: 10, every: 30 * time.Second}}
	taken := 0
	for range 10000 {
		if th.reserve(k) == 0 {
			taken++
		}
	}
	if taken != 10 {
		t.Errorf("%d of 10000 attempts taken, want the burst of 10", taken)
	}
	if w := th.reserve(k); w > 30*time.Second {
		t.Errorf("after 10000 attempts the wait is %v, more than one refill", w)
	}
	th.refund(k)
	if w := th.reserve(k); w != 0 {
		t.Errorf("a refunded attempt waits %v", w)
	}
	th.refund(k)
	th.refund(k)
	now = now.Add(time.Hour)
	if lvl := th.level(k, now); lvl != 10 {
		t.Errorf("refunds filled the bucket past its burst: %v", lvl)
	}
}

// TestHashQueueBounded: past maxHashQueue attempts waiting for a hashing
// slot, an attempt is refused with 429 at once instead of queueing.
func TestHashQueueBounded(t *testing.T) {
	s := &Server{hashing: make(chan struct{}, maxHashing)}
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
