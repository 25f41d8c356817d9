package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// bar shows a job's progress on a terminal as one line drawn again in
// place (a bar, the percentage, the ETA), and elsewhere (a pipe, a log
// file) as a plain line each time the job moves.
type bar struct {
	w     io.Writer
	tty   bool
	drawn bool   // a bar is on the terminal's line
	last  string // the last line written
}

const barWidth = 30

func newBar(w io.Writer) *bar {
	b := &bar{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			b.tty = true
		}
	}
	return b
}

// update shows j's progress.
func (b *bar) update(j job) {
	p := j.Progress
	pct := min(max(p.Percent, 0), 100)
	eta := "ETA --"
	switch {
	case j.Status == "succeeded":
		eta = "done"
	case finished(j.Status) || j.Status == "deleted":
		eta = j.Status
	case p.ETASeconds != nil:
		eta = "ETA " + duration(*p.ETASeconds)
	}
	info := fmt.Sprintf("%5.1f %%  %s  segment %d/%d  %s of audio", pct, eta, p.SegmentsDone, p.SegmentsTotal, duration(p.AudioSeconds))
	if !b.tty {
		line := fmt.Sprintf("%s %s %s", j.ID, j.Status, info)
		if line != b.last {
			fmt.Fprintln(b.w, line)
			b.last = line
		}
		return
	}
	full := int(pct / 100 * barWidth)
	line := "\r[" + strings.Repeat("█", full) + strings.Repeat("░", barWidth-full) + "] " + info + "\x1b[K"
	if line != b.last {
		fmt.Fprint(b.w, line)
		b.last, b.drawn = line, true
	}
}

// note writes a line of its own, under the bar on a terminal.
func (b *bar) note(msg string) {
	b.stop()
	fmt.Fprintln(b.w, msg)
	b.last = ""
}

// stop ends the bar's line, so what follows starts on a line of its own.
func (b *bar) stop() {
	if b.tty && b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}

// duration writes s seconds as 9s, 1m20s or 2h05m.
func duration(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
