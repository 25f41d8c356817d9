package tts

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tts/normalize"
)

// Word is where a word of the input is heard in a request's audio.
type Word struct {
	// Word is the word as written in the input.
	Word string
	// Start and End are where the word is heard, from the start of the
	// request's audio (pauses, events and earlier sentences included).
	Start, End time.Duration
	// CharStart and CharEnd index the input in characters (Unicode code
	// points), tags included: the word is Input's characters
	// [CharStart, CharEnd).
	CharStart, CharEnd int
	// Estimated is set when the engine estimated the timing rather than
	// measured it (see docs/server.md, "Word timestamps").
	Estimated bool
}

// SentenceDone describes a sentence whose audio has been written to the
// request's writer (and flushed, when streaming).
type SentenceDone struct {
	// Index counts the sentences written, from 0. The first clause of a
	// first sentence that QuickStart cut is a sentence of its own here.
	Index int
	// Start and End are where the sentence's audio lies in the request's
	// audio.
	Start, End time.Duration
	// Words are its words in order, for engines that report word timings
	// (espeak-ng measures them; see engine.Word); nil for others.
	Words []Word
}

// locator finds words in the input, in order, and says where they are in
// characters.
type locator struct {
	input string // the input, or the piece of it searched now
	text  string // input with its tags masked (tags.Mask), byte for byte
	pos   int    // bytes of text searched past
	chars int    // characters of the whole input before pos
	// source, if set, maps characters of input to the client's (the
	// SSML that input was made from, the text before lexicons).
	source func(start, end int) (int, int)
	// written, when lexicons rewrote the input, is the client's text,
	// from its character writtenAt: words are named as written there,
	// and the words said for one stretch of it (an alias) are one.
	written   []rune
	writtenAt int
}

// writtenText returns characters [start, end) of the client's text, or
// "" when they are not all in written.
func (l *locator) writtenText(start, end int) string {
	start, end = start-l.writtenAt, end-l.writtenAt
	if start < 0 || end > len(l.written) || start >= end {
		return ""
	}
	return string(l.written[start:end])
}

// start makes the locator search input from its beginning, which is
// character chars of the whole input (a TextStream's text is searched
// piece by piece, each from where the text spoken before ends).
func (l *locator) start(input string, chars int) {
	l.input, l.text, l.pos, l.chars = input, tags.Mask(input), 0, chars
}

// find returns the characters of the next occurrence of word, or an
// empty span where the search stands when word is not there (its text was
// rewritten).
func (l *locator) find(word string) (start, end int) {
	start, end = l.locate(word)
	if l.source != nil {
		return l.source(start, end)
	}
	return start, end
}

// locate is find in characters of input.
func (l *locator) locate(word string) (start, end int) {
	i := strings.Index(l.text[l.pos:], word)
	if i < 0 || word == "" {
		return l.chars, l.chars
	}
	// Characters are counted in the input: a tag's value may hold
	// characters of several bytes, each masked as that many spaces.
	start = l.chars + utf8.RuneCountInString(l.input[l.pos:l.pos+i])
	end = start + utf8.RuneCountInString(word)
	l.pos += i + len(word)
	l.chars = end
	return start, end
}

// partWords turns the words an engine reported for one text part into
// Words. text is what the engine was asked to say; said is the part's
// text as normalized (norm maps it back to original, the part's own
// text), and text differs from it when it was respelled: its words then
// go as one, as they do when whole is set (text said as phonemes). The
// words said for one written form ("nine dollars and fifty cents") are
// one Word, the form as written ("$9.50"). at maps an engine sample
// offset to a time in the request's audio.
func (r *renderer) partWords(words []engine.Word, text, said, original string, norm *normalize.Text, whole bool, at func(int) time.Duration) {
	if len(words) == 0 {
		return
	}
	switch {
	case text == said && norm != nil && !whole:
		words, text = writtenWords(words, original, norm), original
	case text != said || whole:
		first, last := words[0], words[len(words)-1]
		est := false
		for _, w := range words {
			est = est || w.Estimated
		}
		// One word, as written: its punctuation (a sentence's period
		// after a phoneme element, say) is not part of it.
		if w := strings.TrimFunc(original, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }); w != "" {
			original = w
		}
		original = strings.TrimSpace(original)
		words, text = []engine.Word{{Start: 0, End: len(original), From: first.From, To: last.To, Estimated: est}}, original
	}
	for _, w := range words {
		if w.Start < 0 || w.End > len(text) || w.Start >= w.End {
			continue
		}
		word := text[w.Start:w.End]
		cs, ce := r.loc.find(word)
		if r.loc.written != nil && ce > cs {
			if k := len(r.words) - 1; k >= 0 && r.words[k].CharStart == cs && r.words[k].CharEnd == ce {
				r.words[k].End = at(w.To) // another word of an alias
				r.words[k].Estimated = r.words[k].Estimated || w.Estimated
				continue
			}
			if s := r.loc.writtenText(cs, ce); s != "" {
				word = s
			}
		}
		r.words = append(r.words, Word{Word: word, Start: at(w.From), End: at(w.To), CharStart: cs, CharEnd: ce, Estimated: w.Estimated})
	}
}

// writtenWords maps words of normalized text onto the text as written:
// each covers what norm says it came from, and the words read for one
// written form become one.
func writtenWords(words []engine.Word, original string, norm *normalize.Text) []engine.Word {
	out := make([]engine.Word, 0, len(words))
	for _, w := range words {
		if w.Start < 0 || w.End > len(norm.Text) || w.Start >= w.End {
			continue
		}
		a, b := norm.Source(w.Start, w.End)
		for a < b && original[a] == ' ' {
			a++
		}
		for b > a && original[b-1] == ' ' {
			b--
		}
		if a >= b {
			continue
		}
		if k := len(out) - 1; k >= 0 && a < out[k].End {
			out[k].End, out[k].To = max(out[k].End, b), w.To
			out[k].Estimated = out[k].Estimated || w.Estimated
			continue
		}
		w.Start, w.End = a, b
		out = append(out, w)
	}
	return out
}
