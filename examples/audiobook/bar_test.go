package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestBarOnATerminal: on a terminal the bar is one line drawn again in
// place, its cells filled as far as the job is, with the percentage and
// the ETA; stop ends the line.
func TestBarOnATerminal(t *testing.T) {
	var w bytes.Buffer
	b := &bar{w: &w, tty: true}
	var j job
	j.ID, j.Status = "job_1", "running"
	j.Progress.Percent, j.Progress.SegmentsDone, j.Progress.SegmentsTotal, j.Progress.AudioSeconds = 50, 3, 6, 754
	eta := 83.0
	j.Progress.ETASeconds = &eta
	b.update(j)
	b.update(j) // unchanged: not drawn again
	want := "\r[" + strings.Repeat("█", 15) + strings.Repeat("░", 15) + "]  50.0 %  ETA 1m23s  segment 3/6  12m34s of audio\x1b[K"
	if w.String() != want {
		t.Errorf("drawn %q\nwant  %q", w.String(), want)
	}
	j.Status, j.Progress.Percent = "succeeded", 100
	b.update(j)
	b.stop()
	if got := w.String()[len(want):]; !strings.HasPrefix(got, "\r["+strings.Repeat("█", 30)+"] 100.0 %  done") || !strings.HasSuffix(got, "\n") {
		t.Errorf("at the end %q", got)
	}
	for s, want := range map[float64]string{0: "0s", 9.4: "9s", 80: "1m20s", 7500: "2h05m"} {
		if got := duration(s); got != want {
			t.Errorf("duration(%v) = %q, want %q", s, got, want)
		}
	}
}
