package wait

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	var n atomic.Int32
	go func() {
		time.Sleep(20 * time.Millisecond)
		n.Store(1)
	}()
	if !For(5*time.Second, func() bool { return n.Load() == 1 }) {
		t.Error("For missed a condition that came true")
	}
	if For(30*time.Millisecond, func() bool { return false }) {
		t.Error("For held a condition that never did")
	}
	start := time.Now()
	if Never(5*time.Second, func() bool { return n.Load() == 1 }) {
		t.Error("Never missed a condition that held")
	}
	if time.Since(start) > time.Second {
		t.Error("Never waited out its time for a condition that held at once")
	}
	if !Never(30*time.Millisecond, func() bool { return false }) {
		t.Error("Never saw a condition that never held")
	}
}
