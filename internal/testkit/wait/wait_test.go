package wait

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	// The condition comes true at its third poll: For keeps polling.
	var n atomic.Int32
	if !For(5*time.Second, func() bool { return n.Add(1) >= 3 }) || n.Load() != 3 {
		t.Errorf("For stopped after %d polls of a condition that came true at the third", n.Load())
	}
	if For(30*time.Millisecond, func() bool { return false }) {
		t.Error("For held a condition that never did")
	}
	start := time.Now()
	if Never(5*time.Second, func() bool { return n.Load() == 3 }) {
		t.Error("Never missed a condition that held")
	}
	if time.Since(start) > time.Second {
		t.Error("Never waited out its time for a condition that held at once")
	}
	if !Never(30*time.Millisecond, func() bool { return false }) {
		t.Error("Never saw a condition that never held")
	}
}
