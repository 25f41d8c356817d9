package server

import (
	"strconv"
	"testing"
	"time"
)

func TestThrottleRefills(t *testing.T) {
	now := time.Unix(1700000000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	k := throttleKey{"account a", rate{burst: 3, every: 10 * time.Second}}
	for range 3 {
		if w := th.wait(k); w != 0 {
			t.Fatalf("waits %v with attempts left", w)
		}
		th.fail(k)
	}
	if w := th.wait(k); w != 10*time.Second {
		t.Fatalf("empty bucket waits %v, want 10s", w)
	}
	now = now.Add(4 * time.Second)
	if w := th.wait(k); w != 6*time.Second {
		t.Fatalf("after 4 s waits %v, want 6s", w)
	}
	now = now.Add(6 * time.Second)
	if w := th.wait(k); w != 0 {
		t.Fatalf("refilled bucket waits %v", w)
	}
	// Another key is not affected.
	if w := th.wait(throttleKey{"account b", k.rate}); w != 0 {
		t.Fatalf("other key waits %v", w)
	}
}

func TestThrottleBounded(t *testing.T) {
	now := time.Unix(1700000000, 0)
	th := newThrottle()
	th.now = func() time.Time { return now }
	r := rate{burst: 2, every: time.Second}
	for i := range maxBuckets + 10 {
		th.fail(throttleKey{"address " + strconv.Itoa(i), r})
	}
	if n := len(th.buckets); n > maxBuckets {
		t.Fatalf("%d buckets, more than %d", n, maxBuckets)
	}
	// Refilled buckets are the first to go: after a minute all of those
	// are full, and the next prune keeps only the new ones.
	now = now.Add(time.Minute)
	for i := 0; len(th.buckets) < maxBuckets; i++ {
		th.fail(throttleKey{"late " + strconv.Itoa(i), r})
	}
	th.fail(throttleKey{"last", r})
	for key := range th.buckets {
		if key[:len("late")] != "late" && key != "last" {
			t.Fatalf("refilled bucket %q kept over new ones", key)
		}
	}
}
