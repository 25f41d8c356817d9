package sentence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Periods that end no sentence in German, French and Spanish text: their
// abbreviations ("z. B.", "Nr.", "Srta.", "av. J.-C."), and German
// ordinals, which are written with a period ("am 3. Mai", "zum 1. Mal",
// "der 2. Platz").

// nativeAbbreviations are abbreviations of German, French and Spanish,
// lower-cased and without their final period. Those that are also
// English words ("so", "art", "mind", "chap") are left out: in English
// their period ends sentences.
var nativeAbbreviations = words(
	// German
	"usw bzw nr ca hr hrn fr frl evtl ggf inkl exkl zzgl vgl bspw jh jhd bzgl allg abb kap hbf geb gest fa hrsg " +
		"ugs tsd sog std mio mrd insb usf bd tel str chr dipl ing zz " +
		// French
		"mlle mlles mgr av apr env cf hab éd tél ste j.-c c.-à-d vve " +
		// Spanish
		"sra srta sres sras dra dres ud uds vd vds pág págs núm nro dña avda aprox tlf tfno ej admón dcha izq izqda " +
		"cía depto dpto lic lcdo lcda profa sta sto pza mons atte ee")

// deOrdinalWords are German articles and prepositions after which a
// number with a period is an ordinal ("zum 1. Mal"). "am" is left out:
// English "I am 30. My…" ends a sentence there; German "am 3. Mai" is
// a date, kept whole by the month after it, and in text known to be
// German (SplitLang) "am 3. Tag" is kept whole too.
var deOrdinalWords = words("im zum zur vom beim bis ab der die das den dem des ein eine einem einen einer eines " +
	"seinem seinen seiner ihrem ihren ihrer jedem jeden")

// deMonths are German month names and their abbreviations, lower-cased:
// "3. Mai" is a date.
var deMonths = words("januar jan jänner februar feb märz mär april apr mai juni jun juli jul august aug september " +
	"sep sept oktober okt november nov dezember dez")

func words(list string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(list) {
		set[w] = true
	}
	return set
}

// nativeNoEnd reports whether the period after word, before the text
// rest, ends no sentence in German, French or Spanish text: an
// abbreviation, a letter of one ("z." of "z. B."), or a German ordinal.
// before is the text of the sentence before word; german tells that the
// text is German.
func nativeNoEnd(before, word, rest string, german bool) bool {
	low := strings.ToLower(word)
	if nativeAbbreviations[low] {
		return true
	}
	if utf8.RuneCountInString(word) == 1 && unicode.IsLetter([]rune(word)[0]) {
		return true // "z. B.", "d. h.", "p. ex.", "a. C."
	}
	if len(low) > 5 && strings.HasSuffix(low, "str") {
		return true // "Hauptstr. 5"
	}
	if len(word) == 0 || len(word) > 4 || strings.Trim(word, "0123456789") != "" {
		return false
	}
	next, _, _ := strings.Cut(rest, " ")
	next = strings.ToLower(strings.TrimRight(next, ".,;:!?"))
	prev := strings.ToLower(lastWord(strings.TrimSpace(before)))
	return deMonths[next] || deOrdinalWords[prev] || german && prev == "am" && !deStarters[next]
}

// deStarters are words that start a German sentence after "am 3.": "Wir
// treffen uns am 3. Danach…" ends at the period.
var deStarters = words("ich du er sie es wir ihr man dann danach davor aber und oder doch da so nun auch dort hier " +
	"heute morgen jetzt der die das den dem ein eine mit in im am um auf bei zum zur von vom wenn als wie was wer")

// isGerman reports whether the BCP 47 tag lang is German ("de", "de-AT").
func isGerman(lang string) bool {
	l := strings.ToLower(lang)
	return l == "de" || strings.HasPrefix(l, "de-") || strings.HasPrefix(l, "de_")
}
