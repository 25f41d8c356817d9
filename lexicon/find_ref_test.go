package lexicon

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The matcher of before the trie (each grapheme filed under its first
// word and tried in turn, longest first), kept as the oracle that the
// trie's Find and Straddles must agree with exactly.

type refEntry struct {
	grapheme string
	lexeme   int
}

type refIndex struct {
	l     *Lexicon
	index map[string][]refEntry
	keys  []string
}

func newRefIndex(l *Lexicon) *refIndex {
	x := &refIndex{l: l, index: make(map[string][]refEntry)}
	seen := make(map[string]bool)
	for i, lx := range l.Lexemes {
		for _, g := range lx.Graphemes {
			if seen[g] {
				continue
			}
			seen[g] = true
			k := refKey(g, 0)
			x.index[k] = append(x.index[k], refEntry{grapheme: g, lexeme: i})
		}
	}
	for k, list := range x.index {
		slices.SortStableFunc(list, func(a, b refEntry) int { return cmp.Compare(len(b.grapheme), len(a.grapheme)) })
		x.keys = append(x.keys, k)
	}
	slices.Sort(x.keys)
	return x
}

func refKey(text string, i int) string {
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

func refFind(text string, xs ...*refIndex) []Match {
	var out []Match
	prevWord := false
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if prevWord || unicode.IsSpace(r) {
			prevWord = isWord(r)
			i += size
			continue
		}
		if m, ok := refFindAt(text, i, xs); ok {
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

func refFindAt(text string, i int, xs []*refIndex) (Match, bool) {
	k := refKey(text, i)
	for _, x := range xs {
		for _, e := range x.index[k] {
			if end, m := refMatch(text, i, e.grapheme); m == refWhole {
				return Match{Start: i, End: end, Lexicon: x.l, Lexeme: &x.l.Lexemes[e.lexeme]}, true
			}
		}
	}
	return Match{}, false
}

const (
	refNone = iota
	refWhole
	refPartial
)

func refMatch(text string, i int, g string) (int, int) {
	j := i
	for k := 0; k < len(g); {
		if j >= len(text) {
			return 0, refPartial
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
				return 0, refPartial
			case n == j:
				return 0, refNone
			}
			j, k = n, k+1
			continue
		}
		if text[j] != g[k] {
			return 0, refNone
		}
		j, k = j+1, k+1
	}
	if j < len(text) {
		if r, _ := utf8.DecodeRuneInString(text[j:]); isWord(r) {
			return 0, refNone
		}
	}
	return j, refWhole
}

func refStraddles(text string, at int, xs ...*refIndex) bool {
	for s := max(0, at-MaxGrapheme*utf8.UTFMax); s < at; s++ {
		if !utf8.RuneStart(text[s]) {
			continue
		}
		r, _ := utf8.DecodeRuneInString(text[s:])
		if prev, _ := utf8.DecodeLastRuneInString(text[:s]); s > 0 && isWord(prev) || unicode.IsSpace(r) {
			continue
		}
		for _, x := range xs {
			if x.straddles(text, s, at) {
				return true
			}
		}
	}
	return false
}

func (x *refIndex) straddles(text string, s, at int) bool {
	k := refKey(text, s)
	if s+len(k) == len(text) {
		i := sort.SearchStrings(x.keys, k)
		return i < len(x.keys) && strings.HasPrefix(x.keys[i], k)
	}
	for _, e := range x.index[k] {
		end, m := refMatch(text, s, e.grapheme)
		if m == refPartial || m == refWhole && end > at {
			return true
		}
	}
	return false
}
