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
//   - Characters spelled one by one, each beside a full stop: "a.a.a.",
//     "u.s. u.s.", " .a .a", "ⓐ.ⓐ." smash the stack ("*** stack smashing
//     detected ***") once the run holds about 170 bytes before a sentence
//     ends: 85 "a.", 43 "ⓐ." (3 bytes each), 34 "🅐." (4), 57 "é." in
//     NFD. Commas do not help; a separate synthesis does. guardPieces
//     cuts such a run every maxSpelledBytes. Spelled is whatever
//     espeak-ng takes for a letter (spelledLetter): searched for among
//     every non-letter character of Unicode by trying "c." a hundred
//     times (TestSearchSpelled), 2,690 of 13,147 crash.
//   - Phoneme input ([[ ]]) of more than about 500 mnemonic characters, or
//     long runs of stress marks, gives SIGSEGV. guardPhonemes collapses
//     repeated marks and cuts the mnemonics into pieces of at most
//     maxPhonemeBytes, at a space where it can.
//
// A piece is synthesized on its own and their audio joined, so cutting
// costs a sentence's prosody across the cut, nothing else.
const (
	// maxSpelledBytes bounds a piece's spelled characters, counted with
	// their marks and a byte for the full stop: 32 "a.", as before,
	// and half of where the crash begins whatever the characters.
	maxSpelledBytes = 64
	maxPhonemeBytes = 200
)

// guardPieces cuts text, one sentence, into the pieces espeak-ng may be
// given one at a time: usually text itself.
func guardPieces(text string) []string {
	var pieces []string
	spelled := 0 // bytes of spelled characters since the piece began
	from := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		end := i + size // the word: a run of word runes
		for end < len(text) {
			r, size := utf8.DecodeRuneInString(text[end:])
			if !isWordRune(r) {
				break
			}
			end += size
		}
		if isSpelled(text, i, end) {
			n := end - i + 1
			if spelled > 0 && spelled+n > maxSpelledBytes {
				pieces = append(pieces, text[from:i])
				from, spelled = i, 0
			}
			spelled += n
		}
		i = end
	}
	return append(pieces, text[from:])
}

// isSpelled reports whether the word text[i:end] is one character read
// on its own beside a full stop, spaces between them or not: "a." in
// "a.b.c.", "u.s.", " .a", "a .", "ⓐ.", "é." with its accent apart, not
// "Mr." nor "1.".
func isSpelled(text string, i, end int) bool {
	base := 0 // characters other than marks
	for _, r := range text[i:end] {
		if unicode.IsMark(r) && !spelledLetter(r) {
			continue
		}
		if base++; base > 1 || (unicode.IsDigit(r) && !spelledLetter(r)) {
			return false
		}
	}
	before, after := text[:i], text[end:]
	return strings.HasSuffix(strings.TrimRight(before, " "), ".") || strings.HasPrefix(strings.TrimLeft(after, " "), ".")
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || spelledLetter(r)
}

// spelledLetter reports whether espeak-ng 1.51 reads r as a letter: what
// Unicode calls alphabetic (letters, letter numbers such as "ⅷ", and
// Other_Alphabetic: "ⓐ", "🅐", vowel signs), all marks, and the ranges
// the library adds itself (its IsAlpha: Hebrew points, Indic signs,
// Tibetan, Hangul jamo, Braille, and everything from U+3041 to U+A700,
// "㈠" and "・" among them). TestSearchSpelled checks it against every
// character that crashes the library spelled.
func spelledLetter(r rune) bool {
	if unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r) {
		return true
	}
	switch {
	case r >= 0x901 && r <= 0xdf7:
		return r&0x7f < 0x64 || r >= 0xd7a && r <= 0xd7f
	case r >= 0x5b0 && r <= 0x5c2, // Hebrew points, with the maqaf and paseq among them
		r == 0x605, r >= 0xf40 && r <= 0xfbc, r >= 0x1100 && r <= 0x11ff,
		r >= 0x2800 && r <= 0x28ff, r > 0x3040 && r <= 0xa700:
		return true
	}
	return false
}

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
