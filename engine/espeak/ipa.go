//go:build cgo

package espeak

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// espeak-ng takes phonemes in its own mnemonics between [[ and ]] (the
// espeakPHONEMES flag of espeak_Synth); its SSML reader reads a phoneme
// element's text and ignores ph. So IPA is turned into mnemonics, by the
// table below: the phonemes of espeak-ng's English voices, each chosen so
// that the voice says (and reports, in its phoneme events) the IPA asked
// for. Other languages' voices get the same table, which holds the
// consonants and vowels their phoneme sets share with English.

// ipaMnemonics maps IPA, one symbol or a diphthong or affricate, to
// espeak-ng's mnemonic. Notes on the choices:
//   - t is "t2", a t that English voices never turn into a flap; the flap
//     ɾ is "t#".
//   - American voices have no ɒ (espeak-ng's "0" is their ɑː) and British
//     ones no æ (their "a" is a): each says its own.
//   - əʊ and oʊ are both "oU", each voice's own GOAT vowel ("@U" is two
//     phonemes in espeak-ng's American English).
//   - ɪə is "i@", the NEAR diphthong, which espeak-ng writes iə.
var ipaMnemonics = map[string]string{
	"p": "p", "b": "b", "t": "t2", "d": "d", "k": "k", "g": "g", "ɡ": "g",
	"f": "f", "v": "v", "θ": "T", "ð": "D", "s": "s", "z": "z", "ʃ": "S", "ʒ": "Z",
	"h": "h", "x": "x", "m": "m", "n": "n", "ŋ": "N", "l": "l", "ɫ": "l",
	"ɹ": "r", "r": "r", "j": "j", "w": "w", "ʔ": "?", "ɾ": "t#",
	"tʃ": "tS", "ʧ": "tS", "dʒ": "dZ", "ʤ": "dZ",

	"ə": "@", "ɚ": "3", "ɝ": "3:", "ɜː": "3:", "ɜ": "3:",
	"æ": "a", "a": "a", "ɐ": "a#", "ɛ": "E", "e": "e", "ɪ": "I", "ᵻ": "I#",
	"i": "i", "iː": "i:", "ɒ": "0", "ɔ": "O", "ɔː": "O:", "ʌ": "V", "ʊ": "U",
	"u": "u:", "uː": "u:", "ɑ": "A:", "ɑː": "A:", "o": "o", "oː": "o:",

	"aɪ": "aI", "aʊ": "aU", "eɪ": "eI", "ɔɪ": "OI", "oʊ": "oU", "əʊ": "oU",
	"ɪə": "i@", "iə": "i@", "eə": "e@", "ɛə": "e@", "ʊə": "U@",

	"ˈ": "'", "ˌ": ",",
}

// ipaSilent are IPA marks with no mnemonic that change nothing espeak-ng
// would say: syllable breaks, linking, ties and the Kokoro/espeak tie "^".
const ipaSilent = ".‿-\u0361\u035c^"

// maxIPAKey is the longest key of ipaMnemonics, in runes.
const maxIPAKey = 2

// mnemonics turns IPA into espeak-ng phoneme mnemonics, words parted by
// spaces. It returns the symbols it has no mnemonic for, each once, in
// order: they are left out.
func mnemonics(ipa string) (string, []string) {
	var b strings.Builder
	var unknown []string
	rs := []rune(strings.Map(func(r rune) rune {
		if strings.ContainsRune(ipaSilent, r) {
			return -1
		}
		return r
	}, ipa))
	for i := 0; i < len(rs); {
		r := rs[i]
		if unicode.IsSpace(r) || r == '_' {
			if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
				b.WriteByte(' ')
			}
			i++
			continue
		}
		n := 0
		for k := min(maxIPAKey, len(rs)-i); k > 0; k-- {
			if m, ok := ipaMnemonics[string(rs[i:i+k])]; ok {
				b.WriteString(m)
				n = k
				break
			}
		}
		if n == 0 {
			if sym := string(r); !slices.Contains(unknown, sym) && utf8.ValidRune(r) {
				unknown = append(unknown, sym)
			}
			n = 1
		}
		i += n
	}
	return strings.TrimSpace(b.String()), unknown
}
