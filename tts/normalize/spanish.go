package normalize

import (
	"regexp"
	"strings"
)

var (
	esOnes = [...]string{"cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
		"once", "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve",
		"veinte", "veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis", "veintisiete", "veintiocho", "veintinueve"}
	esTens     = [...]string{"", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa"}
	esHundreds = [...]string{"", "ciento", "doscientos", "trescientos", "cuatrocientos", "quinientos", "seiscientos", "setecientos", "ochocientos", "novecientos"}
	esMonths   = [12]string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}
	esOrdinals = [...]string{"", "primero", "segundo", "tercero", "cuarto", "quinto", "sexto", "séptimo", "octavo", "noveno", "décimo"}
)

func esBelow1000(n int64) string {
	if n == 100 {
		return "cien"
	}
	var parts []string
	if h := n / 100; h > 0 {
		parts = append(parts, esHundreds[h])
	}
	switch r := n % 100; {
	case r == 0 && n != 0:
	case r < 30:
		parts = append(parts, esOnes[r])
	case r%10 == 0:
		parts = append(parts, esTens[r/10])
	default:
		parts = append(parts, esTens[r/10]+" y "+esOnes[r%10])
	}
	return strings.Join(parts, " ")
}

// esApocope shortens a number before a noun or a scale word: "uno" is
// "un", "veintiuno" "veintiún".
func esApocope(s string) string {
	switch {
	case strings.HasSuffix(s, "veintiuno"):
		return strings.TrimSuffix(s, "veintiuno") + "veintiún"
	case s == "uno" || strings.HasSuffix(s, " uno"):
		return strings.TrimSuffix(s, "uno") + "un"
	}
	return s
}

// esCardinal reads n in Spanish.
func esCardinal(n int64) string {
	if n == 0 {
		return "cero"
	}
	var parts []string
	for _, s := range []struct {
		v         int64
		one, many string
	}{{1e12, "billón", "billones"}, {1e6, "millón", "millones"}} {
		if n >= s.v {
			k := n / s.v
			if k == 1 {
				parts = append(parts, "un "+s.one)
			} else {
				parts = append(parts, esApocope(esCardinal(k))+" "+s.many)
			}
			n %= s.v
		}
	}
	if t := n / 1000; t > 0 {
		if t == 1 {
			parts = append(parts, "mil")
		} else {
			parts = append(parts, esApocope(esBelow1000(t))+" mil")
		}
		n %= 1000
	}
	if n > 0 {
		parts = append(parts, esBelow1000(n))
	}
	return strings.Join(parts, " ")
}

func spanish() *language {
	l := &language{
		decimal: ',', group: '.', fractionAsNumber: true,
		hour: unit{"hora", "horas"}, minute: unit{"minuto", "minutos"}, second: unit{"segundo", "segundos"},
		digit:    [10]string{"cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"},
		cardinal: esCardinal, year: esCardinal,
		ordinal: esOrdinal,
		point:   "coma", minus: "menos", plus: "más", percent: "por ciento", to: "a", and: "y", over: "entre", moneyAnd: "con",
		months:    esMonths,
		monthAbbr: map[string]int{"ene": 1, "feb": 2, "mar": 3, "abr": 4, "jun": 6, "jul": 7, "ago": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dic": 12},
		dayFirst:  true,
		currencies: map[string]currency{
			"€": {"euro", "euros", "céntimo", "céntimos"}, "EUR": {"euro", "euros", "céntimo", "céntimos"},
			"$": {"dólar", "dólares", "centavo", "centavos"}, "USD": {"dólar estadounidense", "dólares estadounidenses", "centavo", "centavos"},
			"£": {"libra", "libras", "penique", "peniques"}, "GBP": {"libra esterlina", "libras esterlinas", "penique", "peniques"},
			"¥": {"yen", "yenes", "", ""}, "MXN": {"peso mexicano", "pesos mexicanos", "centavo", "centavos"},
		},
		scales: map[string]string{"M": "millones", "k": "mil", "millones": "millones"},
		units: map[string]unit{
			"km": {"kilómetro", "kilómetros"}, "m": {"metro", "metros"}, "cm": {"centímetro", "centímetros"}, "mm": {"milímetro", "milímetros"},
			"kg": {"kilogramo", "kilogramos"}, "g": {"gramo", "gramos"}, "mg": {"miligramo", "miligramos"},
			"l": {"litro", "litros"}, "L": {"litro", "litros"}, "ml": {"mililitro", "mililitros"},
			"h": {"hora", "horas"}, "min": {"minuto", "minutos"}, "s": {"segundo", "segundos"},
			"km/h": {"kilómetro por hora", "kilómetros por hora"}, "MB": {"megabyte", "megabytes"}, "GB": {"gigabyte", "gigabytes"},
			"kB": {"kilobyte", "kilobytes"}, "Hz": {"hercio", "hercios"}, "kW": {"kilovatio", "kilovatios"}, "W": {"vatio", "vatios"},
			"kWh": {"kilovatio hora", "kilovatios hora"}, "V": {"voltio", "voltios"},
			"m²": {"metro cuadrado", "metros cuadrados"}, "m2": {"metro cuadrado", "metros cuadrados"}, "km²": {"kilómetro cuadrado", "kilómetros cuadrados"},
			"cm²": {"centímetro cuadrado", "centímetros cuadrados"}, "m³": {"metro cúbico", "metros cúbicos"}, "m3": {"metro cúbico", "metros cúbicos"},
		},
		degree: unit{"grado", "grados"}, celsius: "Celsius", fahrenheit: "Fahrenheit",
		names: webWords{dot: "punto", slash: "barra", at: "arroba", colon: "dos puntos", dash: "guion", underscore: "guion bajo"},
		times: "veces", per: "por",
		beforeNoun: esApocope,
		feminine:   map[string]bool{"hora": true},
		feminize: func(s string) string {
			if strings.HasSuffix(s, "uno") {
				return strings.TrimSuffix(s, "o") + "a"
			}
			return s
		},
		ordinalOf: esOrdinalOf,
	}
	l.fractionName = func(a, b int64) string {
		if b < 2 || b > 10 || a > 99 {
			return ""
		}
		names := map[int64][2]string{2: {"medio", "medios"}, 3: {"tercio", "tercios"}}
		name, ok := names[b]
		if !ok {
			o := esOrdinals[b]
			name = [2]string{o, o + "s"}
		}
		if a == 1 {
			return "un " + name[0]
		}
		return esCardinal(a) + " " + name[1]
	}
	l.date = func(y, m, d int, _ bool) string {
		day := esCardinal(int64(d))
		if d == 1 {
			day = "primero"
		}
		say := day + " de " + esMonths[m-1]
		if y > 0 {
			say += " de " + esCardinal(int64(y))
		}
		return say
	}
	l.clockArticle = func(h int) string {
		if h == 1 {
			return "la"
		}
		return "las"
	}
	l.clock = func(h, m int, _ string) string {
		say := esCardinal(int64(h))
		if strings.HasSuffix(say, "uno") { // la una, las veintiuna
			say = strings.TrimSuffix(say, "o") + "a"
		}
		if m > 0 {
			say += " y " + esCardinal(int64(m))
		}
		return say
	}
	l.emergency = map[string]bool{"112": false, "091": false, "092": false, "061": false, "062": false, "016": false}
	l.callWords = words("llama llamar llame llamad llamó marca marcar marque marcad")
	l.roman = &romanWords{
		counted: words("capítulo parte tomo volumen libro acto escena sección artículo título apéndice temporada episodio fase nivel salmo"),
		regnal: words("Felipe Carlos Juan Pablo Alfonso Fernando Enrique Luis Pío León Gregorio Benedicto Inocencio " +
			"Clemente Urbano Sixto Francisco Jorge Eduardo Ricardo Pedro Iván Federico Alejandro Nicolás Jaime Sancho " +
			"Ramiro " + esQueenList),
		anyName: true,
		count:   esCardinal,
		rank:    esRank,
	}
	l.abbreviation = l.abbreviationOf(esAbbreviations.table())
	l.nounGender, l.oneBefore = esNounGender, esOneBefore
	return l
}

// esQueens are the regnal names of women: "Isabel II" is "Isabel
// segunda".
const esQueenList = "Isabel María Juana Catalina Ana Urraca Berenguela Leonor"

var esQueens = words(esQueenList)

// esRank reads a ruler's number: an ordinal to ten, "Felipe VI" is
// "Felipe sexto", then the cardinal, "Alfonso XIII" is "Alfonso trece".
func esRank(name string, v int64) string {
	if v > 10 {
		return esCardinal(v)
	}
	if esQueens[name] {
		return strings.TrimSuffix(esOrdinals[v], "o") + "a"
	}
	return esOrdinals[v]
}

var (
	esOrdinalTens = [...]string{"", "décimo", "vigésimo", "trigésimo", "cuadragésimo", "quincuagésimo", "sexagésimo",
		"septuagésimo", "octogésimo", "nonagésimo"}
	esOrdinalRE = regexp.MustCompile(`^(\d{1,3})\.?(º|ª|°|o|a|er|os|as)$`)
)

// esOrdinal reads n as an ordinal in the masculine: "primero", "undécimo",
// "vigésimo primero", "centésimo"; past 100, the cardinal.
func esOrdinal(n int64) string {
	switch {
	case n >= 1 && n <= 10:
		return esOrdinals[n]
	case n == 11:
		return "undécimo"
	case n == 12:
		return "duodécimo"
	case n > 12 && n < 20:
		return "decimo" + strings.ReplaceAll(esOrdinals[n-10], "é", "e")
	case n == 100:
		return "centésimo"
	case n >= 20 && n < 100 && n%10 == 0:
		return esOrdinalTens[n/10]
	case n > 20 && n < 100:
		return esOrdinalTens[n/10] + " " + esOrdinals[n%10]
	}
	return esCardinal(n)
}

// esOrdinalOf reads an ordinal written with digits: "1.º" "primero", "3.ª"
// "tercera", "1.er" "primer" (before a noun), "11.º" "undécimo".
func esOrdinalOf(core string) (string, bool) {
	m := esOrdinalRE.FindStringSubmatch(core)
	if m == nil || (m[2] == "o" || m[2] == "a" || m[2] == "os" || m[2] == "as") && !strings.Contains(core, ".") {
		return "", false // "2a" and "3o" are not ordinals without their period
	}
	v := int64(atoi(m[1]))
	if v < 1 || v > 100 {
		return "", false
	}
	say := esOrdinal(v)
	switch m[2] {
	case "ª", "a", "as":
		words := strings.Fields(say)
		for k, w := range words {
			words[k] = strings.TrimSuffix(w, "o") + "a"
		}
		say = strings.Join(words, " ")
	case "er":
		if v%10 != 1 && v%10 != 3 {
			return "", false
		}
		say = strings.TrimSuffix(say, "o")
	}
	if strings.HasSuffix(m[2], "s") { // "los 3.os": "los terceros"
		say = strings.ReplaceAll(say, " ", "s ") + "s"
	}
	return say, true
}
