package normalize

import (
	"regexp"
	"strings"
)

// German writes an ordinal as a number and a period ("der 2. Platz", "am
// 3. Mai", "15.08."). Whether "3." is an ordinal, and its ending, comes
// from the words around it: the article or preposition before it gives
// the case, the noun after it the gender.

// deCaseWords are the articles and prepositions before an ordinal, and
// the ending each asks for ("" when it depends on the noun: "der").
var deCaseWords = map[string]string{
	"am": "en", "im": "en", "zum": "en", "zur": "en", "vom": "en", "beim": "en", "bis": "en", "ab": "en",
	"dem": "en", "den": "en", "des": "en", "einem": "en", "einen": "en", "eines": "en", "einer": "en",
	"der": "", "die": "e", "das": "e", "eine": "e", "ein": "",
	"seinem": "en", "seinen": "en", "seiner": "en", "ihrem": "en", "ihren": "en", "ihrer": "en",
	"seine": "e", "ihre": "e", "sein": "", "ihr": "", "jedem": "en", "jeden": "en", "jeder": "", "jede": "e", "jedes": "e",
}

// deDativePrepositions make "der" before a noun dative: "in der 3.
// Klasse" is "in der dritten Klasse".
var deDativePrepositions = words("in an auf bei mit nach seit von zu aus vor hinter über unter neben zwischen während wegen trotz für durch gegen")

// deNotNouns are capitalized words that start sentences, not nouns: "die
// 3. Sie" is no ordinal.
var deNotNouns = words("Sie Er Es Die Der Das Wir Ich Du Ihr Man Dann Aber Und Oder Doch Da So Nun Auch Noch Nur " +
	"Danach Dabei Damit Dort Hier Heute Morgen Jetzt Ein Eine Mit In Im Am Um Auf Bei Zum Zur Von Vom Wenn Als Wie")

// deGenders are the nouns most often counted with an ordinal, by gender.
var deGenders = func() map[string]byte {
	g := map[string]byte{}
	for gender, list := range map[byte]string{
		'm': "Platz Stock Tag Monat Weltkrieg Preis Teil Band Absatz Advent Geburtstag Spieltag Versuch Schritt Grad Rang " +
			"Satz Akt Punkt Durchgang Lauf Sieg Jahrestag Bezirk Kreuzzug Anlauf Abschnitt Wunsch Brief Mann Fall Kurs " +
			"Termin Schultag Arbeitstag Sonntag Montag Dienstag Mittwoch Donnerstag Freitag Samstag Versuch Gang Zug Lehrgang " +
			"Januar Februar März April Mai Juni Juli August September Oktober November Dezember FC " +
			"Himmel Hund Tisch Grund Fehler Vorschlag Freund Sohn Bruder Euro Dollar Moment Augenblick Abend Film Wagen Schlüssel",
		'f': "Klasse Liga Etage Auflage Runde Stunde Woche Stelle Reihe Halbzeit Bundesliga Staffel Folge Strophe Person " +
			"Generation Ausgabe Sitzung Lesung Etappe Minute Szene Symphonie Sinfonie Hälfte Welt Republik Frage Chance " +
			"Sekunde Nacht Frau Tür Seite Zeile Spalte Station Haltestelle Ebene Stufe Phase Mannschaft Lektion Wahl",
		'n': "Mal Jahrhundert Jahrtausend Jahr Kapitel Stockwerk Obergeschoss Semester Quartal Spiel Rennen Buch Gebot " +
			"Programm Kind Haus Viertel Album Konzert Treffen Tor Level Obergeschoß Problem Zimmer Auto Glas Stück Mädchen " +
			"Jahrzehnt Schuljahr Lebensjahr Halbjahr Heft Gesetz Land Bild Lied Rad Ziel Feld Gleis Element Wort Ding Bier",
	} {
		for _, w := range strings.Fields(list) {
			g[w] = gender
		}
	}
	return g
}()

// deNounGender tells a German noun's gender, from the list or from its
// ending (-ung, -heit, -keit, -schaft, -ion, -tät are feminine; -chen,
// -lein, -ment neuter); 0 when it cannot.
func deNounGender(w string) byte {
	if !isCapitalized(w) || deNotNouns[w] {
		return 0
	}
	if g, ok := deGenders[w]; ok {
		return g
	}
	for _, s := range []string{"ung", "heit", "keit", "schaft", "ion", "tät"} {
		if strings.HasSuffix(w, s) {
			return 'f'
		}
	}
	for _, s := range []string{"chen", "lein", "ment"} {
		if strings.HasSuffix(w, s) {
			return 'n'
		}
	}
	return 0
}

// deInflect gives an ordinal read in its strong masculine form
// ("dritter") the ending asked for: "e", "en", "er" or "es".
func deInflect(ordinal, ending string) string {
	return strings.TrimSuffix(ordinal, "r") + strings.TrimPrefix(ending, "e")
}

// deEnding is the ending of an ordinal at word i before a noun of gender
// g (0 unknown): the case of the word before it, else the strong ending
// of the noun's gender.
func deEnding(n *normalizer, i int, g byte) (string, bool) {
	if i > 0 && n.trail(i-1) == "" {
		prev := strings.ToLower(n.core(i - 1))
		if e, ok := deCaseWords[prev]; ok {
			switch {
			case e != "":
				return e, true
			case prev == "der" || prev == "jeder":
				if g == 'f' || i > 1 && n.trail(i-2) == "" && deDativePrepositions[strings.ToLower(n.core(i-2))] {
					return "en", true
				}
				return "e", true
			case g == 'n':
				return "es", true // ein, sein, ihr before a neuter noun
			}
			return "er", true
		}
	}
	switch g {
	case 'f':
		return "e", false
	case 'n':
		return "es", false
	}
	return "er", false
}

var (
	deDayMonthRE = regexp.MustCompile(`^(\d{1,2})\.(\d{1,2})$`)
	deOrdinalRE  = regexp.MustCompile(`^\d{1,4}$`)
)

// deOrdinalAt reads "3." as an ordinal where the words around it make it
// one: before a month ("3. Mai", a date), after an article or a
// preposition that cannot stand before a bare number ("zum 1. Mal", "der
// 2. Platz", "am 3."), or before a noun counted with ordinals ("19.
// Jahrhundert"). "15.08." is a date without its year.
func (l *language) deOrdinalAt(n *normalizer, i int) (int, string) {
	c := n.core(i)
	if !strings.HasPrefix(n.trail(i), ".") {
		return 0, ""
	}
	if m := deDayMonthRE.FindStringSubmatch(c); m != nil && validDate(atoi(m[2]), atoi(m[1])) {
		end, _ := deEnding(n, i, 'm')
		n.eatDot = true
		return 1, deInflect(deOrdinal(int64(atoi(m[1]))), end) + " " + deMonths[atoi(m[2])-1]
	}
	if !deOrdinalRE.MatchString(c) || n.trail(i) != "." || n.lead(i) != "" {
		return 0, ""
	}
	v := int64(atoi(c))
	next := i + 1
	nextWord := ""
	if next < len(n.words) && n.lead(next) == "" && !n.words[next].tag {
		nextWord = n.core(next)
	}
	// A date: "3. Mai", "24. Dezember 2024", "3. Mai," with its year.
	if month := l.monthOf(nextWord, n.trail(next)); month > 0 && v >= 1 && v <= 31 && len(nextWord) >= 3 {
		end, _ := deEnding(n, i, 'm')
		used, say := 2, deInflect(deOrdinal(v), end)+" "+deMonths[month-1]
		if y := n.core(next + 1); len(y) == 4 && digits(y) && n.joined(next) {
			used, say = 3, say+" "+deYear(int64(atoi(y)))
		}
		if used == 2 && strings.HasPrefix(n.trail(next), ".") && nextWord != deMonths[month-1] {
			n.eatDot = true // "3. Jan."
		}
		return used, say
	}
	g := deNounGender(nextWord)
	end, cased := deEnding(n, i, g)
	prev := ""
	if i > 0 && n.trail(i-1) == "" {
		prev = strings.ToLower(n.core(i - 1))
	}
	// A plural: "die 1. Tage" is "die ersten Tage", "zwei 3. Plätze"
	// "zwei dritte Plätze"; only after a word that counts or points.
	if g == 0 && v > 0 && dePlural(nextWord) {
		if _, ok := deCaseWords[prev]; ok || dePluralWeak[prev] {
			n.eatDot = true
			return 1, deInflect(deOrdinal(v), "en")
		}
		if dePluralStrong[prev] || prev != "" && digits(prev) {
			n.eatDot = true
			return 1, deInflect(deOrdinal(v), "e")
		}
	}
	contraction := prev == "am" || prev == "im" || prev == "zum" || prev == "zur" || prev == "vom" || prev == "beim"
	nounNext := isCapitalized(nextWord) && !deNotNouns[nextWord]
	between := nextWord == "bis" || nextWord == "und" || nextWord == "oder" || nextWord == "–" || nextWord == "-"
	if contraction || cased && (nounNext || between) || g != 0 {
		if v == 0 {
			return 0, ""
		}
		n.eatDot = true
		return 1, deInflect(deOrdinal(v), end)
	}
	return 0, ""
}

// deInflectDate gives a date the case the word before it asks for: "am
// 15.08.2024" is "am fünfzehnten August …", "der 1.3." "der erste März".
func deInflectDate(n *normalizer, i int, say string) string {
	end, cased := deEnding(n, i, 'm')
	if !cased {
		return say
	}
	first, rest, _ := strings.Cut(say, " ")
	return deInflect(first, end) + " " + rest
}

// dePluralWeak are the words after which an ordinal before a plural
// ends in -en ("alle 2. Klassen"); dePluralStrong those after which it
// ends in -e ("zwei 3. Plätze").
var (
	dePluralWeak   = words("alle beiden diese dieser diesen jene welche keine keinen meine meinen deine seine unsere eure")
	dePluralStrong = words("zwei drei vier fünf sechs sieben acht neun zehn elf zwölf viele vielen einige mehrere wenige")
)

// dePlural reports whether w is the plural of a noun whose gender
// deNounGender knows ("Tage", "Klassen", "Plätze", "Sitzungen").
func dePlural(w string) bool {
	if !isCapitalized(w) || deNounGender(w) != 0 {
		return false
	}
	for _, end := range []string{"en", "n", "e", "er", "s"} {
		stem, ok := strings.CutSuffix(w, end)
		if !ok || len(stem) < 3 {
			continue
		}
		for _, s := range []string{stem, deUnUmlaut(stem)} {
			if _, known := deGenders[s]; known || deNounGender(s) != 0 && !deNotNouns[s] {
				return true
			}
		}
	}
	return false
}

// deUnUmlaut undoes the umlaut of the last vowel of a plural's stem:
// "Plätz" is "Platz".
func deUnUmlaut(s string) string {
	r := []rune(s)
	for k := len(r) - 1; k >= 0; k-- {
		switch r[k] {
		case 'ä':
			r[k] = 'a'
		case 'ö':
			r[k] = 'o'
		case 'ü':
			r[k] = 'u'
		default:
			continue
		}
		break
	}
	return string(r)
}
