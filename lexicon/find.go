package lexicon

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// entry is one grapheme of a lexeme, in the index.
type entry struct {
	grapheme string
	lexeme   int // index into Lexemes
}

// buildIndex files every grapheme under its key (see key), longest
// first. A grapheme two lexemes share goes to the first.
func (l *Lexicon) buildIndex() {
	l.index = make(map[string][]entry)
	seen := make(map[string]bool)
	for i, x := range l.Lexemes {
		for _, g := range x.Graphemes {
			if seen[g] {
				continue
			}
			seen[g] = true
			k := key(g, 0)
			l.index[k] = append(l.index[k], entry{grapheme: g, lexeme: i})
		}
	}
	for k, list := range l.index {
		slices.SortStableFunc(list, func(a, b entry) int { return cmp.Compare(len(b.grapheme), len(a.grapheme)) })
		l.keys = append(l.keys, k)
	}
	slices.Sort(l.keys)
}

// key returns the index key of text at i: its run of word characters
// from i, or its one character there when it is not a word character.
func key(text string, i int) string {
	j := i
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !isWord(r) {
			break
		}
		j += size
	}
	if j == i {
		_, size := utf8.DecodeRuneInString(text[i:])
		j = i + size
	}
	return text[i:j]
}

// isWord reports whether r is part of a word: a letter, digit or mark.
func isWord(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))
}

// Match is a grapheme of a lexicon found in text.
type Match struct {
	// Start and End are the bytes of the text the grapheme covers.
	Start, End int
	// Lexicon is the lexicon the grapheme is in, Lexeme its entry there.
	Lexicon *Lexicon
	Lexeme  *Lexeme
}

// Find returns the graphemes of lexicons found in text, in order and
// without overlaps, by the rules of the package documentation: whole
// words, longest first, case as written, the first lexicon first. A nil
// lexicon is skipped.
func Find(text string, lexicons ...*Lexicon) []Match {
	var out []Match
	prevWord := false // the character before i is a word character
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if prevWord || unicode.IsSpace(r) {
			prevWord = isWord(r)
			i += size
			continue
		}
		if m, ok := findAt(text, i, lexicons); ok {
			out = append(out, m)
			last, _ := utf8.DecodeLastRuneInString(text[:m.End])
			prevWord, i = isWord(last), m.End
			continue
		}
		prevWord = isWord(r)
		i += size
	}
	return out
}

// findAt returns the longest grapheme of the first lexicon that has one
// at i, a place no word character comes before.
func findAt(text string, i int, lexicons []*Lexicon) (Match, bool) {
	k := key(text, i)
	for _, l := range lexicons {
		if l == nil {
			continue
		}
		for _, e := range l.index[k] {
			if end, ok := matchAt(text, i, e.grapheme); ok {
				return Match{Start: i, End: end, Lexicon: l, Lexeme: &l.Lexemes[e.lexeme]}, true
			}
		}
	}
	return Match{}, false
}

// matchAt reports whether grapheme g is written in text at i as a whole
// word, and where it ends: a space of g matches a run of white space, and
// no word character may follow.
func matchAt(text string, i int, g string) (int, bool) {
	end, m := match(text, i, g)
	return end, m == whole
}

// How a grapheme stands at a place in a text.
const (
	none    = iota // it is not there
	whole          // it is there, a whole word
	partial        // the text ends inside it: more text may complete it
)

// match says how grapheme g stands at i in text, and where it ends when
// whole.
func match(text string, i int, g string) (int, int) {
	j := i
	for k := 0; k < len(g); {
		if j >= len(text) {
			return 0, partial
		}
		if g[k] == ' ' {
			n := j
			for n < len(text) {
				r, size := utf8.DecodeRuneInString(text[n:])
				if !unicode.IsSpace(r) {
					break
				}
				n += size
			}
			switch {
			case n == len(text):
				return 0, partial
			case n == j:
				return 0, none
			}
			j, k = n, k+1
			continue
		}
		if text[j] != g[k] {
			return 0, none
		}
		j, k = j+1, k+1
	}
	if j < len(text) {
		if r, _ := utf8.DecodeRuneInString(text[j:]); isWord(r) {
			return 0, none
		}
	}
	return j, whole
}

// Straddles reports whether a grapheme of lexicons that begins before
// byte at of text goes on past it: one found in text, or one the text
// ends inside of, which more text may complete. Text that arrives in
// pieces (a text stream) is not cut at such a place.
func Straddles(text string, at int, lexicons ...*Lexicon) bool {
	for s := max(0, at-MaxGrapheme*utf8.UTFMax); s < at; s++ {
		if !utf8.RuneStart(text[s]) {
			continue
		}
		r, _ := utf8.DecodeRuneInString(text[s:])
		if prev, _ := utf8.DecodeLastRuneInString(text[:s]); s > 0 && isWord(prev) || unicode.IsSpace(r) {
			continue
		}
		for _, l := range lexicons {
			if l != nil && l.straddles(text, s, at) {
				return true
			}
		}
	}
	return false
}

// straddles is Straddles for one lexicon and a grapheme beginning at s.
func (l *Lexicon) straddles(text string, s, at int) bool {
	k := key(text, s)
	if s+len(k) == len(text) { // the text ends inside the key
		i := sort.SearchStrings(l.keys, k)
		return i < len(l.keys) && strings.HasPrefix(l.keys[i], k)
	}
	for _, e := range l.index[k] {
		end, m := match(text, s, e.grapheme)
		if m == partial || m == whole && end > at {
			return true
		}
	}
	return false
}
