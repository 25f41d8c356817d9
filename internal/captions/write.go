package captions

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Format is a subtitle file format.
type Format int

const (
	SRT    Format = iota // SubRip: numbered cues, "00:00:01,500" times
	WebVTT               // WebVTT: a "WEBVTT" header, "00:00:01.500" times
)

func (f Format) String() string {
	if f == WebVTT {
		return "vtt"
	}
	return "srt"
}

// ContentType is the format's media type.
func (f Format) ContentType() string {
	if f == WebVTT {
		return "text/vtt; charset=utf-8"
	}
	return "application/x-subrip; charset=utf-8"
}

// Writer writes cues to an io.Writer in a format, numbering them across
// calls. Close writes what a file with no cues needs (WebVTT's header)
// and flushes; it does not close the io.Writer.
type Writer struct {
	w      *bufio.Writer
	format Format
	n      int           // cues written
	headed bool          // the header is written
	last   time.Duration // the end of the last cue written
	err    error
}

// NewWriter returns a Writer of format f to w.
func NewWriter(w io.Writer, f Format) *Writer {
	return &Writer{w: bufio.NewWriter(w), format: f}
}

// Write writes cues after those written before. A cue whose End is not
// after its Start is shown for 1 ms, and one that would start before the
// last one ends starts when it ends: cues do not overlap.
func (w *Writer) Write(cues ...Cue) error {
	for _, c := range cues {
		if w.err != nil {
			return w.err
		}
		w.header()
		w.n++
		start := max(c.Start, w.last)
		end := max(c.End, start+time.Millisecond)
		w.last = end
		var text string
		if w.format == WebVTT {
			text = vttEscape.Replace(c.Text())
			_, w.err = fmt.Fprintf(w.w, "%s --> %s\n%s\n\n", stamp(start, '.'), stamp(end, '.'), text)
		} else {
			text = strings.ReplaceAll(c.Text(), "-->", "->")
			_, w.err = fmt.Fprintf(w.w, "%d\n%s --> %s\n%s\n\n", w.n, stamp(start, ','), stamp(end, ','), text)
		}
	}
	return w.err
}

func (w *Writer) header() {
	if !w.headed && w.format == WebVTT && w.err == nil {
		_, w.err = w.w.WriteString("WEBVTT\n\n")
	}
	w.headed = true
}

// Close ends the file and flushes it.
func (w *Writer) Close() error {
	w.header()
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

// WriteSRT writes cues as an SRT file.
func WriteSRT(w io.Writer, cues []Cue) error { return write(w, SRT, cues) }

// WriteVTT writes cues as a WebVTT file.
func WriteVTT(w io.Writer, cues []Cue) error { return write(w, WebVTT, cues) }

func write(w io.Writer, f Format, cues []Cue) error {
	cw := NewWriter(w, f)
	return errors.Join(cw.Write(cues...), cw.Close())
}

var vttEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// stamp formats a time as hh:mm:ss followed by sep and milliseconds,
// rounded to the millisecond.
func stamp(d time.Duration, sep byte) string {
	ms := d.Round(time.Millisecond).Milliseconds()
	if ms < 0 {
		ms = 0
	}
	return fmt.Sprintf("%02d:%02d:%02d%c%03d", ms/3600000, ms/60000%60, ms/1000%60, sep, ms%1000)
}
