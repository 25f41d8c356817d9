package respond

import (
	"net/http/httptest"
	"testing"
)

// TestLazy: the response starts at the first byte, once, or at Start for
// an empty one.
func TestLazy(t *testing.T) {
	rec := httptest.NewRecorder()
	starts := 0
	l := NewLazy(rec, 0, func() { starts++; rec.WriteHeader(200) })
	l.Write(nil)
	if err := l.Flush(); err != nil || l.Started() || starts != 0 {
		t.Fatalf("started before any byte: %v %v %d", err, l.Started(), starts)
	}
	l.Write([]byte("ab"))
	l.Write([]byte("c"))
	l.Start()
	if starts != 1 || rec.Body.String() != "abc" {
		t.Errorf("starts %d, body %q", starts, rec.Body.String())
	}
	empty := NewLazy(httptest.NewRecorder(), 0, func() { starts++ })
	empty.Start()
	if !empty.Started() || starts != 2 {
		t.Error("Start did not start an empty response")
	}
}
