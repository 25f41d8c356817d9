package throttle

import (
	"strconv"
	"testing"
	"time"
)

func TestThrottleRefills(t *testing.T) {
	now := time.Unix(1700000000, 0)
	th := New()
	th.Now = func() time.Time { return now }
	k := Key{"account a", Rate{Burst: 3, Every: 10 * time.Second}}
	for range 3 {
		if w := th.Reserve(k); w != 0 {
			t.Fatalf("waits %v with attempts left", w)
		}
	}
	if w := th.Reserve(k); w != 10*time.Second {
		t.Fatalf("empty bucket waits %v, want 10s", w)
	}
	now = now.Add(4 * time.Second)
	if w := th.Reserve(k); w != 6*time.Second {
		t.Fatalf("after 4 s waits %v, want 6s", w)
	}
	now = now.Add(6 * time.Second)
	if w := th.Reserve(k); w != 0 {
		t.Fatalf("refilled bucket waits %v", w)
	}
	// Another key is not affected.
	if w := th.Reserve(Key{"account b", k.Rate}); w != 0 {
		t.Fatalf("other key waits %v", w)
	}
}

func TestThrottleBounded(t *testing.T) {
	now := time.Unix(1700000000, 0)
	th := New()
	th.Now = func() time.Time { return now }
	r := Rate{Burst: 2, Every: time.Second}
	for i := range MaxBuckets + 10 {
		th.Reserve(Key{"address " + strconv.Itoa(i), r})
	}
	if n := len(th.buckets); n > MaxBuckets {
		t.Fatalf("%d buckets, more than %d", n, MaxBuckets)
	}
	// Refilled buckets are the first to go: after a minute all of those
	// are full, and the next prune keeps only the new ones.
	now = now.Add(time.Minute)
	for i := 0; len(th.buckets) < MaxBuckets; i++ {
		th.Reserve(Key{"late " + strconv.Itoa(i), r})
	}
	th.Reserve(Key{"last", r})
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
	th := New()
	th.Now = func() time.Time { return now }
	k := Key{"account a", Rate{Burst: 10, Every: 30 * time.Second}}
	taken := 0
	for range 10000 {
		if th.Reserve(k) == 0 {
			taken++
		}
	}
	if taken != 10 {
		t.Errorf("%d of 10000 attempts taken, want the burst of 10", taken)
	}
	if w := th.Reserve(k); w > 30*time.Second {
		t.Errorf("after 10000 attempts the wait is %v, more than one refill", w)
	}
	th.Refund(k)
	if w := th.Reserve(k); w != 0 {
		t.Errorf("a refunded attempt waits %v", w)
	}
	th.Refund(k)
	th.Refund(k)
	now = now.Add(time.Hour)
	if lvl := th.level(k, now); lvl != 10 {
		t.Errorf("refunds filled the bucket past its burst: %v", lvl)
	}
}
