package respond

import (
	"bytes"
	"net/http/httptest"
	"strings"
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

// TestSSE: audio goes out as delta events at each flush, and in events of
// at most MaxEvent bytes.
func TestSSE(t *testing.T) {
	rec := httptest.NewRecorder()
	s := NewSSE(NewLazy(rec, 0, func() {}))
	s.Write([]byte{1, 2, 3})
	if rec.Body.Len() != 0 {
		t.Fatal("an event before the flush")
	}
	s.Flush()
	if got := rec.Body.String(); got != "data: {\"type\":\"speech.audio.delta\",\"audio\":\"AQID\"}\n\n" {
		t.Fatalf("event %q", got)
	}
	rec.Body.Reset()
	s.Write(bytes.Repeat([]byte{7}, MaxEvent+1))
	if n := strings.Count(rec.Body.String(), "data: "); n != 1 {
		t.Errorf("%d events for MaxEvent+1 bytes before a flush, want 1", n)
	}
}
