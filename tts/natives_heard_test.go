package tts_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/tts"
)

// TestNativeReadingHeard: German, French and Spanish speech is heard as a
// native reads its written forms. The recognizer has only an English
// model, so each candidate's words are given it as pronounced by espeak-ng
// in the voice's language, in the nearest English phones: it chooses
// between the native reading ("am dritten Mai") and the words as written,
// as espeak-ng reads them ("am 3. Mai": "am drei Mai"). Speech read as
// written is the control.
func TestNativeReadingHeard(t *testing.T) {
	synth := listeningSynthesizer(t)
	audiotest.Require(t, "espeak-ng")
	cases := []struct{ voice, input, native string }{
		{"de", "Wir treffen uns am 3. Mai.", "wir treffen uns am dritten mai"},
		{"de", "Ich war zum 1. Mal hier.", "ich war zum ersten mal hier"},
		{"de", "Das ist z. B. Obst.", "das ist zum beispiel obst"},
		{"de", "Es kostet ca. 5 Euro.", "es kostet circa fünf euro"},
		{"de", "Zimmer Nr. 12 ist frei.", "zimmer nummer zwölf ist frei"},
		{"de", "Das kostet 3,99 $.", "das kostet drei dollar und neunundneunzig cent"},
		{"fr-fr", "Au XIXe siècle.", "au dix-neuvième siècle"},
		{"fr-fr", "M. Dupont arrive.", "monsieur dupont arrive"},
		{"fr-fr", "Prenez p. ex. le n° 5.", "prenez par exemple le numéro cinq"},
		{"fr-fr", "Il reste 3,99 $.", "il reste trois dollars et quatre-vingt-dix-neuf cents"},
		{"es", "Ver pág. 12 ya.", "ver página doce ya"},
		{"es", "Es el 11.º capítulo.", "es el undécimo capítulo"},
		{"es", "Llegó en 1.er lugar.", "llegó en primer lugar"},
		{"es", "Son 3,99 $.", "son tres dólares con noventa y nueve centavos"},
	}
	heard := func(mode tts.Normalization) (int, []string) {
		right, notes := 0, []string(nil)
		for _, c := range cases {
			native, written, pronounce := pronounced(t, c.voice, c.native, c.input)
			wav, _, err := synth.SynthesizeRequest(context.Background(), tts.Request{Voice: c.voice, Input: c.input, Format: encode.WAV, Normalize: mode})
			if err != nil {
				t.Fatal(err)
			}
			got := audiotest.RecognizePronounced(t, audiotest.WriteTemp(t, wav, "wav"), []string{native, written}, pronounce)
			if got == native {
				right++
			}
			as := "words as written"
			switch got {
			case native:
				as = "native reading"
			case "":
				as = "nothing"
			}
			notes = append(notes, fmt.Sprintf("%s %q heard as the %s (%q: %q or %q)", c.voice, c.input, as, got, native, written))
		}
		return right, notes
	}
	judgeHeard(t, len(cases), heard)
}

// pronounced returns the two candidates as the recognizer's words (w0,
// w1, …) and those words' English phones, from espeak-ng's IPA of each
// word in the voice's language.
func pronounced(t *testing.T, voice, native, written string) (string, string, map[string]string) {
	t.Helper()
	ids, pronounce := map[string]string{}, map[string]string{}
	words := func(s string) string {
		var out []string
		for _, w := range strings.Fields(s) {
			id, ok := ids[w]
			if !ok {
				out, err := exec.Command("espeak-ng", "-v", voice, "-q", "--ipa", w).Output()
				if err != nil {
					t.Fatalf("espeak-ng %q: %v", w, err)
				}
				phones := arpabet(string(out))
				if phones == "" {
					continue // punctuation alone
				}
				id = fmt.Sprintf("w%d", len(ids))
				ids[w], pronounce[id] = id, phones
			}
			out = append(out, id)
		}
		return strings.Join(out, " ")
	}
	return words(native), words(written), pronounce
}

// ipaPhones are the English phones nearest to the IPA espeak-ng writes for
// German, French and Spanish, longest first.
var ipaPhones = []struct{ ipa, phones string }{
	{"aɪ", "AY"}, {"aʊ", "AW"}, {"ɔʏ", "OY"}, {"ɔø", "OY"}, {"eɪ", "EY"}, {"oʊ", "OW"}, {"tʃ", "CH"}, {"dʒ", "JH"},
	{"ɛ̃", "EH N"}, {"ɑ̃", "AA N"}, {"ɔ̃", "AO N"}, {"œ̃", "ER N"}, {"ts", "T S"},
	{"a", "AA"}, {"ɑ", "AA"}, {"ɐ", "AH"}, {"ə", "AH"}, {"ɜ", "ER"}, {"e", "EY"}, {"ɛ", "EH"}, {"i", "IY"}, {"ɪ", "IH"},
	{"o", "OW"}, {"ɔ", "AO"}, {"u", "UW"}, {"ʊ", "UH"}, {"y", "UW"}, {"ʏ", "UH"}, {"ø", "ER"}, {"œ", "ER"}, {"æ", "AE"},
	{"ʌ", "AH"}, {"p", "P"}, {"b", "B"}, {"t", "T"}, {"d", "D"}, {"k", "K"}, {"ɡ", "G"}, {"g", "G"}, {"f", "F"},
	{"v", "V"}, {"s", "S"}, {"z", "Z"}, {"h", "HH"}, {"m", "M"}, {"n", "N"}, {"l", "L"}, {"ʃ", "SH"}, {"ʒ", "ZH"},
	{"ç", "SH"}, {"x", "HH"}, {"χ", "HH"}, {"ʁ", "R"}, {"r", "R"}, {"ɾ", "R"}, {"ɹ", "R"}, {"j", "Y"}, {"w", "W"},
	{"ŋ", "NG"}, {"ɲ", "N Y"}, {"θ", "TH"}, {"ð", "DH"}, {"β", "B"}, {"ɣ", "G"}, {"ʎ", "L Y"}, {"ɥ", "W"},
}

// arpabet writes espeak-ng's IPA in the English phones nearest to it;
// stress, length and unknown marks are left out.
func arpabet(ipa string) string {
	var out []string
	for ipa != "" {
		found := false
		for _, p := range ipaPhones {
			if strings.HasPrefix(ipa, p.ipa) {
				out = append(out, p.phones)
				ipa = ipa[len(p.ipa):]
				found = true
				break
			}
		}
		if !found {
			_, size := utf8.DecodeRuneInString(ipa)
			ipa = ipa[size:]
		}
	}
	return strings.Join(out, " ")
}
