package sherpatext

import (
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
)

// Span is one piece of text to speak, with the byte range of the text it
// came from (cutting and joining pieces drops and adds only white space,
// so the piece's other characters are the range's, in order).
type Span struct {
	Text       string
	Start, End int
}

// Locate finds each piece of text (as Chunks or Sentences cut it) in
// text, in order.
func Locate(text string, pieces []string) []Span {
	out := make([]Span, 0, len(pieces))
	at := 0
	for _, p := range pieces {
		s := Span{Text: p, Start: -1, End: at}
		for _, r := range p {
			if Space(r) {
				continue
			}
			i := at
			for i < len(text) {
				c, n := utf8.DecodeRuneInString(text[i:])
				if c == r {
					break
				}
				i += n
			}
			if i >= len(text) {
				break // not found: cannot happen for pieces of text
			}
			if s.Start < 0 {
				s.Start = i
			}
			_, n := utf8.DecodeRuneInString(text[i:])
			at = i + n
			s.End = at
		}
		if s.Start < 0 {
			s.Start = s.End
		}
		out = append(out, s)
	}
	return out
}

// Words returns the byte ranges of the words (runs of non-space) of
// text[start:end].
func Words(text string, start, end int) [][2]int {
	var out [][2]int
	w := -1
	for i, r := range text[start:end] {
		switch {
		case Space(r) && w >= 0:
			out = append(out, [2]int{w, start + i})
			w = -1
		case !Space(r) && w < 0:
			w = start + i
		}
	}
	if w >= 0 {
		out = append(out, [2]int{w, end})
	}
	return out
}

// Spread returns the words of text[p.Start:p.End] spread over total
// samples from sample from, in proportion to their length in characters
// (a space after each counting one): estimates, for a model that gives no
// alignment.
func Spread(text string, p Span, from, total int) []engine.Word {
	ws := Words(text, p.Start, p.End)
	weight := 0
	for _, w := range ws {
		weight += utf8.RuneCountInString(text[w[0]:w[1]]) + 1
	}
	timed := make([]engine.Word, len(ws))
	at := 0
	for i, w := range ws {
		n := utf8.RuneCountInString(text[w[0]:w[1]])
		start := from + at*total/weight
		at += n + 1
		end := from + (at-1)*total/weight
		timed[i] = engine.Word{Start: w[0], End: w[1], From: start, To: max(end, start), Estimated: true}
	}
	return timed
}
