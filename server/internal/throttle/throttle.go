// Package throttle holds token buckets keyed by strings, which bound
// sign-in and sign-up attempts, and Limiter, the per-account request
// limits of a server whose store keeps none.
package throttle

import (
	"context"
	"sync"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

// Rate is a bucket's shape: burst attempts, one more every
// period.
type Rate struct {
	Burst int
	Every time.Duration
}

// Key names a bucket and gives its shape.
type Key struct {
	Name string
	Rate Rate
}

// MaxBuckets bounds the throttle's memory: past it, full buckets (which
// hold nothing worth keeping) are dropped, then arbitrary ones.
const MaxBuckets = 100_000

// Throttle counts attempts per key in token buckets. It is safe for
// concurrent use.
type Throttle struct {
	// Now is the clock; New sets time.Now.
	Now     func() time.Time
	mu      sync.Mutex
	buckets map[string]*bucket
}

// bucket holds the attempts left at a time, and when it is full again.
type bucket struct {
	left     float64
	at, full time.Time
}

// New returns an empty Throttle on the system clock.
func New() *Throttle {
	return &Throttle{buckets: make(map[string]*bucket), Now: time.Now}
}

// level returns the attempts key has left now.
func (t *Throttle) level(k Key, now time.Time) float64 {
	b, ok := t.buckets[k.Name]
	if !ok {
		return float64(k.Rate.Burst)
	}
	return min(float64(k.Rate.Burst), b.left+float64(now.Sub(b.at))/float64(k.Rate.Every))
}

// Reserve takes an attempt from every key when each has one left, and
// returns 0; otherwise it takes none and returns how long until each
// has one (at most the slowest key's refill period: a bucket is never
// below empty).
func (t *Throttle) Reserve(keys ...Key) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.Now()
	var wait time.Duration
	for _, k := range keys {
		if left := t.level(k, now); left < 1 {
			wait = max(wait, time.Duration((1-left)*float64(k.Rate.Every)))
		}
	}
	if wait > 0 {
		return wait
	}
	t.add(now, -1, keys...)
	return 0
}

// Refund gives back an attempt Reserve took, for an attempt that
// succeeded.
func (t *Throttle) Refund(keys ...Key) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.add(t.Now(), 1, keys...)
}

// add changes each key's attempts left by n, within 0 and its burst.
func (t *Throttle) add(now time.Time, n float64, keys ...Key) {
	if len(t.buckets) >= MaxBuckets {
		t.prune(now)
	}
	for _, k := range keys {
		left := max(0, min(float64(k.Rate.Burst), t.level(k, now)+n))
		full := now.Add(time.Duration((float64(k.Rate.Burst) - left) * float64(k.Rate.Every)))
		t.buckets[k.Name] = &bucket{left: left, at: now, full: full}
	}
}

// prune drops the buckets that have refilled, then, if that is not
// enough, arbitrary ones down to half of MaxBuckets.
func (t *Throttle) prune(now time.Time) {
	for key, b := range t.buckets {
		if !now.Before(b.full) {
			delete(t.buckets, key)
		}
	}
	for key := range t.buckets {
		if len(t.buckets) <= MaxBuckets/2 {
			break
		}
		delete(t.buckets, key)
	}
}

// Limiter counts requests in this process's memory: the limits of a
// server whose store is not a store.Limiter. It implements store.Limiter.
type Limiter struct {
	mu       sync.Mutex
	rate     *Throttle
	inFlight map[string]int
}

func NewLimiter() *Limiter {
	return &Limiter{rate: New(), inFlight: map[string]int{}}
}

// Begin implements store.Limiter. The rate is a bucket of
// RequestsPerMinute requests refilled evenly over the minute.
func (l *Limiter) Begin(ctx context.Context, account string, lim store.Limits) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if lim.Concurrent > 0 && l.inFlight[account] >= lim.Concurrent {
		return nil, &store.LimitError{Concurrent: true, RetryAfter: time.Second}
	}
	if lim.RequestsPerMinute > 0 {
		k := Key{"account " + account, Rate{Burst: lim.RequestsPerMinute, Every: time.Minute / time.Duration(lim.RequestsPerMinute)}}
		if wait := l.rate.Reserve(k); wait > 0 {
			return nil, &store.LimitError{RetryAfter: wait}
		}
	}
	l.inFlight[account]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.inFlight[account]--; l.inFlight[account] == 0 {
				delete(l.inFlight, account)
			}
		})
	}, nil
}
