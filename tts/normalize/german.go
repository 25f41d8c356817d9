package normalize

import "strings"

var (
	deOnes = [...]string{"null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn",
		"elf", "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn", "achtzehn", "neunzehn"}
	deTens   = [...]string{"", "", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig", "neunzig"}
	deMonths = [12]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"}
)

// deBelow1000 writes 1 to 999 as one word; "eins" ends a number only
// where nothing follows it in the word.
func deBelow1000(n int64) string {
	var b strings.Builder
	if h := n / 100; h > 0 {
		b.WriteString(deStem(h) + "hundert")
		n %= 100
	}
	switch {
	case n == 0:
	case n < 20:
		b.WriteString(deOnes[n])
	case n%10 == 0:
		b.WriteString(deTens[n/10])
	default:
		b.WriteString(deStem(n%10) + "und" + deTens[n/10])
	}
	return b.String()
}

// deStem is a digit as the start of a longer number: "ein" for 1.
func deStem(n int64) string {
	if n == 1 {
		return "ein"
	}
	return deOnes[n]
}

// deCardinal reads n in German: numbers below a million are one word
// ("zweitausenddreihundertfünfundvierzig"), millions and above are
// separate words ("zwei Millionen").
func deCardinal(n int64) string {
	if n == 0 {
		return "null"
	}
	var parts []string
	for _, s := range []struct {
		v         int64
		one, many string
	}{{1e12, "Billion", "Billionen"}, {1e9, "Milliarde", "Milliarden"}, {1e6, "Million", "Millionen"}} {
		if n >= s.v {
			k := n / s.v
			if k == 1 {
				parts = append(parts, "eine "+s.one)
			} else {
				parts = append(parts, deCardinal(k)+" "+s.many)
			}
			n %= s.v
		}
	}
	if n > 0 {
		w := ""
		if t := n / 1000; t > 0 {
			w = deBelow1000(t)
			if strings.HasSuffix(w, "eins") {
				w = strings.TrimSuffix(w, "s")
			}
			w += "tausend"
			if t == 1 {
				w = "eintausend"
			}
		}
		w += deBelow1000(n % 1000)
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

// deOrdinal is the ordinal of a date: "vierundzwanzigster".
func deOrdinal(n int64) string {
	switch n {
	case 1:
		return "erster"
	case 3:
		return "dritter"
	case 7:
		return "siebter"
	case 8:
		return "achter"
	}
	w := deCardinal(n)
	if n < 20 {
		return w + "ter"
	}
	return w + "ster"
}

// deYear reads 1100 to 1999 by hundreds: "neunzehnhundertneunundneunzig".
func deYear(y int64) string {
	if y >= 1100 && y < 2000 {
		return deBelow1000(y/100) + "hundert" + deBelow1000(y%100)
	}
	return deCardinal(y)
}

func german() *language {
	l := &language{
		decimal: ',', group: '.',
		digit:    [10]string{"null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun"},
		cardinal: deCardinal, ordinal: deOrdinal, year: deYear,
		point: "Komma", minus: "minus", plus: "plus", percent: "Prozent", to: "bis", ratio: "zu", and: "und", over: "durch",
		months:    deMonths,
		monthAbbr: map[string]int{"jan": 1, "feb": 2, "mär": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "okt": 10, "nov": 11, "dez": 12},
		dayFirst:  true,
		currencies: map[string]currency{
			"€": {"Euro", "Euro", "Cent", "Cent"}, "EUR": {"Euro", "Euro", "Cent", "Cent"},
			"$": {"Dollar", "Dollar", "Cent", "Cent"}, "USD": {"US-Dollar", "US-Dollar", "Cent", "Cent"},
			"£": {"Pfund", "Pfund", "Penny", "Pence"}, "GBP": {"Pfund", "Pfund", "Penny", "Pence"},
			"¥": {"Yen", "Yen", "", ""}, "CHF": {"Franken", "Franken", "Rappen", "Rappen"},
		},
		scales: map[string]string{"Mio": "Millionen", "Mrd": "Milliarden", "Tsd": "Tausend", "Million": "Millionen", "Millionen": "Millionen", "Milliarden": "Milliarden"},
		units: map[string]unit{
			"km": {"Kilometer", "Kilometer"}, "m": {"Meter", "Meter"}, "cm": {"Zentimeter", "Zentimeter"}, "mm": {"Millimeter", "Millimeter"},
			"kg": {"Kilogramm", "Kilogramm"}, "g": {"Gramm", "Gramm"}, "mg": {"Milligramm", "Milligramm"},
			"l": {"Liter", "Liter"}, "L": {"Liter", "Liter"}, "ml": {"Milliliter", "Milliliter"},
			"h": {"Stunde", "Stunden"}, "Std": {"Stunde", "Stunden"}, "min": {"Minute", "Minuten"}, "s": {"Sekunde", "Sekunden"},
			"km/h": {"Kilometer pro Stunde", "Kilometer pro Stunde"}, "MB": {"Megabyte", "Megabyte"}, "GB": {"Gigabyte", "Gigabyte"},
			"kB": {"Kilobyte", "Kilobyte"}, "Hz": {"Hertz", "Hertz"}, "kW": {"Kilowatt", "Kilowatt"}, "W": {"Watt", "Watt"},
			"kWh": {"Kilowattstunde", "Kilowattstunden"}, "V": {"Volt", "Volt"},
			"m²": {"Quadratmeter", "Quadratmeter"}, "m2": {"Quadratmeter", "Quadratmeter"}, "qm": {"Quadratmeter", "Quadratmeter"},
			"km²": {"Quadratkilometer", "Quadratkilometer"}, "cm²": {"Quadratzentimeter", "Quadratzentimeter"},
			"m³": {"Kubikmeter", "Kubikmeter"}, "m3": {"Kubikmeter", "Kubikmeter"},
		},
		degree: unit{"Grad", "Grad"}, celsius: "Celsius", fahrenheit: "Fahrenheit",
		names: webWords{dot: "Punkt", slash: "Schrägstrich", at: "ät", colon: "Doppelpunkt", dash: "Bindestrich", underscore: "Unterstrich"},
		times: "mal", per: "pro", numberSign: "Nummer",
		hour: unit{"Stunde", "Stunden"}, minute: unit{"Minute", "Minuten"}, second: unit{"Sekunde", "Sekunden"},
		feminine: map[string]bool{"Stunde": true, "Minute": true, "Sekunde": true, "Kilowattstunde": true},
		feminize: func(s string) string {
			if s == "eins" {
				return "eine"
			}
			return s
		},
		beforeNoun: func(s string) string {
			if s == "eins" {
				return "ein"
			}
			return s
		},
	}
	l.fractionName = func(a, b int64) string {
		if b < 2 || b > 10 || a > 99 {
			return ""
		}
		if b == 2 {
			if a == 1 {
				return "ein halb"
			}
			return deCardinal(a) + " Halbe"
		}
		name := map[int64]string{3: "Drittel", 4: "Viertel", 7: "Siebtel", 8: "Achtel"}[b]
		if name == "" {
			w := deCardinal(b)
			name = strings.ToUpper(w[:1]) + w[1:] + "tel"
		}
		if a == 1 {
			return "ein " + name
		}
		return deCardinal(a) + " " + name
	}
	l.date = func(y, m, d int, _ bool) string {
		say := deOrdinal(int64(d)) + " " + deMonths[m-1]
		if y > 0 {
			say += " " + deYear(int64(y))
		}
		return say
	}
	l.clockWord = "Uhr"
	l.emergency = map[string]bool{"110": false, "112": false, "115": false, "116117": false, "19222": false}
	l.callWords = words("ruf rufe rufen ruft rief riefen anrufen wähle wählen wählt wählte wählten")
	l.clock = func(h, m int, _ string) string {
		say := deCardinal(int64(h))
		if h == 1 {
			say = "ein"
		}
		say += " Uhr"
		if m > 0 {
			say += " " + deCardinal(int64(m))
		}
		return say
	}
	l.roman = &romanWords{
		counted: words("kapitel teil band buch akt szene abschnitt artikel weltkrieg staffel folge psalm anhang"),
		regnal: words("Ludwig Heinrich Friedrich Wilhelm Karl Otto Johannes Paul Benedikt Pius Leo Gregor Innozenz " +
			"Klemens Clemens Urban Franziskus Georg Eduard Richard Peter Iwan Philipp Alexander Nikolaus Ferdinand " +
			"Konstantin Napoleon Rudolf Sigismund Maximilian Joseph Josef Leopold Gustav Olaf Harald Christian " +
			"Juan Felipe Carlos Louis Henry Charles George Edward William James " + deQueenList),
		count:   deCardinal,
		rank:    deRank,
		rankDot: true,
	}
	l.ordinalAt, l.inflectDate = l.deOrdinalAt, deInflectDate
	// Before a noun, "1" is "ein" unless the noun is feminine ("eine
	// Frage"); "1 Mio." is "eine Million".
	l.nounGender = func(w string) byte {
		if g := deNounGender(w); g != 0 {
			return g
		}
		if w == "Mio" || w == "Mrd" {
			return 'f'
		}
		if isCapitalized(w) && !deNotNouns[w] {
			return 'm'
		}
		return 0
	}
	l.nounNotYear = func(w string) bool { return isCapitalized(w) && !deNotNouns[w] && l.monthOf(w, "") == 0 }
	l.oneBefore = func(say string, g byte) string {
		switch {
		case say != "eins":
			return say
		case g == 'f':
			return "eine"
		}
		return "ein"
	}
	l.oneCase = deOneCase
	l.abbreviation = deAbbreviation(l.abbreviationOf(deAbbreviations.table()))
	return l
}

// deQueens are the regnal names of women: "Elisabeth II." is "Elisabeth
// die Zweite".
const deQueenList = "Elisabeth Elizabeth Maria Katharina Margarete Christina Viktoria Victoria Anna Isabella Johanna"

var deQueens = words(deQueenList)

// deRank reads a ruler's number: "Ludwig XIV." is "Ludwig der
// vierzehnte".
func deRank(name string, v int64) string {
	article := "der"
	if deQueens[name] {
		article = "die"
	}
	return article + " " + strings.TrimSuffix(deOrdinal(v), "r")
}

// deAbbreviation reads German abbreviations ("1 Mio." is "eine Million"),
// and a street's name written with "str." as one word: "Hauptstr." is
// "Hauptstraße".
func deAbbreviation(table func(n *normalizer, i int) (int, string)) func(n *normalizer, i int) (int, string) {
	return func(n *normalizer, i int) (int, string) {
		c := n.core(i)
		if (c == "Mio" || c == "Mrd") && n.core(i-1) == "1" && n.joined(i-1) && strings.HasPrefix(n.trail(i), ".") {
			n.eatDot = true
			return 1, map[string]string{"Mio": "Million", "Mrd": "Milliarde"}[c]
		}
		if used, say := table(n, i); used > 0 {
			return used, say
		}
		if stem, ok := strings.CutSuffix(c, "str"); ok && len(stem) >= 3 && isCapitalized(c) && strings.HasPrefix(n.trail(i), ".") {
			n.eatDot = true
			return 1, stem + "straße"
		}
		return 0, ""
	}
}
