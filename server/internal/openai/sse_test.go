package openai

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/respond"
)

// TestSSE: audio goes out as delta events at each flush, and in events of
// at most maxEvent bytes.
func TestSSE(t *testing.T) {
	rec := httptest.NewRecorder()
	s := newSSE(respond.NewLazy(rec, 0, func() {}))
	s.Write([]byte{1, 2, 3})
	if rec.Body.Len() != 0 {
		t.Fatal("an event before the flush")
	}
	s.Flush()
	if got := rec.Body.String(); got != "data: {\"type\":\"speech.audio.delta\",\"audio\":\"AQID\"}\n\n" {
		t.Fatalf("event %q", got)
	}
	rec.Body.Reset()
	s.Write(bytes.Repeat([]byte{7}, maxEvent+1))
	if n := strings.Count(rec.Body.String(), "data: "); n != 1 {
		t.Errorf("%d events for maxEvent+1 bytes before a flush, want 1", n)
	}
}
