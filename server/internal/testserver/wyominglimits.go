package testserver

import (
	"testing"
)

// String returns what the server has logged so far.
func (s *SyncBuffer) String() string {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return s.B.String()
}

// measuresMemory skips a test of resident memory that does heavy work
// (what it does, for the skip's reason) under -short, and under the race
// detector.
func MeasuresMemory(t *testing.T, heavy string) {
	t.Helper()
	if testing.Short() {
		t.Skip(heavy)
	}
	if RaceEnabled {
		t.Skip("the race detector's memory makes RSS meaningless; make test runs this test without it")
	}
}
