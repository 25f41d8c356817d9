package normalize

import "strings"

var (
	frOnes = [...]string{"zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix",
		"onze", "douze", "treize", "quatorze", "quinze", "seize", "dix-sept", "dix-huit", "dix-neuf"}
	frTens   = [...]string{"", "", "vingt", "trente", "quarante", "cinquante", "soixante"}
	frMonths = [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"}
)

// frBelow100 reads 0 to 99 in French: "soixante et onze",
// "quatre-vingt-dix-neuf".
func frBelow100(n int64, last bool) string {
	switch {
	case n < 20:
		return frOnes[n]
	case n < 70:
		t, u := n/10, n%10
		switch u {
		case 0:
			return frTens[t]
		case 1:
			return frTens[t] + " et un"
		}
		return frTens[t] + "-" + frOnes[u]
	case n < 80:
		if n == 71 {
			return "soixante et onze"
		}
		return "soixante-" + frOnes[n-60]
	case n == 80:
		if last {
			return "quatre-vingts"
		}
		return "quatre-vingt"
	}
	return "quatre-vingt-" + frOnes[n-80]
}

// frBelow1000 reads 0 to 999; last says nothing follows it in the number
// but a plural scale word (cents and quatre-vingts keep their s only
// then).
func frBelow1000(n int64, last bool) string {
	h, r := n/100, n%100
	var parts []string
	switch {
	case h == 1:
		parts = append(parts, "cent")
	case h > 1 && r == 0 && last:
		parts = append(parts, frOnes[h], "cents")
	case h > 1:
		parts = append(parts, frOnes[h], "cent")
	}
	if r > 0 || h == 0 {
		parts = append(parts, frBelow100(r, last))
	}
	return strings.Join(parts, " ")
}

// frCardinal reads n in French.
func frCardinal(n int64) string {
	if n == 0 {
		return "zéro"
	}
	var parts []string
	for _, s := range []struct {
		v         int64
		one, many string
	}{{1e12, "billion", "billions"}, {1e9, "milliard", "milliards"}, {1e6, "million", "millions"}} {
		if n >= s.v {
			k := n / s.v
			if k == 1 {
				parts = append(parts, "un "+s.one)
			} else {
				parts = append(parts, frBelow1000(k, true)+" "+s.many)
			}
			n %= s.v
		}
	}
	if t := n / 1000; t > 0 {
		if t == 1 {
			parts = append(parts, "mille")
		} else {
			parts = append(parts, frBelow1000(t, false)+" mille")
		}
		n %= 1000
	}
	if n > 0 {
		parts = append(parts, frBelow1000(n, true))
	}
	return strings.Join(parts, " ")
}

// frOrdinal reads n as an ordinal: "premier", "vingt et unième".
func frOrdinal(n int64) string {
	if n == 1 {
		return "premier"
	}
	w := frCardinal(n)
	switch {
	case strings.HasSuffix(w, "cinq"):
		return w + "uième"
	case strings.HasSuffix(w, "neuf"):
		return strings.TrimSuffix(w, "f") + "vième"
	case strings.HasSuffix(w, "s") && (strings.HasSuffix(w, "cents") || strings.HasSuffix(w, "vingts")):
		w = strings.TrimSuffix(w, "s")
	}
	return strings.TrimSuffix(w, "e") + "ième"
}

// frPlural puts an ordinal in the plural: "premiers", "deuxièmes".
func frPlural(say string) string { return say + "s" }

func french() *language {
	l := &language{}
	*l = language{
		decimal: ',', group: '.', groupSpace: true, fractionAsNumber: true,
		hour: unit{"heure", "heures"}, minute: unit{"minute", "minutes"}, second: unit{"seconde", "secondes"},
		digit:    [10]string{"zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf"},
		cardinal: frCardinal, ordinal: frOrdinal, year: frCardinal,
		point: "virgule", minus: "moins", plus: "plus", percent: "pour cent", to: "à", and: "et", over: "sur",
		months:    frMonths,
		monthAbbr: map[string]int{"janv": 1, "févr": 2, "avr": 4, "juil": 7, "sept": 9, "oct": 10, "nov": 11, "déc": 12},
		dayFirst:  true,
		currencies: map[string]currency{
			"€": {"euro", "euros", "centime", "centimes"}, "EUR": {"euro", "euros", "centime", "centimes"},
			"$": {"dollar", "dollars", "cent", "cents"}, "USD": {"dollar américain", "dollars américains", "cent", "cents"},
			"£": {"livre", "livres", "penny", "pence"}, "GBP": {"livre sterling", "livres sterling", "penny", "pence"},
			"¥": {"yen", "yens", "", ""}, "CHF": {"franc suisse", "francs suisses", "centime", "centimes"},
		},
		scales: map[string]string{"M": "millions", "Md": "milliards", "k": "mille", "millions": "millions", "milliards": "milliards"},
		units: map[string]unit{
			"km": {"kilomètre", "kilomètres"}, "m": {"mètre", "mètres"}, "cm": {"centimètre", "centimètres"}, "mm": {"millimètre", "millimètres"},
			"kg": {"kilogramme", "kilogrammes"}, "g": {"gramme", "grammes"}, "mg": {"milligramme", "milligrammes"},
			"l": {"litre", "litres"}, "L": {"litre", "litres"}, "ml": {"millilitre", "millilitres"}, "cl": {"centilitre", "centilitres"},
			"h": {"heure", "heures"}, "min": {"minute", "minutes"}, "s": {"seconde", "secondes"},
			"km/h": {"kilomètre par heure", "kilomètres par heure"}, "Mo": {"mégaoctet", "mégaoctets"}, "Go": {"gigaoctet", "gigaoctets"},
			"Ko": {"kilo-octet", "kilo-octets"}, "MB": {"mégaoctet", "mégaoctets"}, "GB": {"gigaoctet", "gigaoctets"},
			"Hz": {"hertz", "hertz"}, "kW": {"kilowatt", "kilowatts"}, "W": {"watt", "watts"}, "kWh": {"kilowattheure", "kilowattheures"},
			"V":  {"volt", "volts"},
			"m²": {"mètre carré", "mètres carrés"}, "m2": {"mètre carré", "mètres carrés"}, "km²": {"kilomètre carré", "kilomètres carrés"},
			"cm²": {"centimètre carré", "centimètres carrés"}, "m³": {"mètre cube", "mètres cubes"}, "m3": {"mètre cube", "mètres cubes"},
		},
		degree: unit{"degré", "degrés"}, celsius: "Celsius", fahrenheit: "Fahrenheit",
		names: webWords{dot: "point", slash: "slash", at: "arobase", colon: "deux-points", dash: "tiret", underscore: "tiret bas"},
		times: "fois", per: "par",
		feminine: map[string]bool{"heure": true, "minute": true, "seconde": true},
		feminize: func(s string) string {
			if strings.HasSuffix(s, "un") {
				return s + "e"
			}
			return s
		},
		ordinalOf: func(core string) (string, bool) {
			if d, ok := strings.CutSuffix(core, "s"); ok && len(d) > 1 && !strings.HasSuffix(d, "s") {
				if say, ok := l.ordinalOf(d); ok { // "1ers", "2es": plural
					return frPlural(say), true
				}
			}
			for _, suffix := range []string{"nde", "nd", "de", "d"} { // "2nd", "2de": second, seconde
				if d, ok := strings.CutSuffix(core, suffix); ok && d == "2" {
					if strings.HasSuffix(suffix, "e") {
						return "seconde", true
					}
					return "second", true
				}
			}
			for _, suffix := range []string{"er", "re", "ère", "ème", "eme", "e"} {
				if d, ok := strings.CutSuffix(core, suffix); ok && (digits(d) && len(d) <= 6 || frRomanOrdinal(d)) {
					v := int64(atoi(d))
					if !digits(d) {
						v = romanValue(d)
					}
					switch {
					case (suffix == "er" || suffix == "re" || suffix == "ère") != (v == 1):
						return "", false
					case suffix == "re" || suffix == "ère":
						return "première", true
					}
					return frOrdinal(v), true
				}
			}
			return "", false
		},
	}
	l.fractionName = func(a, b int64) string {
		if b < 2 || b > 10 || a > 99 {
			return ""
		}
		names := map[int64][2]string{2: {"demi", "demis"}, 3: {"tiers", "tiers"}, 4: {"quart", "quarts"}}
		name, ok := names[b]
		if !ok {
			o := frOrdinal(b)
			name = [2]string{o, o + "s"}
		}
		if a == 1 {
			return "un " + name[0]
		}
		return frCardinal(a) + " " + name[1]
	}
	l.date = func(y, m, d int, _ bool) string {
		day := frCardinal(int64(d))
		if d == 1 {
			day = "premier"
		}
		say := day + " " + frMonths[m-1]
		if y > 0 {
			say += " " + frCardinal(int64(y))
		}
		return say
	}
	l.clock = func(h, m int, _ string) string {
		hours := frCardinal(int64(h)) + " heures"
		if h == 1 {
			hours = "une heure"
		}
		if h == 0 {
			hours = "zéro heure"
		}
		if m > 0 {
			hours += " " + frCardinal(int64(m))
		}
		return hours
	}
	l.emergency = map[string]bool{"112": false, "15": false, "17": false, "18": false, "114": false, "115": false, "119": false, "196": false}
	l.callWords = words("appelez appeler appelle appelles appelé composez composer compose")
	l.roman = &romanWords{
		counted: words("chapitre tome livre acte scène partie volume article section titre annexe épisode saison psaume"),
		regnal: words("Louis Henri Charles François Philippe Jean Paul Jean-Paul Pie Léon Grégoire Benoît Innocent " +
			"Clément Urbain Sixte Napoléon Guillaume Édouard Richard Élisabeth Elizabeth Marie Pierre Ivan Frédéric " +
			"Alexandre Nicolas Ferdinand Constantin Georges Jacques Albert Rainier Baudouin Léopold Catherine Anne"),
		anyName: true,
		count:   frCardinal,
		// French names a ruler by the cardinal, the first by "premier":
		// "Louis XIV" is "Louis quatorze", "François I" "François premier".
		rank: func(_ string, v int64) string {
			if v == 1 {
				return "premier"
			}
			return frCardinal(v)
		},
	}
	l.abbreviation = l.abbreviationOf(frAbbreviations.table())
	l.nounGender, l.oneBefore = frNounGender, frOneBefore
	return l
}

// frRomanOrdinal reports a Roman numeral that French writes before an
// ordinal's ending: "XIXe siècle", "Ier", "Ve République". A lone L, C, D
// or M is left (the "Le", "Ce", "De", "Me" of a sentence).
func frRomanOrdinal(s string) bool {
	return s != "" && romanRE.MatchString(s) && (len(s) >= 2 || s == "I" || s == "V" || s == "X")
}
