// Package lexicontest makes pronunciation lexicons for tests and
// benchmarks: Hostile is the worst case a lexicon's matching must stand.
package lexicontest

import (
	"fmt"
	"strings"
)

// HostileText is text every grapheme of a Hostile lexicon begins in at
// each of its words: "a " n times.
func HostileText(n int) string { return strings.Repeat("a ", n) }

// Hostile returns a PLS document of at most size bytes (and at most the
// lexicon package's 10,000 lexemes) whose graphemes all share a prefix of
// 250 characters, "a a a … a ", and differ only in their last four: at each
// word of HostileText a matcher that tries graphemes one by one compares
// each of them 250 characters deep.
func Hostile(size int) []byte {
	prefix := strings.Repeat("a ", 125)
	var b strings.Builder
	b.WriteString(`<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">` + "\n")
	const end = "</lexicon>\n"
	for i := 0; i < 10000; i++ {
		tail := fmt.Sprintf("z%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
		lexeme := "<lexeme><grapheme>" + prefix + tail + "</grapheme><alias>x</alias></lexeme>\n"
		if b.Len()+len(lexeme)+len(end) > size {
			break
		}
		b.WriteString(lexeme)
	}
	b.WriteString(end)
	return []byte(b.String())
}
