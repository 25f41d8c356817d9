//go:build cgo

package espeak

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The guard: libespeak-ng 1.51 crashes on some ordinary inputs, which the
// engine processes contain (process.go). These rewrites keep the known
// ones from reaching the library, so that such text speaks instead of
// failing. Each was found crashing the espeak-ng command as well:
//
//   - Letters with full stops, read one by one: "a.a.a.", "u.s. u.s." or
//     " .a .a" with more than about 80 letters before a sentence ends
//     smash the stack
//     ("*** stack smashing detected ***"). Commas do not help; a separate
//     synthesis does. guardPieces cuts such a run every maxSpelled letters.
//   - Phoneme input ([[ ]]) of more than about 500 mnemonic characters, or
//     long runs of stress marks, gives SIGSEGV. guardPhonemes collapses
//     repeated marks and cuts the mnemonics into pieces of at most
//     maxPhonemeBytes, at a space where it can.
//
// A piece is synthesized on its own and their audio joined, so cutting
// costs a sentence's prosody across the cut, nothing else.
const (
	maxSpelled      = 32
	maxPhonemeBytes = 200
)

// guardPieces cuts text, one sentence, into the pieces espeak-ng may be
// given one at a time: usually text itself.
func guardPieces(text string) []string {
	var pieces []string
	spelled := 0 // letters with a full stop since the piece began
	from := 0
	for i, r := range text {
		if !unicode.IsLetter(r) || !isSpelledLetter(text, i) {
			continue
		}
		if spelled == maxSpelled {
			pieces = append(pieces, text[from:i])
			from, spelled = i, 0
		}
		spelled++
	}
	return append(pieces, text[from:])
}

// isSpelledLetter reports whether the letter at byte i of text stands
// alone beside a full stop, spaces between them or not: "a." in "a.b.c.",
// "u.s.", " .a", "a .", not "Mr.".
func isSpelledLetter(text string, i int) bool {
	_, size := utf8.DecodeRuneInString(text[i:])
	before, after := text[:i], text[i+size:]
	if r, _ := utf8.DecodeLastRuneInString(before); isWordRune(r) {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(after); isWordRune(r) {
		return false
	}
	return strings.HasSuffix(strings.TrimRight(before, " "), ".") || strings.HasPrefix(strings.TrimLeft(after, " "), ".")
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// guardPhonemes returns espeak-ng mnemonics in pieces the library can
// take: runs of one stress or length mark made one, and pieces of at most
// maxPhonemeBytes cut at the last space before the limit (or at the limit,
// where a word is longer).
func guardPhonemes(ph string) []string {
	var b strings.Builder
	var last rune
	for _, r := range ph {
		if r == last && strings.ContainsRune(repeatableMarks, r) {
			continue
		}
		b.WriteRune(r)
		last = r
	}
	ph = b.String()
	var pieces []string
	for len(ph) > maxPhonemeBytes {
		cut := strings.LastIndexByte(ph[:maxPhonemeBytes], ' ')
		if cut <= 0 {
			cut = maxPhonemeBytes
			for cut > 0 && !utf8.RuneStart(ph[cut]) {
				cut--
			}
		}
		pieces = append(pieces, ph[:cut])
		ph = strings.TrimLeft(ph[cut:], " ")
	}
	if ph != "" {
		pieces = append(pieces, ph)
	}
	return pieces
}

// repeatableMarks are the mnemonics of stress (primary, secondary),
// which say nothing more twice than once.
const repeatableMarks = "',"
