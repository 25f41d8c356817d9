package lexicon

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

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
	m := len(key(text, i))
	for n, l := range lexicons {
		if l == nil || slices.Contains(lexicons[:n], l) {
			continue
		}
		w := walker{t: &l.trie, text: text, keyLen: m, best: -1}
		w.walk(i)
		if w.best >= 0 {
			return Match{Start: i, End: w.bestEnd, Lexicon: l, Lexeme: &l.Lexemes[l.trie.nodes[w.best].lexeme]}, true
		}
	}
	return Match{}, false
}

// walker follows a text down a trie from a place in it where a word may
// begin, along every grapheme the text may hold there, by the rules of
// Find: a space of a grapheme matches a run of white space in the text,
// other bytes themselves. Only the graphemes whose key (see key) is the
// text's there, keyLen bytes long, count. The graphemes below a node
// keyLen or more bytes deep all begin with that key, so their keys are at
// least as long: a subtree whose minKey is longer holds none and is left.
type walker struct {
	t      *trie
	text   string
	keyLen int

	// best is the node of the longest grapheme found whole (of two as
	// long, the first in the lexicon), ending at bestEnd in the text;
	// -1: none yet.
	best             int
	bestEnd, bestLen int
	// after, if set, is called with the end of each grapheme found
	// whole; partial is set when the text ends inside a grapheme.
	after   func(end int)
	partial bool
}

// walk walks the text from byte i.
func (w *walker) walk(i int) {
	if len(w.t.nodes) == 0 {
		return // as in straddles
	}
	type at struct{ id, j, depth int }
	stack := []at{{0, i, 0}}
	t, text := w.t, w.text
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &t.nodes[s.id]
		if nd.lexeme >= 0 && int(nd.keyLen) == w.keyLen && w.wholeAt(s.j) {
			if w.after != nil {
				w.after(s.j)
			}
			if w.best < 0 || s.depth > w.bestLen || s.depth == w.bestLen && nd.order < t.nodes[w.best].order {
				w.best, w.bestEnd, w.bestLen = s.id, s.j, s.depth
			}
		}
		if s.j >= len(text) { // the text ends here: inside each grapheme below
			for c := int(nd.kids); c < int(nd.kids)+int(nd.nkids); c++ {
				w.partial = w.partial || int(t.nodes[c].minKey) == w.keyLen
			}
			continue
		}
		next := [2]int{t.child(s.id, ' '), -1}
		if text[s.j] != ' ' {
			next[1] = t.child(s.id, text[s.j])
		}
		for _, c := range next {
			if c < 0 || s.depth >= w.keyLen && int(t.nodes[c].minKey) != w.keyLen {
				continue
			}
			if j, ok := w.follow(c, s.j); ok {
				stack = append(stack, at{c, j, s.depth + int(t.nodes[c].n)})
			}
		}
	}
}

// wholeAt reports whether no word character follows byte j of the text.
func (w *walker) wholeAt(j int) bool {
	if j < len(w.text) {
		r, _ := utf8.DecodeRuneInString(w.text[j:])
		return !isWord(r)
	}
	return true
}

// follow matches the label of node c in the text from byte j, and
// returns where it ends there; false when the text holds it not, or ends
// inside it (then partial is set).
func (w *walker) follow(c, j int) (int, bool) {
	text, label := w.text, w.t.label(c)
	// Where the text ends inside the label, the text is as deep as its
	// key (see walk): the graphemes below are whole ones if minKey says.
	ends := int(w.t.nodes[c].minKey) == w.keyLen
	for k := 0; k < len(label); k++ {
		if j >= len(text) {
			w.partial = w.partial || ends
			return 0, false
		}
		if label[k] != ' ' {
			if text[j] != label[k] {
				return 0, false
			}
			j++
			continue
		}
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
			w.partial = w.partial || ends
			return 0, false
		case n == j:
			return 0, false
		}
		j = n
	}
	return j, true
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
		for n, l := range lexicons {
			if l != nil && !slices.Contains(lexicons[:n], l) && l.straddles(text, s, at) {
				return true
			}
		}
	}
	return false
}

// straddles is Straddles for one lexicon and a grapheme beginning at s.
func (l *Lexicon) straddles(text string, s, at int) bool {
	k := key(text, s)
	t := &l.trie
	if len(t.nodes) == 0 {
		return false // a Lexicon that Parse or New did not make: no graphemes
	}
	if s+len(k) == len(text) { // the text ends inside the key: is it the start of one?
		id, off := 0, 0
		for i := 0; i < len(k); {
			if off == len(t.label(id)) {
				if id, off = t.child(id, k[i]), 0; id < 0 {
					return false
				}
			}
			if t.label(id)[off] != k[i] {
				return false
			}
			i, off = i+1, off+1
		}
		return true
	}
	found := false
	w := walker{t: t, text: text, keyLen: len(k), best: -1, after: func(end int) { found = found || end > at }}
	w.walk(s)
	return found || w.partial
}
