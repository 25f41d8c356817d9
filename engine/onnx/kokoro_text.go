package onnx

import (
	"fmt"
	"github.com/voxkit/voxkit/engine"
	"strings"
	"unicode"
)

// kokoroVocab maps each symbol of Kokoro v1.0's phoneme set to its token
// id: the "vocab" table of Kokoro-82M's config.json (hexgrad/Kokoro-82M,
// the same file kokoro-onnx ships as kokoro_onnx/config.json): 114
// symbols, ids 1 to 177. Id 0 is the pad around every sequence.
var kokoroVocab = map[rune]int64{
	';': 1, ':': 2, ',': 3, '.': 4, '!': 5, '?': 6, '—': 9, '…': 10,
	'"': 11, '(': 12, ')': 13, '“': 14, '”': 15, ' ': 16, '\u0303': 17,
	'ʣ': 18, 'ʥ': 19, 'ʦ': 20, 'ʨ': 21, 'ᵝ': 22, '\uab67': 23,
	'A': 24, 'I': 25, 'O': 31, 'Q': 33, 'S': 35, 'T': 36, 'W': 39, 'Y': 41, 'ᵊ': 42,
	'a': 43, 'b': 44, 'c': 45, 'd': 46, 'e': 47, 'f': 48, 'h': 50, 'i': 51,
	'j': 52, 'k': 53, 'l': 54, 'm': 55, 'n': 56, 'o': 57, 'p': 58, 'q': 59,
	'r': 60, 's': 61, 't': 62, 'u': 63, 'v': 64, 'w': 65, 'x': 66, 'y': 67, 'z': 68,
	'ɑ': 69, 'ɐ': 70, 'ɒ': 71, 'æ': 72, 'β': 75, 'ɔ': 76, 'ɕ': 77, 'ç': 78,
	'ɖ': 80, 'ð': 81, 'ʤ': 82, 'ə': 83, 'ɚ': 85, 'ɛ': 86, 'ɜ': 87, 'ɟ': 90,
	'ɡ': 92, 'ɥ': 99, 'ɨ': 101, 'ɪ': 102, 'ʝ': 103, 'ɯ': 110, 'ɰ': 111,
	'ŋ': 112, 'ɳ': 113, 'ɲ': 114, 'ɴ': 115, 'ø': 116, 'ɸ': 118, 'θ': 119,
	'œ': 120, 'ɹ': 123, 'ɾ': 125, 'ɻ': 126, 'ʁ': 128, 'ɽ': 129, 'ʂ': 130,
	'ʃ': 131, 'ʈ': 132, 'ʧ': 133, 'ʊ': 135, 'ʋ': 136, 'ʌ': 138, 'ɣ': 139,
	'ɤ': 140, 'χ': 142, 'ʎ': 143, 'ʒ': 147, 'ʔ': 148, 'ˈ': 156, 'ˌ': 157,
	'ː': 158, 'ʰ': 162, 'ʲ': 164, '↓': 169, '→': 171, '↗': 172, '↘': 173,
	'ᵻ': 177,
}

// KokoroMaxTokens is the most token ids Kokoro takes between its two pads
// (its position table has 512 entries). Longer sentences are split.
const KokoroMaxTokens = 510

// kokoroTokens returns the ids of the symbols of phonemes, dropping those
// that are not in the vocabulary, without the pads.
func kokoroTokens(phonemes string) []int64 {
	return kokoroTokensTracked(phonemes, nil)
}

// kokoroTokensTracked is kokoroTokens, recording what each token stands
// for in t when t is not nil.
func kokoroTokensTracked(phonemes string, t *wordTracker) []int64 {
	ids := make([]int64, 0, len(phonemes))
	for _, r := range phonemes {
		id, ok := kokoroVocab[r]
		if ok {
			ids = append(ids, id)
			t.phoneme(r, 1, 0)
		} else {
			t.phoneme(r, 0, 0)
		}
	}
	return ids
}

// Token ids the splitter cuts after, strongest first, and the space.
var (
	kokoroBreaks = [][]int64{
		{kokoroVocab['.'], kokoroVocab['!'], kokoroVocab['?']},
		{kokoroVocab[':'], kokoroVocab[';']},
		{kokoroVocab[','], kokoroVocab['—']},
		{kokoroVocab[' ']},
	}
	kokoroSpace = kokoroVocab[' ']
)

// splitTokens cuts ids into chunks of at most KokoroMaxTokens: after the
// last ".", "!" or "?" that fits, else the last ":" or ";", else the last
// "," or "—", else the last space, else (one word of 510 symbols) right
// at the limit. Spaces at the edges of a chunk are dropped.
func splitTokens(ids []int64) [][]int64 {
	var out [][]int64
	for _, r := range splitTokenSpans(ids) {
		out = append(out, ids[r.from:r.to])
	}
	return out
}

// splitTokenSpans is splitTokens giving the chunks as spans of ids.
func splitTokenSpans(ids []int64) []span {
	var out []span
	lo, hi := 0, len(ids)
	for {
		lo, hi = trimSpaceTokens(ids, lo, hi)
		if hi-lo <= KokoroMaxTokens {
			if hi > lo {
				out = append(out, span{lo, hi})
			}
			return out
		}
		cut := KokoroMaxTokens
	classes:
		for _, marks := range kokoroBreaks {
			for i := KokoroMaxTokens - 1; i > 0; i-- {
				if containsID(marks, ids[lo+i]) {
					cut = i + 1
					break classes
				}
			}
		}
		a, b := trimSpaceTokens(ids, lo, lo+cut)
		out = append(out, span{a, b})
		lo += cut
	}
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// trimSpaceTokens narrows ids[lo:hi] to leave out spaces at its edges.
func trimSpaceTokens(ids []int64, lo, hi int) (int, int) {
	for lo < hi && ids[lo] == kokoroSpace {
		lo++
	}
	for hi > lo && ids[hi-1] == kokoroSpace {
		hi--
	}
	return lo, hi
}

// ErrUnsupportedLanguage is returned (wrapped, with engine.ErrUnknownVoice)
// for a Kokoro voice whose language needs a front end other than
// espeak-ng: Japanese (j) and Mandarin (z) voices. It wraps
// engine.ErrUnsupportedVoice.
var ErrUnsupportedLanguage = fmt.Errorf("onnx: language not supported: %w", engine.ErrUnsupportedVoice)

// kokoroLanguage is what the first letter of a Kokoro voice name says.
type kokoroLanguage struct {
	name   string // "US English"
	tag    string // BCP 47
	espeak string // espeak-ng voice, "" when unsupported
	rules  []replacement
	after  func(string) string // misaki's steps after its table
}

var kokoroLanguages = map[byte]kokoroLanguage{
	'a': {"US English", "en-US", "en-us", misakiEnglish, misakiUS},
	'b': {"UK English", "en-GB", "en-gb", misakiEnglish, misakiGB},
	'e': {"Spanish", "es", "es", misakiOther, misakiOtherAfter},
	'f': {"French", "fr-FR", "fr-fr", misakiOther, misakiOtherAfter},
	'h': {"Hindi", "hi", "hi", misakiOther, misakiOtherAfter},
	'i': {"Italian", "it", "it", misakiOther, misakiOtherAfter},
	'p': {"Brazilian Portuguese", "pt-BR", "pt-br", misakiOther, misakiOtherAfter},
	'j': {name: "Japanese", tag: "ja"},
	'z': {name: "Mandarin", tag: "zh"},
}

// kokoroLanguageOf returns the language of a voice (pack) name. An error
// is an *engine.UnsupportedVoiceError wrapping ErrUnsupportedLanguage.
func kokoroLanguageOf(voice string) (kokoroLanguage, error) {
	unsupported := func(format string, args ...any) error {
		return &engine.UnsupportedVoiceError{Voice: voice, Reason: fmt.Sprintf(format, args...), Err: ErrUnsupportedLanguage}
	}
	if voice == "" {
		return kokoroLanguage{}, unsupported("an empty name names no Kokoro voice")
	}
	l, ok := kokoroLanguages[voice[0]]
	switch {
	case !ok:
		return l, unsupported("Kokoro voice %s: the prefix %q names no known language (a b e f h i p j z)", voice, voice[:1])
	case l.espeak == "":
		return l, unsupported("Kokoro voice %s speaks %s, which needs its own front end (misaki's), not espeak-ng; voxkit cannot phonemize it yet", voice, l.name)
	}
	return l, nil
}

// kokoroPhonemes turns espeak-ng IPA with "^" tie marks into Kokoro's
// phoneme set, as misaki does for a language.
func (l kokoroLanguage) kokoroPhonemes(ipa string) string {
	for _, r := range l.rules {
		ipa = strings.ReplaceAll(ipa, r.from, r.to)
	}
	return l.after(ipa)
}

type replacement struct{ from, to string }

// misakiEnglish is the table of misaki's English espeak fallback
// (misaki/espeak.py, EspeakFallback.E2M) in the order misaki applies it:
// longest first, each rule over the whole string before the next. One
// addition: the British "e^ə" (square) comes first, as misaki's later
// rule for it can never match once "e" became "A".
var misakiEnglish = []replacement{
	{"e^ə", "ɛː"}, // misaki: British only; harmless for US, whose espeak has none
	{"ʔˌn\u0329", "tn"},
	{"ʔn\u0329", "tn"},
	{"a^ɪ", "I"},
	{"a^ʊ", "W"},
	{"d^ʒ", "ʤ"},
	{"e^ɪ", "A"},
	{"t^ʃ", "ʧ"},
	{"ɔ^ɪ", "Y"},
	{"ə^l", "ᵊl"},
	{"ʔn", "tn"},
	{"ʲo", "jo"},
	{"ʲə", "jə"},
	{"ʔ", "t"},
	{"e", "A"},
	{"ʲ", ""},
	{"ɚ", "əɹ"},
	{"r", "ɹ"},
	{"x", "k"},
	{"ç", "k"},
	{"ɐ", "ə"},
	{"ɬ", "l"},
	{"\u0303", ""},
}

// syllabic turns a consonant marked syllabic (U+0329 after it) into "ᵊ"
// and the consonant, as misaki does after its table.
func syllabic(s string) string {
	if !strings.ContainsRune(s, '\u0329') {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		if i+1 < len(rs) && rs[i+1] == '\u0329' && !unicode.IsSpace(rs[i]) {
			b.WriteRune('ᵊ')
			b.WriteRune(rs[i])
			i++
			continue
		}
		if rs[i] != '\u0329' {
			b.WriteRune(rs[i])
		}
	}
	return b.String()
}

// misakiUS finishes US English as misaki does, plus the flap: misaki's
// American set writes espeak's "ɾ" as "T".
func misakiUS(s string) string {
	s = syllabic(s)
	for _, r := range []replacement{
		{"o^ʊ", "O"}, {"ɜːɹ", "ɜɹ"}, {"ɜː", "ɜɹ"}, {"ɪə", "iə"}, {"ː", ""}, {"ɾ", "T"},
	} {
		s = strings.ReplaceAll(s, r.from, r.to)
	}
	return misakiFinish(s)
}

// misakiGB finishes UK English as misaki does.
func misakiGB(s string) string {
	s = syllabic(s)
	s = strings.ReplaceAll(s, "iə", "ɪə")
	s = strings.ReplaceAll(s, "ə^ʊ", "Q")
	return misakiFinish(s)
}

// misakiFinish: espeak-ng before 1.52 writes "o" where misaki wants "ɔ";
// the tie marks go.
func misakiFinish(s string) string {
	s = strings.ReplaceAll(s, "o", "ɔ")
	return strings.ReplaceAll(s, "^", "")
}

// misakiOther is misaki's shorter table for the other espeak-ng languages
// (misaki/espeak.py, EspeakG2P.E2M), in its (sorted) order.
var misakiOther = []replacement{
	{"a^ɪ", "I"},
	{"a^ʊ", "W"},
	{"d^z", "ʣ"},
	{"d^ʒ", "ʤ"},
	{"e^ɪ", "A"},
	{"o^ʊ", "O"},
	{"s^s", "S"},
	{"t^s", "ʦ"},
	{"t^ʃ", "ʧ"},
	{"ɔ^ɪ", "Y"},
	{"ə^ʊ", "Q"},
}

// misakiOtherAfter drops the tie marks and hyphens left over, as misaki.
func misakiOtherAfter(s string) string {
	return strings.NewReplacer("^", "", "-", "").Replace(s)
}
