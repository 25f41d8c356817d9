package lexicon

import (
	"fmt"
	"strings"
)

// xsampa maps X-SAMPA symbols to IPA, from the published X-SAMPA chart:
// consonants, vowels, suprasegmentals and diacritics. Symbols are matched
// longest first.
var xsampa = map[string]string{
	// Lower case letters: most are IPA as written.
	"a": "a", "b": "b", "b_<": "ɓ", "c": "c", "d": "d", "d`": "ɖ", "d_<": "ɗ",
	"e": "e", "f": "f", "g": "ɡ", "g_<": "ɠ", "h": "h", "h\\": "ɦ", "i": "i",
	"j": "j", "j\\": "ʝ", "k": "k", "l": "l", "l`": "ɭ", "l\\": "ɺ", "m": "m",
	"n": "n", "n`": "ɳ", "o": "o", "p": "p", "p\\": "ɸ", "q": "q", "r": "r",
	"r`": "ɽ", "r\\": "ɹ", "r\\`": "ɻ", "s": "s", "s`": "ʂ", "s\\": "ɕ",
	"t": "t", "t`": "ʈ", "u": "u", "v": "v", "v\\": "ʋ", "w": "w", "x": "x",
	"x\\": "ɧ", "y": "y", "z": "z", "z`": "ʐ", "z\\": "ʑ",
	// Capitals.
	"A": "ɑ", "B": "β", "B\\": "ʙ", "C": "ç", "D": "ð", "E": "ɛ", "F": "ɱ",
	"G": "ɣ", "G\\": "ɢ", "G\\_<": "ʛ", "H": "ɥ", "H\\": "ʜ", "I": "ɪ",
	"I\\": "ᵻ", "J": "ɲ", "J\\": "ɟ", "J\\_<": "ʄ", "K": "ɬ", "K\\": "ɮ",
	"L": "ʎ", "L\\": "ʟ", "M": "ɯ", "M\\": "ɰ", "N": "ŋ", "N\\": "ɴ", "O": "ɔ",
	"O\\": "ʘ", "P": "ʋ", "Q": "ɒ", "R": "ʁ", "R\\": "ʀ", "S": "ʃ", "T": "θ",
	"U": "ʊ", "U\\": "ᵿ", "V": "ʌ", "W": "ʍ", "X": "χ", "X\\": "ħ", "Y": "ʏ",
	"Z": "ʒ",
	// Other symbols.
	"@": "ə", "@\\": "ɘ", "@`": "ɚ", "{": "æ", "}": "ʉ", "1": "ɨ", "2": "ø",
	"3": "ɜ", "3\\": "ɞ", "3`": "ɝ", "4": "ɾ", "5": "ɫ", "6": "ɐ", "7": "ɤ",
	"8": "ɵ", "9": "œ", "&": "ɶ", "?": "ʔ", "?\\": "ʕ", "<\\": "ʢ", ">\\": "ʡ",
	"!\\": "ǃ", "|\\": "ǀ", "|\\|\\": "ǁ", "=\\": "ǂ", "-\\": "‿",
	// Suprasegmentals.
	"\"": "ˈ", "%": "ˌ", ":": "ː", ":\\": "ˑ", ".": ".", "|": "|", "||": "‖",
	"^": "ꜛ", "!": "ꜜ",
	// Diacritics.
	"'": "ʲ", "_j": "ʲ", "_h": "ʰ", "_w": "ʷ", "_G": "ˠ", "_?\\": "ˤ",
	"_n": "ⁿ", "_l": "ˡ", "_>": "ʼ", "`": "˞", "~": "\u0303", "_~": "\u0303",
	"=": "\u0329", "_=": "\u0329", "_0": "\u0325", "_v": "\u032C",
	"_^": "\u032F", "_}": "\u031A", "_\"": "\u0308", "_+": "\u031F",
	"_-": "\u0320", "_A": "\u0318", "_q": "\u0319", "_a": "\u033A",
	"_c": "\u031C", "_O": "\u0339", "_d": "\u032A", "_e": "\u0334",
	"_k": "\u0330", "_t": "\u0324", "_m": "\u033B", "_N": "\u033C",
	"_o": "\u031E", "_r": "\u031D", "_x": "\u033D", "_X": "\u0306",
	// Tones.
	"_T": "\u030B", "_H": "\u0301", "_M": "\u0304", "_L": "\u0300",
	"_B": "\u030F", "_R": "\u030C", "_F": "\u0302", "_/": "\u030C",
	"_\\": "\u0302",
	// A tie joins two symbols into one sound (t_S: tʃ).
	"_": "\u0361",
}

// maxXSAMPA is the length of the longest X-SAMPA symbol.
const maxXSAMPA = 4

// XSAMPAToIPA converts a phoneme string from X-SAMPA to IPA. White space
// separates words and stays; "-", X-SAMPA's separator, is dropped. A
// character that begins no X-SAMPA symbol is an error.
func XSAMPAToIPA(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			b.WriteByte(' ')
			i++
			continue
		}
		if c == '-' && !strings.HasPrefix(s[i:], "-\\") {
			i++
			continue
		}
		n := min(maxXSAMPA, len(s)-i)
		for ; n > 0; n-- {
			if ipa, ok := xsampa[s[i:i+n]]; ok {
				b.WriteString(ipa)
				break
			}
		}
		if n == 0 {
			return "", fmt.Errorf("x-sampa %q: no symbol starts with %q (at byte %d)", s, s[i:i+1], i)
		}
		i += n
	}
	return b.String(), nil
}
