// Package sentence splits text into sentences for synthesis, so that the
// first sentence can be spoken before the rest is rendered. It is the
// splitter tts uses and engines use to keep the engine.Engine contract
// (text holding several sentences is rendered sentence by sentence); an
// engine of another project imports it to split the same way.
//
// A sentence ends at ., !, ? or …, or at 。！？ in CJK text, followed by
// white space or the end of the text (after any closing quotes or
// brackets), and at a blank line. A period after a known abbreviation
// ("Dr.", "e.g.", and those of German, French and Spanish: "z. B.",
// "Srta.", "av. J.-C.") or a single letter (an initial), after shillings
// before pence ("3s. 6d."), after a German ordinal ("am 3. Mai", "zum 1.
// Mal"), inside a number ("3.14"), or in an ellipsis followed by a
// lower-case word does not end a sentence.
package sentence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultMaxLen is the longest piece, in characters, that Split returns
// when given no bound of its own.
const DefaultMaxLen = 300

// abbreviations end with a period that does not end a sentence. Compared
// lower-cased, without the final period.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true,
	"jr": true, "sr": true, "vs": true, "etc": true, "e.g": true, "i.e": true,
	"cf": true, "no": true, "fig": true, "approx": true, "inc": true, "ltd": true,
	"co": true, "corp": true, "mt": true, "gen": true, "col": true, "lt": true,
	"sgt": true, "capt": true, "rev": true, "hon": true, "dept": true, "est": true,
	"vol": true, "ch": true, "p": true, "pp": true, "ed": true, "al": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true,
	"aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"u.s": true, "u.k": true, "a.m": true, "p.m": true, "ph.d": true, "mme": true,
}

// Split divides text into sentences, trimmed of surrounding white space and
// never empty. A sentence longer than maxLen characters (DefaultMaxLen when
// maxLen <= 0) is cut at a clause boundary, else at a word boundary, else
// between characters, so no piece exceeds maxLen. Joining the pieces with
// spaces gives back the words of text in order.
func Split(text string, maxLen int) []string { return SplitLang(text, maxLen, "") }

// SplitLang is Split for text in language lang (a BCP 47 tag such as
// "de-DE"; "" when unknown), where the language decides a period that
// text of no known language leaves open: in German, "am 3. Tag" is one
// sentence ("am" before an ordinal), in English "I am 30. My…" is two.
func SplitLang(text string, maxLen int, lang string) []string {
	if maxLen <= 0 {
		maxLen = DefaultMaxLen
	}
	var out []string
	for _, s := range splitSentences(text, isGerman(lang)) {
		out = append(out, cutLong(s, maxLen)...)
	}
	return out
}

// splitSentences cuts text at sentence ends; german tells that the text
// is German.
func splitSentences(text string, german bool) []string {
	var out []string
	start := 0
	add := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		next := i + size
		switch {
		case r == '\n' && blankLineFollows(text[next:]):
			add(next)
		case isTerminator(r):
			end := skipClosers(text, skipTerminators(text, next))
			if end == len(text) || isSpaceAt(text, end) || isCJKTerminator(r) {
				if sentenceEnds(text, start, i, r, end, german) {
					add(end)
				}
			}
			next = end
		}
		i = next
	}
	add(len(text))
	return out
}

// sentenceEnds decides whether the terminator r at text[i] (whose run of
// terminators and closers ends at end) closes the sentence begun at start.
func sentenceEnds(text string, start, i int, r rune, end int, german bool) bool {
	rest := strings.TrimLeftFunc(text[end:], unicode.IsSpace)
	if rest == "" {
		return true
	}
	first, _ := utf8.DecodeRuneInString(rest)
	if r == '.' && end == i+1 { // a lone period, not an ellipsis
		word := lastWord(text[start:i])
		if abbreviations[strings.ToLower(word)] {
			return false
		}
		// An initial such as the "J." of "J. Smith".
		if utf8.RuneCountInString(word) == 1 && unicode.IsUpper([]rune(word)[0]) {
			return false
		}
		// Shillings before pence: "3s. 6d.", pre-decimal British money.
		next, _, _ := strings.Cut(rest, " ")
		if countOf(word, "s", 3) && countOf(strings.TrimRight(next, ".,;:!?"), "d", 2) {
			return false
		}
		if nativeNoEnd(text[start:i-len(word)], word, rest, german) {
			return false
		}
	}
	// A sentence starts with a capital, a digit, a quote or a non-cased
	// script; a lower-case letter continues the sentence ("e.g. this",
	// "wait... what").
	return !unicode.IsLower(first)
}

// countOf reports whether word is 1 to digits digits then unit ("3s",
// "6d"; pence may end in ½ before the unit: "2½d").
func countOf(word, unit string, digits int) bool {
	body, ok := strings.CutSuffix(word, unit)
	if !ok {
		return false
	}
	if unit == "d" {
		body = strings.TrimSuffix(body, "½")
		if body == "" {
			return true
		}
	}
	if body == "" || len(body) > digits {
		return false
	}
	for _, r := range body {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// lastWord returns the last space-separated word of s, without leading
// punctuation such as an opening parenthesis.
func lastWord(s string) string {
	if i := strings.LastIndexFunc(s, unicode.IsSpace); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimLeft(s, "([{\"'“‘")
}

func isTerminator(r rune) bool {
	return r == '.' || r == '!' || r == '?' || r == '…' || isCJKTerminator(r)
}

func isCJKTerminator(r rune) bool { return r == '。' || r == '！' || r == '？' }

func skipTerminators(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isTerminator(r) {
			break
		}
		i += size
	}
	return i
}

// skipClosers passes closing quotes and brackets after a terminator.
func skipClosers(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !strings.ContainsRune("\"')]}”’»」』", r) {
			break
		}
		i += size
	}
	return i
}

func isSpaceAt(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsSpace(r)
}

// blankLineFollows reports whether s starts with optional horizontal space
// and another newline: a paragraph break.
func blankLineFollows(s string) bool {
	t := strings.TrimLeft(s, " \t\r")
	return strings.HasPrefix(t, "\n")
}

// cutLong cuts s into pieces of at most maxLen characters.
func cutLong(s string, maxLen int) []string {
	var out []string
	for utf8.RuneCountInString(s) > maxLen {
		cut := cutPoint(s, maxLen)
		out = append(out, strings.TrimSpace(s[:cut]))
		s = strings.TrimSpace(s[cut:])
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// cutPoint returns a byte offset within the first maxLen characters of s
// at which to cut: after the last clause mark, else before the last space,
// else at the character limit.
func cutPoint(s string, maxLen int) int {
	limit, n := len(s), 0
	for i := range s {
		if n == maxLen {
			limit = i
			break
		}
		n++
	}
	head := s[:limit]
	// Prefer a clause boundary in the second half of the piece, so pieces
	// are not needlessly short.
	if i := strings.LastIndexAny(head, ",;:—–)"); i >= limit/2 {
		_, size := utf8.DecodeRuneInString(head[i:])
		return i + size
	}
	if i := strings.LastIndexFunc(head, unicode.IsSpace); i > 0 {
		return i
	}
	return limit
}
