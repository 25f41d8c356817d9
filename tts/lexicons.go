package tts

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tts/normalize"
)

// MaxLexicons is the most pronunciation lexicons one request may name
// (Request.Lexicons).
const MaxLexicons = 8

// ErrTooManyLexicons is returned (wrapped) for a request that names more
// than MaxLexicons lexicons.
var ErrTooManyLexicons = errors.New("tts: too many lexicons")

// checkLexicons refuses more than MaxLexicons lexicons.
func checkLexicons(l []*lexicon.Lexicon) error {
	if len(l) > MaxLexicons {
		return fmt.Errorf("%w: %d, the limit is %d", ErrTooManyLexicons, len(l), MaxLexicons)
	}
	return nil
}

// relexed is tagged text with pronunciation lexicons applied: each alias
// written in place of its grapheme, each phoneme entry's grapheme inside a
// <|phoneme|> tag of its IPA (the path SSML's <phoneme> takes).
type relexed struct {
	text string
	// spans are the stretches of text the lexicons wrote, in order; text
	// between them is the input's, moved by what the spans before added.
	spans []relexSpan
	// grown is how many characters the aliases added to the text read
	// (fewer when negative); phoneme tags are not read and do not count.
	grown int
}

// relexSpan says that characters [out, outEnd) of the text stand for
// characters [in, inEnd) of the input.
type relexSpan struct{ out, outEnd, in, inEnd int }

// source returns the characters of the input that characters [start,
// end) of the text come from.
func (x relexed) source(start, end int) (int, int) {
	a := x.sourceOf(start, false)
	if end <= start {
		return a, a
	}
	return a, max(a, x.sourceOf(end, true))
}

// sourceOf maps a character boundary of the text to the input: the
// start of a range (or its end, when end is set) inside a span maps to
// the span's start (end); one outside to itself, moved by the spans
// before it.
func (x relexed) sourceOf(c int, end bool) int {
	i := sort.Search(len(x.spans), func(i int) bool {
		if end {
			return x.spans[i].outEnd >= c
		}
		return x.spans[i].outEnd > c
	})
	if i < len(x.spans) {
		if s := x.spans[i]; s.out < c || s.out == c && !end {
			if end {
				return s.inEnd
			}
			return s.in
		}
	}
	if i == 0 {
		return c
	}
	return c + x.spans[i-1].inEnd - x.spans[i-1].outEnd
}

// relex applies lexicons to input, n characters long (applyLexicons),
// and refuses the result when the aliases written in take it past the
// input limit.
func (s *Synthesizer) relex(input string, n int, lexicons []*lexicon.Lexicon, rewritten func(char int) bool) (relexed, error) {
	x := applyLexicons(input, lexicons, rewritten)
	if n+x.grown > s.maxInput {
		return relexed{}, &InputTooLongError{Length: n + x.grown, Max: s.maxInput, Lexicons: true}
	}
	return x, nil
}

// applyLexicons applies lexicons to input, tagged text. Tags, and the
// text inside phoneme and spell tags, are left alone, as are the
// characters rewritten reports (what SSML's say-as and sub wrote; nil
// for none).
func applyLexicons(input string, lexicons []*lexicon.Lexicon, rewritten func(char int) bool) relexed {
	masked := lookupText(input, rewritten)
	var x relexed
	var b strings.Builder
	done, doneChars, outChars := 0, 0, 0 // bytes of input copied; characters of input and text so far
	for _, m := range lexicon.Find(masked, lexicons...) {
		var write string
		grapheme := input[m.Start:m.End]
		if m.Lexeme.Alias != "" {
			write = strings.NewReplacer("<|", "< |", "|>", "| >").Replace(m.Lexeme.Alias)
		} else if tag := tags.PhonemeTag(m.Lexeme.Phonemes); tag != "" {
			write = tag + grapheme + "<|/phoneme|>"
		} else {
			continue
		}
		between := utf8.RuneCountInString(input[done:m.Start])
		b.WriteString(input[done:m.Start])
		in, out := doneChars+between, outChars+between
		inEnd := in + utf8.RuneCountInString(grapheme)
		outEnd := out + utf8.RuneCountInString(write)
		if m.Lexeme.Alias != "" {
			x.spans = append(x.spans, relexSpan{out, outEnd, in, inEnd})
			x.grown += (outEnd - out) - (inEnd - in)
		} else { // the tags stand for nothing; the grapheme is itself
			open := out + utf8.RuneCountInString(write) - utf8.RuneCountInString(grapheme+"<|/phoneme|>")
			x.spans = append(x.spans, relexSpan{out, open, in, in}, relexSpan{open + inEnd - in, outEnd, inEnd, inEnd})
		}
		b.WriteString(write)
		done, doneChars, outChars = m.End, inEnd, outEnd
	}
	if done == 0 {
		return relexed{text: input}
	}
	b.WriteString(input[done:])
	x.text = b.String()
	return x
}

// lookupText returns input with what lexicons must not match blanked
// out with NUL bytes, which are neither white space nor part of a word:
// tags, the text that phoneme and spell tags hold, and the characters
// rewritten reports.
func lookupText(input string, rewritten func(char int) bool) string {
	masked := []byte(tags.Mask(input))
	depth := 0 // phoneme and spell tags open
	for i := 0; i < len(input); {
		if masked[i] == input[i] {
			if depth > 0 {
				masked[i] = 0
			}
			i++
			continue
		}
		// A tag (or tag-shaped text Parse removes) starts here.
		end := i + 1
		for end < len(input) && masked[end] != input[end] && !strings.HasPrefix(input[end:], "<|") {
			end++
		}
		name, closing := tagName(input[i:end])
		switch {
		case name == "reset":
			depth = 0
		case name == "phoneme" || name == "spell":
			if !closing {
				depth++
			} else if depth > 0 {
				depth--
			}
		}
		for k := i; k < end; k++ {
			masked[k] = 0
		}
		i = end
	}
	if rewritten != nil {
		char := 0
		for i := range input {
			if rewritten(char) {
				_, size := utf8.DecodeRuneInString(input[i:])
				for k := i; k < i+size; k++ {
					masked[k] = 0
				}
			}
			char++
		}
	}
	return string(masked)
}

// tagName returns the name of tag ("<|phoneme:x|>", "<|/spell|>") and
// whether it closes.
func tagName(tag string) (name string, closing bool) {
	name = strings.TrimSuffix(strings.TrimPrefix(tag, "<|"), "|>")
	name, closing = strings.CutPrefix(name, "/")
	name, _, _ = strings.Cut(name, ":")
	return name, closing
}

// chainSource returns the map of first, then of then (nil for none).
func chainSource(first, then func(start, end int) (int, int)) func(start, end int) (int, int) {
	if then == nil {
		return first
	}
	return func(start, end int) (int, int) { return then(first(start, end)) }
}

// normalized maps t, the normalization of x.text, back to input (the
// text before the lexicons): each span's source moves from x.text to
// input, spans whose sources overlap (the words of one alias) become one,
// and a span stays a copy only where it holds the input's own text.
func (x relexed) normalized(input string, t normalize.Text) normalize.Text {
	textByte, inputByte := charOffsets(x.text), charOffsets(input)
	textChar := func(b int) int { // the character at byte b of x.text
		return sort.SearchInts(textByte, b)
	}
	out := normalize.Text{Text: t.Text, Spans: make([]normalize.Span, 0, len(t.Spans))}
	for _, s := range x.split(t.Spans, textByte) {
		a, b := x.source(textChar(s.Src), textChar(s.SrcEnd))
		m := normalize.Span{Out: s.Out, OutEnd: s.OutEnd, Src: inputByte[a], SrcEnd: inputByte[b]}
		if k := len(out.Spans) - 1; k >= 0 {
			last := &out.Spans[k]
			if m.Src < last.SrcEnd || m.Src == m.SrcEnd && m.Src == last.SrcEnd && !last.Copy {
				last.OutEnd, last.SrcEnd, last.Copy = m.OutEnd, max(last.SrcEnd, m.SrcEnd), false
				continue
			}
			m.Src = last.SrcEnd // keep them contiguous
		} else {
			m.Src = 0
		}
		m.Copy = s.Copy && input[m.Src:m.SrcEnd] == t.Text[m.Out:m.OutEnd]
		out.Spans = append(out.Spans, m)
	}
	if k := len(out.Spans) - 1; k >= 0 && out.Spans[k].SrcEnd < len(input) {
		out.Spans[k].SrcEnd, out.Spans[k].Copy = len(input), false
	}
	return out
}

// split cuts the copied spans of x.text's normalization at the edges of
// what the lexicons wrote (textByte: x.text's character offsets), so
// that the words around an alias map to themselves, not to it.
func (x relexed) split(spans []normalize.Span, textByte []int) []normalize.Span {
	var edges []int // bytes of x.text, in order
	for _, sp := range x.spans {
		edges = append(edges, textByte[sp.out], textByte[sp.outEnd])
	}
	var out []normalize.Span
	for _, s := range spans {
		if !s.Copy {
			out = append(out, s)
			continue
		}
		for _, e := range edges {
			if e > s.Src && e < s.SrcEnd {
				cut := s.Out + e - s.Src
				out = append(out, normalize.Span{Out: s.Out, OutEnd: cut, Src: s.Src, SrcEnd: e, Copy: true})
				s.Out, s.Src = cut, e
			}
		}
		out = append(out, s)
	}
	return out
}

// charOffsets returns the byte offset of each character of s, and
// len(s) after them.
func charOffsets(s string) []int {
	offs := make([]int, 0, len(s)+1)
	for i := range s {
		offs = append(offs, i)
	}
	return append(offs, len(s))
}
