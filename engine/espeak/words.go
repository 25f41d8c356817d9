//go:build cgo

package espeak

import (
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
)

// wordsOf turns the word events of one sentence's synthesis into
// engine.Words: their bytes in the request's text (text starts at byte
// start of it) and the sample where espeak-ng began each, scaled by the
// stretch applied after synthesis. With SSML the events count characters
// of the markup, which is mapped back to text. Events that fall inside a
// word already listed (a spelled word's letters) are left out. n is the
// number of samples of the sentence.
func wordsOf(text string, start int, events []wordAt, n, rate int, scale float64, ssml bool, p engine.Prosody) []engine.Word {
	textRune := func(char int) int { return char - 1 } // espeak counts from 1
	if ssml {
		textRune = markupToText(text, p)
	}
	// runeByte[i] is the byte offset of rune i of text.
	runeByte := make([]int, 0, len(text)+1)
	for i := range text {
		runeByte = append(runeByte, i)
	}
	runeByte = append(runeByte, len(text))
	var out []engine.Word
	for _, ev := range events {
		r := textRune(ev.Char)
		if r < 0 || r >= len(runeByte)-1 {
			continue
		}
		a, b, ok := wordAround(text, runeByte[r])
		if !ok || len(out) > 0 && start+a < out[len(out)-1].End {
			continue
		}
		from := int(float64(ev.MS) * float64(rate) / 1000 * scale)
		out = append(out, engine.Word{Start: start + a, End: start + b, From: from})
	}
	return fillWords(text, start, out, n)
}

// fillWords adds the words of text that espeak-ng gave no event of (it
// reports "on the" as one word, say): each shares the span of the
// reported word before it, in proportion to their lengths, and is
// Estimated. n is the number of samples of the sentence.
func fillWords(text string, start int, words []engine.Word, n int) []engine.Word {
	var out []engine.Word
	for i, w := range words {
		next, until := len(text), n
		if i+1 < len(words) {
			next, until = words[i+1].Start-start, words[i+1].From
		}
		group := []engine.Word{w}
		for j := w.End - start; j < next; {
			a, b, ok := wordAround(text, j)
			if ok && a >= j && b <= next {
				group = append(group, engine.Word{Start: start + a, End: start + b, Estimated: true})
			}
			if b <= j {
				b = j + 1
			}
			j = b
		}
		if len(group) > 1 {
			letters := 0
			for _, g := range group {
				letters += g.End - g.Start
			}
			span, at := max(until-w.From, 0), w.From
			for k := range group {
				group[k].From = at
				at += span * (group[k].End - group[k].Start) / letters
			}
		}
		out = append(out, group...)
	}
	return out
}

// wordAround returns the word of text around byte i: the run of characters
// without white space that holds it, less the punctuation at its ends.
// ok is false when the run has no letter or digit.
func wordAround(text string, i int) (a, b int, ok bool) {
	a, b = i, i
	for a > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:a])
		if unicode.IsSpace(r) {
			break
		}
		a -= n
	}
	for b < len(text) {
		r, n := utf8.DecodeRuneInString(text[b:])
		if unicode.IsSpace(r) {
			break
		}
		b += n
	}
	for a < b {
		r, n := utf8.DecodeRuneInString(text[a:b])
		if isWordChar(r) {
			break
		}
		a += n
	}
	for b > a {
		r, n := utf8.DecodeLastRuneInString(text[a:b])
		if isWordChar(r) {
			break
		}
		b -= n
	}
	return a, b, a < b
}

// isWordChar reports whether r is part of a word: a letter, a digit or a
// mark.
func isWordChar(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// markupToText returns a function from a character position (from 1) in
// markup(text, p) to the rune index in text.
func markupToText(text string, p engine.Prosody) func(int) int {
	open, _ := markupTags(p)
	prefix := utf8.RuneCountInString(open)
	// at[i] is the markup rune index (from 0, past the prefix) where rune
	// i of text begins, once escaped.
	var at []int
	n := 0
	for _, r := range text {
		at = append(at, n)
		n += utf8.RuneCountInString(escapeXML(string(r)))
	}
	return func(char int) int {
		m := char - 1 - prefix
		if m < 0 {
			return -1
		}
		// The last text rune that begins at or before m.
		lo, hi := 0, len(at)
		for lo < hi {
			mid := (lo + hi) / 2
			if at[mid] <= m {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return lo - 1
	}
}

// quiet is the level below which a sample at a word's edge is silence.
const quiet = 0.001

// timeWords fits each word's span to its sound within the sentence's
// samples: it starts at the first sound after where espeak-ng began it
// and ends at the last sound before the next word (or the end), so the
// silence of a pause lies between words. offset, the samples the call
// emitted before the sentence, is added to both ends.
func timeWords(samples []float32, words []engine.Word, offset int) {
	for i := range words {
		limit := len(samples)
		if i+1 < len(words) {
			limit = min(limit, words[i+1].From)
		}
		from := min(words[i].From, limit)
		to := limit
		for to > from && math.Abs(float64(samples[to-1])) < quiet {
			to--
		}
		for from < to && math.Abs(float64(samples[from])) < quiet {
			from++
		}
		if from == to { // no sound: keep espeak-ng's span
			from, to = min(words[i].From, limit), limit
		}
		words[i].From, words[i].To = from+offset, to+offset
	}
}
