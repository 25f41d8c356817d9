package id3

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
	"unicode/utf16"
)

// Chapter is a chapter of the audio: from Start to End, counted from the
// first sample of the MP3 stream after the tag. A chapter with no title
// has no TIT2 sub-frame; players then show its element id ("chp0" for
// the first chapter, "chp1", ...), so name chapters.
type Chapter struct {
	Title      string
	Start, End time.Duration
}

// Tag is an ID3v2 tag of chapters.
type Tag struct {
	// Version is the ID3v2 minor version: 3 (the default when 0) or 4.
	Version int
	// Title, if set, is the whole recording's title (a TIT2 frame).
	Title string
	// Chapters are the chapters in order.
	Chapters []Chapter
}

// maxChildren is the most entries a CTOC frame lists: a longer table of
// contents is a CTOC of CTOCs.
const maxChildren = 255

// Marshal returns the tag's bytes.
func (t Tag) Marshal() ([]byte, error) {
	v := t.Version
	if v == 0 {
		v = 3
	}
	if v != 3 && v != 4 {
		return nil, fmt.Errorf("id3: version 2.%d: only 2.3 and 2.4 are written", v)
	}
	var frames bytes.Buffer
	w := writer{version: v}
	if t.Title != "" {
		frames.Write(w.frame("TIT2", w.text(t.Title)))
	}
	ids := make([]string, len(t.Chapters))
	var chaps bytes.Buffer
	for i, c := range t.Chapters {
		if c.Start < 0 || c.End < c.Start {
			return nil, fmt.Errorf("id3: chapter %d runs from %v to %v", i+1, c.Start, c.End)
		}
		if i > 0 && c.Start < t.Chapters[i-1].Start {
			return nil, fmt.Errorf("id3: chapter %d starts before chapter %d", i+1, i)
		}
		if c.End.Milliseconds() >= math.MaxUint32 {
			return nil, fmt.Errorf("id3: chapter %d ends at %v, past what ID3 counts", i+1, c.End)
		}
		ids[i] = fmt.Sprintf("chp%d", i)
		body := cstring(ids[i])
		body = binary.BigEndian.AppendUint32(body, uint32(c.Start.Milliseconds()))
		body = binary.BigEndian.AppendUint32(body, uint32(c.End.Milliseconds()))
		body = binary.BigEndian.AppendUint32(body, math.MaxUint32) // no byte offsets
		body = binary.BigEndian.AppendUint32(body, math.MaxUint32)
		if c.Title != "" {
			body = append(body, w.frame("TIT2", w.text(c.Title))...)
		}
		chaps.Write(w.frame("CHAP", body))
	}
	if len(ids) > 0 {
		frames.Write(w.tocs(ids))
	}
	frames.Write(chaps.Bytes())
	size := frames.Len()
	if size >= 1<<28 {
		return nil, errors.New("id3: the tag is larger than 256 MiB")
	}
	out := append([]byte("ID3"), byte(v), 0, 0)
	out = append(out, syncsafe(size)...)
	return append(out, frames.Bytes()...), nil
}

// Encode writes the tag to w.
func Encode(w io.Writer, t Tag) error {
	b, err := t.Marshal()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writer makes frames of one ID3v2 version.
type writer struct{ version int }

// frame is a frame: its id, its size (sync-safe in 2.4), no flags, and
// its body.
func (w writer) frame(id string, body []byte) []byte {
	out := []byte(id)
	if w.version == 4 {
		out = append(out, syncsafe(len(body))...)
	} else {
		out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	}
	out = append(out, 0, 0)
	return append(out, body...)
}

// text is a text frame's body: ISO-8859-1 when every character is in it,
// else UTF-16 with a byte order mark (2.3) or UTF-8 (2.4).
func (w writer) text(s string) []byte {
	latin1 := true
	for _, r := range s {
		latin1 = latin1 && r < 0x100
	}
	switch {
	case latin1:
		out := []byte{0}
		for _, r := range s {
			out = append(out, byte(r))
		}
		return out
	case w.version == 4:
		return append([]byte{3}, s...)
	default:
		out := []byte{1, 0xFF, 0xFE}
		for _, u := range utf16.Encode([]rune(s)) {
			out = binary.LittleEndian.AppendUint16(out, u)
		}
		return out
	}
}

// tocs is the table of contents of the chapters ids: one top-level,
// ordered CTOC frame, or, past 255 chapters, a top-level CTOC of CTOCs of
// up to 255 each.
func (w writer) tocs(ids []string) []byte {
	if len(ids) <= maxChildren {
		return w.toc("toc", true, ids)
	}
	var subs, frames []byte
	var names []string
	for i := 0; i < len(ids); i += maxChildren {
		name := fmt.Sprintf("toc%d", len(names)+1)
		names = append(names, name)
		subs = append(subs, w.toc(name, false, ids[i:min(i+maxChildren, len(ids))])...)
	}
	frames = w.toc("toc", true, names)
	return append(frames, subs...)
}

func (w writer) toc(id string, top bool, children []string) []byte {
	flags := byte(0x01) // ordered
	if top {
		flags |= 0x02
	}
	body := append(cstring(id), flags, byte(len(children)))
	for _, c := range children {
		body = append(body, cstring(c)...)
	}
	return w.frame("CTOC", body)
}

func cstring(s string) []byte { return append([]byte(s), 0) }

// syncsafe is n in four bytes of seven bits each.
func syncsafe(n int) []byte {
	return []byte{byte(n >> 21 & 0x7F), byte(n >> 14 & 0x7F), byte(n >> 7 & 0x7F), byte(n & 0x7F)}
}
