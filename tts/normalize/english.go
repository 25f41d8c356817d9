package normalize

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	enOnes = [...]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	enTens   = [...]string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
	enScales = []struct {
		value int64
		name  string
	}{{1e12, "trillion"}, {1e9, "billion"}, {1e6, "million"}, {1e3, "thousand"}, {100, "hundred"}}
	enOrdinalWords = map[string]string{"one": "first", "two": "second", "three": "third", "five": "fifth",
		"eight": "eighth", "nine": "ninth", "twelve": "twelfth"}
	enMonths = [12]string{"January", "February", "March", "April", "May", "June", "July", "August",
		"September", "October", "November", "December"}
)

// enCardinal reads n in English words, without "and": 123 is "one
// hundred twenty three".
func enCardinal(n int64) string {
	if n < 0 {
		return "minus " + enCardinal(-n)
	}
	if n < 20 {
		return enOnes[n]
	}
	if n < 100 {
		if n%10 == 0 {
			return enTens[n/10]
		}
		return enTens[n/10] + " " + enOnes[n%10]
	}
	for _, s := range enScales {
		if n >= s.value {
			say := enCardinal(n/s.value) + " " + s.name
			if r := n % s.value; r > 0 {
				say += " " + enCardinal(r)
			}
			return say
		}
	}
	return ""
}

// enOrdinal reads n as an English ordinal: "twenty first".
func enOrdinal(n int64) string {
	words := strings.Split(enCardinal(n), " ")
	last := words[len(words)-1]
	switch {
	case enOrdinalWords[last] != "":
		last = enOrdinalWords[last]
	case strings.HasSuffix(last, "y"):
		last = strings.TrimSuffix(last, "y") + "ieth"
	default:
		last += "th"
	}
	words[len(words)-1] = last
	return strings.Join(words, " ")
}

// enYear reads a year as people say it: 1999 "nineteen ninety nine",
// 1905 "nineteen oh five", 1900 "nineteen hundred", 2000 "two thousand",
// 2008 "two thousand eight", 2026 "twenty twenty six".
func enYear(y int64) string {
	hi, lo := y/100, y%100
	switch {
	case y%1000 == 0 || y >= 2000 && y < 2010:
		return enCardinal(y)
	case lo == 0:
		return enCardinal(hi) + " hundred"
	case lo < 10:
		return enCardinal(hi) + " oh " + enOnes[lo]
	}
	return enCardinal(hi) + " " + enCardinal(lo)
}

// enFractionName names a common fraction: 1/2 "one half", 3/4 "three
// quarters", 5/8 "five eighths"; "" for one it does not name. ("24/7"
// is numeral's, in every language.)
func enFractionName(a, b int64) string {
	if b < 2 || b > 10 && b != 12 && b != 16 && b != 32 && b != 64 && b != 100 || a > 99 {
		return ""
	}
	var one, many string
	switch b {
	case 2:
		one, many = "half", "halves"
	case 4:
		one, many = "quarter", "quarters"
	default:
		one = enOrdinal(b)
		many = one + "s"
	}
	if a == 1 {
		if b == 2 {
			return "one half"
		}
		return "one " + one
	}
	return enCardinal(a) + " " + many
}

var enOrdinalRE = regexp.MustCompile(`^(\d+)(st|nd|rd|th|ST|ND|RD|TH)$`)

func enOrdinalOf(core string) (string, bool) {
	v, ok := enOrdinalSuffix(core)
	if !ok {
		return "", false
	}
	return enOrdinal(v), true
}

func enOrdinalSuffix(core string) (int64, bool) {
	m := enOrdinalRE.FindStringSubmatch(core)
	if m == nil || len(m[1]) > 9 {
		return 0, false
	}
	v := int64(atoi(m[1]))
	want := "th"
	switch {
	case v%100 >= 11 && v%100 <= 13:
	case v%10 == 1:
		want = "st"
	case v%10 == 2:
		want = "nd"
	case v%10 == 3:
		want = "rd"
	}
	return v, strings.ToLower(m[2]) == want
}

var enDecadeRE = regexp.MustCompile(`^(\d{2})?(\d)0'?s$|^'(\d)0s$`)

// enDecades reads "1990s" as "nineteen nineties", "80s" and "'80s" as
// "eighties", "2000s" as "two thousands".
func enDecades(core string) (string, bool) {
	switch core {
	case "100s":
		return "hundreds", true // "100s of people"
	case "1000s":
		return "thousands", true
	}
	m := enDecadeRE.FindStringSubmatch(core)
	if m == nil {
		return "", false
	}
	century, tens := m[1], m[2]
	if m[3] != "" {
		tens = m[3]
	}
	if tens == "0" {
		if century == "" {
			return "", false
		}
		return enYear(int64(atoi(century+"00"))) + "s", true // 1900s: nineteen hundreds; 2000s: two thousands
	}
	decade := enTens[atoi(tens)]
	if tens == "1" {
		decade = "ten"
	}
	decade = strings.TrimSuffix(decade, "y") + "ies"
	if tens == "1" {
		decade = "tens"
	}
	if century == "" {
		return decade, true
	}
	return enCardinal(int64(atoi(century))) + " " + decade, true
}

func english(british bool) *language {
	l := &language{
		decimal: '.', group: ',',
		digit:    [10]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"},
		cardinal: enCardinal, ordinal: enOrdinal, year: enYear,
		point: "point", minus: "minus", plus: "plus", percent: "percent", to: "to", and: "and", over: "over",
		fractionName: enFractionName,
		months:       enMonths,
		monthAbbr: map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8,
			"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12},
		dayFirst: british,
		currencies: map[string]currency{
			"$": {"dollar", "dollars", "cent", "cents"}, "USD": {"US dollar", "US dollars", "cent", "cents"},
			"€": {"euro", "euros", "cent", "cents"}, "EUR": {"euro", "euros", "cent", "cents"},
			"£": {"pound", "pounds", "penny", "pence"}, "GBP": {"pound", "pounds", "penny", "pence"},
			"¥": {"yen", "yen", "", ""}, "JPY": {"yen", "yen", "", ""},
			"₹": {"rupee", "rupees", "paisa", "paise"}, "INR": {"rupee", "rupees", "paisa", "paise"},
			"CHF": {"Swiss franc", "Swiss francs", "centime", "centimes"},
			"CAD": {"Canadian dollar", "Canadian dollars", "cent", "cents"},
			"AUD": {"Australian dollar", "Australian dollars", "cent", "cents"},
			"CNY": {"yuan", "yuan", "", ""},
		},
		scales: map[string]string{"k": "thousand", "K": "thousand", "m": "million", "M": "million", "mn": "million",
			"bn": "billion", "b": "billion", "B": "billion", "tn": "trillion",
			"thousand": "thousand", "million": "million", "billion": "billion", "trillion": "trillion"},
		units:      englishUnits,
		degree:     unit{"degree", "degrees"},
		celsius:    "Celsius",
		fahrenheit: "Fahrenheit",
		names:      webWords{dot: "dot", slash: "slash", at: "at", colon: "colon", dash: "dash", underscore: "underscore"},
		times:      "times", per: "per", numberSign: "number",
		ordinalOf: enOrdinalOf, decades: enDecades, predecimal: true,
		abbreviation: enAbbreviation, roman: enRoman, initialisms: true,
		emergency: map[string]bool{"911": true, "999": false, "112": false, "000": false, "988": false, "111": false,
			"211": false, "311": false, "411": false, "511": false, "611": false, "711": false, "811": false},
		callWords: words("call calls called calling dial dials dialed dialled dialing dialling ring rang phone phoned text texted"),
		hour:      unit{"hour", "hours"}, minute: unit{"minute", "minutes"}, second: unit{"second", "seconds"},
	}
	l.date = func(y, m, d int, dayWritten bool) string {
		var say string
		if dayWritten || british {
			say = "the " + enOrdinal(int64(d)) + " of " + enMonths[m-1]
		} else {
			say = enMonths[m-1] + " " + enOrdinal(int64(d))
		}
		if y > 0 {
			say += ", " + enYear(int64(y))
		}
		return say
	}
	l.clock = func(h, m int, mark string) string {
		say := enCardinal(int64(h))
		switch {
		case m == 0 && mark == "":
			if h > 12 || h == 0 {
				say += " hundred"
			} else {
				say += " o'clock"
			}
		case m == 0:
		case m < 10:
			say += " oh " + enOnes[m]
		default:
			say += " " + enCardinal(int64(m))
		}
		if mark != "" {
			say += " " + spellLetters(mark)
		}
		return say
	}
	return l
}

// englishUnits are the units read after a number, by their symbols.
var englishUnits = func() map[string]unit {
	u := map[string]unit{}
	add := func(one, many string, symbols ...string) {
		for _, s := range symbols {
			u[s] = unit{one, many}
		}
	}
	add("kilometer", "kilometers", "km")
	add("meter", "meters", "m")
	add("centimeter", "centimeters", "cm")
	add("millimeter", "millimeters", "mm")
	add("micrometer", "micrometers", "µm", "μm")
	add("nanometer", "nanometers", "nm")
	add("mile", "miles", "mi")
	add("foot", "feet", "ft")
	add("yard", "yards", "yd", "yds")
	add("kilogram", "kilograms", "kg")
	add("gram", "grams", "g")
	add("milligram", "milligrams", "mg")
	add("microgram", "micrograms", "µg", "μg", "mcg")
	add("pound", "pounds", "lb", "lbs")
	add("ounce", "ounces", "oz")
	add("ton", "tons", "t")
	add("liter", "liters", "L", "l")
	add("milliliter", "milliliters", "ml", "mL")
	add("centiliter", "centiliters", "cl", "cL")
	add("gallon", "gallons", "gal")
	add("hour", "hours", "h", "hr", "hrs")
	add("minute", "minutes", "min", "mins")
	add("second", "seconds", "s", "sec", "secs")
	add("millisecond", "milliseconds", "ms")
	add("microsecond", "microseconds", "µs", "μs")
	add("nanosecond", "nanoseconds", "ns")
	add("hertz", "hertz", "Hz")
	add("kilohertz", "kilohertz", "kHz")
	add("megahertz", "megahertz", "MHz")
	add("gigahertz", "gigahertz", "GHz")
	add("byte", "bytes", "B")
	add("kilobyte", "kilobytes", "KB", "kB", "KiB")
	add("megabyte", "megabytes", "MB", "MiB")
	add("gigabyte", "gigabytes", "GB", "GiB")
	add("terabyte", "terabytes", "TB", "TiB")
	add("petabyte", "petabytes", "PB")
	add("kilobit per second", "kilobits per second", "kbps", "kbit/s")
	add("megabit per second", "megabits per second", "Mbps", "Mbit/s")
	add("gigabit per second", "gigabits per second", "Gbps", "Gbit/s")
	add("kilobyte per second", "kilobytes per second", "KB/s", "kB/s")
	add("megabyte per second", "megabytes per second", "MB/s")
	add("gigabyte per second", "gigabytes per second", "GB/s")
	add("watt", "watts", "W")
	add("kilowatt", "kilowatts", "kW")
	add("megawatt", "megawatts", "MW")
	add("kilowatt hour", "kilowatt hours", "kWh")
	add("volt", "volts", "V")
	add("milliamp hour", "milliamp hours", "mAh")
	add("mile per hour", "miles per hour", "mph")
	add("kilometer per hour", "kilometers per hour", "km/h", "kph", "kmh")
	add("meter per second", "meters per second", "m/s")
	add("pixel", "pixels", "px")
	add("decibel", "decibels", "dB")
	add("calorie", "calories", "cal")
	add("kilocalorie", "kilocalories", "kcal")
	add("square meter", "square meters", "m²", "m2", "sqm")
	add("square kilometer", "square kilometers", "km²", "km2")
	add("square foot", "square feet", "sq ft", "ft²")
	add("cubic meter", "cubic meters", "m³", "m3")
	return u
}()

// ---- abbreviations ----

// titles are read as words before a name; streets after one.
var (
	enTitles = map[string]string{"Dr": "Doctor", "Mr": "Mister", "Mrs": "Missus", "Ms": "Miz", "Prof": "Professor",
		"St": "Saint", "Mt": "Mount", "Gen": "General", "Capt": "Captain", "Rev": "Reverend", "Sgt": "Sergeant",
		"Lt": "Lieutenant", "Col": "Colonel", "Gov": "Governor", "Sen": "Senator", "Rep": "Representative",
		"Pres": "President", "Ft": "Fort", "Hon": "Honorable", "Fr": "Father"}
	enStreets = map[string]string{"Dr": "Drive", "St": "Street", "Ave": "Avenue", "Rd": "Road", "Blvd": "Boulevard",
		"Ln": "Lane", "Ct": "Court", "Pl": "Place", "Sq": "Square", "Hwy": "Highway", "Pkwy": "Parkway", "Mt": "Mount"}
	// enBeforeNumber are read as words before a number: "p. 42".
	enBeforeNumber = map[string]string{"p": "page", "pp": "pages", "No": "number", "no": "number", "Nos": "numbers",
		"fig": "figure", "Fig": "figure", "vol": "volume", "Vol": "volume", "ch": "chapter", "Ch": "chapter",
		"sec": "section", "Sec": "section", "art": "article", "Art": "article", "ed": "edition", "ep": "episode", "Ep": "episode",
		"approx": "approximately", "ca": "circa", "c": "circa",
		"Apt": "apartment", "apt": "apartment", "Rm": "room", "Bldg": "building", "Ste": "suite"}
	// enAnywhere are read as words wherever they stand, with their period.
	enAnywhere = map[string]string{"vs": "versus", "etc": "et cetera", "e.g": "for example", "i.e": "that is",
		"approx": "approximately", "Inc": "Incorporated", "Ltd": "Limited", "Corp": "Corporation", "Jr": "Junior",
		"Sr": "Senior", "dept": "department", "Dept": "department", "est": "established", "min": "minimum",
		"max": "maximum", "a.k.a": "also known as", "w/o": "without", "incl": "including", "govt": "government",
		"U.S": "U S", "U.K": "U K", "U.N": "U N", "E.U": "E U", "a.m": "a m", "p.m": "p m", "Ph.D": "P h D",
		"Mon": "Monday", "Tue": "Tuesday", "Tues": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday", "Thurs": "Thursday",
		"Fri": "Friday", "Sat": "Saturday", "Sun": "Sunday"}
)

// enTitlePair reports a title that shares the name after the next one:
// the "Mr." of "Mr. and Mrs. Jones" ("Mr. & Mrs.", "Gen. and Col.").
func enTitlePair(n *normalizer, i int) bool {
	and := n.core(i + 1)
	return (and == "and" || and == "&") && n.lead(i+1) == "" && enTitles[n.core(i+2)] != "" &&
		strings.HasPrefix(n.trail(i+2), ".") && isCapitalized(n.core(i+3)) && n.lead(i+3) == ""
}

func isCapitalized(s string) bool {
	r := firstRune(s)
	return unicode.IsUpper(r)
}

func enAbbreviation(n *normalizer, i int) (int, string) {
	c := n.core(i)
	dotted := strings.HasPrefix(n.trail(i), ".")
	next := n.core(i + 1)
	nextNumber := len(next) > 0 && (next[0] >= '0' && next[0] <= '9')
	if say, ok := enBeforeNumber[c]; ok && (dotted || c == "No") && nextNumber && n.lead(i+1) == "" && (dotted || n.joined(i)) {
		n.eatDot = dotted
		return 1, say
	}
	if c == "vs" {
		n.eatDot = dotted
		return 1, "versus"
	}
	if !dotted {
		if c == "w/" {
			return 1, "with"
		}
		return 0, ""
	}
	prevName := i > 0 && isCapitalized(n.core(i-1)) && n.trail(i-1) == ""
	nextName := isCapitalized(next) && n.lead(i+1) == "" || enTitlePair(n, i)
	say, ok := "", false
	switch {
	case enTitles[c] != "" && nextName && (!prevName || enStreets[c] == ""):
		say, ok = enTitles[c], true
	case enStreets[c] != "" && prevName:
		say, ok = enStreets[c], true
	case enTitles[c] != "" && nextName:
		say, ok = enTitles[c], true
	default:
		say, ok = enAnywhere[c]
	}
	if !ok {
		return 0, ""
	}
	n.eatDot = true
	return 1, say
}

// ---- Roman numerals ----

// enRoman: "Chapter IV" is "Chapter four", "Henry VIII" is "Henry the
// eighth", and so is a numeral of two letters or more after any
// capitalized name ("Martin Luther King III").
var enRoman = &romanWords{
	counted: words("chapter part volume vol book act scene section article war phase level stage round bowl title " +
		"appendix type class grade episode season schedule psalm canto movement apollo"),
	regnal: words("Henry Elizabeth Louis Charles George Edward William James John Paul Pius Leo Gregory Benedict " +
		"Innocent Richard Mary Anne Catherine Peter Ivan Frederick Philip Alexander Nicholas Victor Ferdinand " +
		"Constantine Napoleon Ramesses Otto Gustav Olaf Harald Haakon Christian Juan Felipe Alfonso Umberto Clement " +
		"Urban Boniface Sixtus Francis Carlos David Robert Malcolm Alexios Basil Rudolf Sigismund Wilhelm Friedrich"),
	anyName: true,
	count:   enCardinal,
	rank:    func(_ string, v int64) string { return "the " + enOrdinal(v) },
}

// ---- initialisms ----

// enAcronyms are initialisms said as words; enSpelled are words spelled
// though they hold vowels; enShout are capitalized words read as words.
var (
	enAcronyms = map[string]bool{"NASA": true, "NATO": true, "JSON": true, "UNESCO": true, "UNICEF": true, "LASER": true,
		"RADAR": true, "SCUBA": true, "AIDS": true, "FIFA": true, "OPEC": true, "GIF": true, "JPEG": true, "PIN": true,
		"ROM": true, "RAM": true, "SIM": true, "WAN": true, "LAN": true, "CAPTCHA": true, "YAML": true, "ASCII": true,
		"IKEA": true, "NASDAQ": true, "COVID": true, "NAFTA": true, "OSHA": true, "FEMA": true, "POTUS": true,
		"SCOTUS": true, "DARPA": true, "AWOL": true, "ZIP": true, "SWAT": true, "TOML": true, "UEFA": true,
		"NAND": true, "GUI": false, "SQL": false, "WASM": true, "CORS": true, "REST": true, "SOAP": true, "ESPN": false,
		"NOAA": true, "INTERPOL": true, "EULA": true, "MIDI": true, "SONAR": true, "TESOL": true, "VAT": false, "PAC": true}
	enShout = map[string]bool{"I": true, "A": true, "OK": true, "TV": false, "AM": true, "PM": true, "AN": true, "AS": true, "AT": true,
		"BE": true, "BY": true, "DO": true, "GO": true, "HE": true, "IF": true, "IN": true, "IS": true, "IT": true, "ME": true,
		"MY": true, "NO": true, "OF": true, "OH": true, "ON": true, "OR": true, "SO": true, "TO": true, "UP": true, "US": false,
		"WE": true, "ALL": true, "AND": true, "ANY": true, "ARE": true, "BAD": true, "BIG": true, "BUT": true, "CAN": true,
		"DAY": true, "DID": true, "FOR": true, "GET": true, "GOT": true, "HAS": true, "HER": true, "HIM": true, "HIS": true,
		"HOW": true, "ITS": true, "LET": true, "MAY": true, "NEW": true, "NOT": true, "NOW": true, "OLD": true, "ONE": true,
		"OUR": true, "OUT": true, "RUN": true, "SAY": true, "SEE": true, "SHE": true, "THE": true, "TOO": true, "TWO": true,
		"USE": true, "WAS": true, "WAY": true, "WHO": true, "WHY": true, "YES": true, "YET": true, "YOU": true, "BOX": true,
		"END": true, "FUN": true, "HOT": true, "LOW": true, "MAN": true, "OFF": true, "RED": true, "SET": true, "TOP": true,
		"WIN": true, "WOW": true, "YAY": true, "AWE": true, "AGO": true, "AGE": true, "AID": true, "AIM": true, "AIR": true,
		"ART": true, "ASK": true, "BED": true, "BOY": true, "BUY": true, "CAR": true, "CUT": true, "DOG": true, "EAT": true,
		"EYE": true, "FAR": true, "FEW": true, "FLY": true, "GOD": true, "GUY": true, "HAT": true, "ICE": true, "JOB": true,
		"KEY": true, "LAW": true, "LAY": true, "LEG": true, "LIE": true, "LOT": true, "MEN": true, "MIX": true, "OWN": true,
		"PAY": true, "PUT": true, "SAD": true, "SEA": true, "SIT": true, "SKY": true, "SON": true, "SUN": true, "TEN": true,
		"TRY": true, "WAR": true, "WET": true, "ODD": true, "OIL": true}
)

var upperRE = regexp.MustCompile(`^([A-Z]{2,5})(s|'s)?$`)

// initialism spells letters of an initialism: "FBI" is "F B I", "APIs"
// "A P I's", while acronyms said as words ("NASA") and capitalized words
// ("HELLO") stay.
func initialism(c string) (int, string) {
	m := upperRE.FindStringSubmatch(c)
	if m == nil {
		return 0, ""
	}
	w := m[1]
	if spell, ok := enAcronyms[w]; ok {
		if !spell {
			return 1, spellLetters(w) + pluralLetters(m[2])
		}
		return 0, ""
	}
	if enShout[w] {
		return 0, ""
	}
	vowels := strings.ContainsAny(w, "AEIOU")
	if len(w) <= 3 || !vowels || len(w) == 4 && !strings.ContainsAny(w[1:3], "AEIOUY") {
		return 1, spellLetters(w) + pluralLetters(m[2])
	}
	return 0, ""
}

func pluralLetters(suffix string) string {
	if suffix == "" {
		return ""
	}
	return "'s"
}
