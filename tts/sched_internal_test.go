package tts

import (
	"context"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/wait"
)

// waitFor waits until n pieces wait for a slot of s.
func waitFor(t *testing.T, s *scheduler, n int) {
	t.Helper()
	if !wait.For(5*time.Second, func() bool { _, waiting := s.load(); return waiting == n }) {
		t.Fatalf("%d never waited", n)
	}
}

// TestSchedulerResize: a grown scheduler grants its waiters at once; a
// shrunk one grants nothing until its holders are under the new size.
func TestSchedulerResize(t *testing.T) {
	s := newScheduler(1)
	ctx := context.Background()
	if err := s.acquire(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		go s.acquire(ctx, "b", nil)
	}
	waitFor(t, s, 2)
	s.resize(3)
	if held, waiting := s.load(); held != 3 || waiting != 0 {
		t.Fatalf("grown to 3: %d held, %d waiting", held, waiting)
	}
	s.resize(1)
	go s.acquire(ctx, "c", nil)
	waitFor(t, s, 1)
	s.release("b")
	s.release("b")
	if held, waiting := s.load(); held != 1 || waiting != 1 {
		t.Fatalf("shrunk to 1, 2 released of 3: %d held, %d waiting; want 1 and 1", held, waiting)
	}
	s.release("a")
	if held, waiting := s.load(); held != 1 || waiting != 0 {
		t.Fatalf("after the last old holder: %d held, %d waiting", held, waiting)
	}
}
