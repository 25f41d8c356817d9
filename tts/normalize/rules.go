package normalize

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// rewrite reads the word at i and maybe those after it. It returns how
// many words it read and what to say for them; 0 leaves word i as it is.
func (l *language) rewrite(n *normalizer, i int) (int, string) {
	for _, rule := range []func(*language, *normalizer, int) (int, string){
		(*language).address,
		(*language).phone,
		(*language).shortNumber,
		(*language).rangeOf,
		(*language).perUnit,
		(*language).sterling,
		(*language).money,
		(*language).dateRule,
		(*language).timeRule,
		(*language).ordinalRule,
		(*language).measure,
		(*language).numeral,
		(*language).unitAfterNumber,
		(*language).abbreviationRule,
		(*language).romanRule,
		(*language).initialismRule,
		(*language).symbol,
	} {
		if used, say := rule(l, n, i); used > 0 {
			return used, say
		}
	}
	return 0, ""
}

// ---- addresses ----

var (
	emailRE  = regexp.MustCompile(`^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$`)
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://`)
	domainRE = regexp.MustCompile(`^(www\.)?[A-Za-z0-9-]{2,}(\.[A-Za-z0-9-]+)*\.(com|org|net|io|dev|ai|gov|edu|co|uk|de|fr|es|it|nl|eu|us|ca|au|jp|cn|ru|in|app|info|biz|me|tv|xyz|sh|ly|gg)(/\S*)?$`)
	fileRE   = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.(pdf|txt|docx?|xlsx?|pptx?|csv|json|ya?ml|toml|xml|html?|css|js|ts|go|py|rb|rs|java|c|h|cpp|md|png|jpe?g|gif|svg|webp|mp3|mp4|wav|flac|ogg|opus|zip|tar|gz|exe|sh|log|ini|cfg|conf)$`)
)

// extensionWords are file extensions read as words; the others are
// spelled.
var extensionWords = map[string]bool{"json": true, "yaml": true, "toml": true, "zip": true, "gif": true, "java": true, "tar": true, "conf": true, "log": true, "webp": true, "opus": true, "flac": true, "ogg": true, "jpeg": true}

func (l *language) address(n *normalizer, i int) (int, string) {
	c := n.core(i)
	if len(c) < 4 || !strings.ContainsAny(c, ".@/") {
		return 0, ""
	}
	switch {
	case emailRE.MatchString(c):
		local, domain, _ := strings.Cut(c, "@")
		return 1, l.sayAddress(local) + " " + l.names.at + " " + l.sayAddress(domain)
	case schemeRE.MatchString(c):
		rest := c[strings.Index(c, "://")+3:]
		if scheme := strings.ToLower(c[:strings.Index(c, "://")]); scheme != "http" && scheme != "https" {
			return 1, spellLetters(scheme) + " " + l.names.colon + " " + l.names.slash + " " + l.names.slash + " " + l.sayAddress(rest)
		}
		return 1, l.sayAddress(strings.TrimSuffix(rest, "/"))
	case domainRE.MatchString(c):
		return 1, l.sayAddress(strings.TrimSuffix(c, "/"))
	case fileRE.MatchString(c):
		dot := strings.LastIndexByte(c, '.')
		ext := strings.ToLower(c[dot+1:])
		say := spellLetters(ext)
		if extensionWords[ext] {
			say = ext
		}
		return 1, l.sayAddress(c[:dot]) + " " + l.names.dot + " " + say
	}
	return 0, ""
}

// sayAddress reads an address: its punctuation by name, its numbers as
// numbers, "www" spelled.
func (l *language) sayAddress(s string) string {
	var out []string
	names := map[rune]string{'.': l.names.dot, '/': l.names.slash, '@': l.names.at, ':': l.names.colon, '-': l.names.dash, '_': l.names.underscore,
		'?': "?", '=': "=", '&': l.and, '#': "#", '~': "~", '+': l.plus, '%': l.percent}
	for s != "" {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case unicode.IsLetter(r):
			j := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
			if j < 0 {
				j = len(s)
			}
			w := s[:j]
			if strings.EqualFold(w, "www") {
				w = "w w w"
			}
			out = append(out, w)
			s = s[j:]
		case r >= '0' && r <= '9':
			j := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
			if j < 0 {
				j = len(s)
			}
			if j <= 4 && s[0] != '0' {
				out = append(out, l.cardinal(int64(atoi(s[:j]))))
			} else {
				out = append(out, spellDigits(s[:j], l))
			}
			s = s[j:]
		default:
			if name, ok := names[r]; ok && name != "?" && name != "=" && name != "#" && name != "~" {
				out = append(out, name)
			}
			s = s[size:]
		}
	}
	return strings.Join(out, " ")
}

// spellLetters reads a word letter by letter: "pdf" is "p d f".
func spellLetters(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ---- telephone numbers ----

var (
	phoneRE      = regexp.MustCompile(`^\+?(\d{1,3}[-. ])?\(?\d{3}\)?[-.]\d{3}[-.]\d{4}$`)
	phoneShortRE = regexp.MustCompile(`^\d{3}-\d{4}$`)
	areaRE       = regexp.MustCompile(`^\(\d{3}\)$`)
	countryRE    = regexp.MustCompile(`^\+\d{1,3}$`)
)

func (l *language) phone(n *normalizer, i int) (int, string) {
	c := n.core(i)
	next := func(k int) string { // word i+k's core when only a space parts it from the one before
		if i+k < len(n.words) && n.lead(i+k) == "" && (n.trail(i+k-1) == "" || k == 1 && n.trail(i) == ")") {
			return n.core(i + k)
		}
		return ""
	}
	switch {
	case phoneRE.MatchString(c), phoneShortRE.MatchString(c) && !isRange(c):
		return 1, l.sayPhone(c)
	case len(c) == 3 && digits(c) && n.lead(i) == "(" && n.trail(i) == ")" && phoneShortRE.MatchString(next(1)):
		return 2, l.sayPhone(c + " " + next(1)) // "(555) 123-4567"
	case countryRE.MatchString(c):
		used := 1
		for used < 6 && len(next(used)) >= 2 && len(next(used)) <= 4 && digits(next(used)) {
			used++
		}
		if used >= 3 {
			groups := []string{c}
			for k := 1; k < used; k++ {
				groups = append(groups, n.core(i+k))
			}
			return used, l.sayPhone(strings.Join(groups, " "))
		}
	case len(c) == 3 && digits(c) && len(next(1)) == 3 && digits(next(1)) && len(next(2)) == 4 && digits(next(2)):
		return 3, l.sayPhone(c + " " + next(1) + " " + next(2))
	}
	return 0, ""
}

// isRange reports whether "ddd-dddd" reads better as a range than as a
// local telephone number: both ends round, the first below the second
// ("250-1500"; "555-0142" is a telephone number).
func isRange(c string) bool {
	a, b, _ := strings.Cut(c, "-")
	x, y := atoi(a), atoi(b)
	return b[0] != '0' && x < y && x%10 == 0 && y%10 == 0
}

// shortNumber reads an emergency or service number digit by digit
// ("911" is "nine one one"): always when the language says so, the
// others after a word of calling, perhaps with one or two short words
// between ("call 112", "Ruf die 110 an", "appelez le 15").
func (l *language) shortNumber(n *normalizer, i int) (int, string) {
	c := n.core(i)
	always, ok := l.emergency[c]
	if !ok || n.lead(i) != "" {
		return 0, ""
	}
	called := false
	for k := i - 1; k >= 0 && k >= i-3 && n.trail(k) == "" && !called; k-- {
		w := strings.ToLower(n.core(k))
		called = l.callWords[w]
		if !called && (len(w) > 4 || k == i-3) {
			break
		}
	}
	if always || called {
		return 1, spellDigits(c, l)
	}
	return 0, ""
}

// sayPhone reads a telephone number digit by digit, its groups parted by
// commas.
func (l *language) sayPhone(s string) string {
	var groups []string
	for _, g := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '.' || r == ' ' || r == '(' || r == ')' || r == '/' }) {
		if strings.HasPrefix(g, "+") {
			groups = append(groups, l.plus+" "+spellDigits(g[1:], l))
			continue
		}
		groups = append(groups, spellDigits(g, l))
	}
	return strings.Join(groups, ", ")
}

// ---- money ----

var (
	symbolFirstRE = regexp.MustCompile(`^(-?)([$€£¥₹])([0-9][0-9.,]*)(k|K|m|M|mn|bn|b|B|tn)?$`)
	symbolLastRE  = regexp.MustCompile(`^(-?[0-9][0-9.,]*)([$€£¥₹])$`)
)

func (l *language) money(n *normalizer, i int) (int, string) {
	c := n.core(i)
	if m := symbolFirstRE.FindStringSubmatch(c); m != nil {
		x, ok := parseNumber(m[3], l)
		cur, known := l.currencies[m[2]]
		if !ok || !known {
			return 0, ""
		}
		x.neg = m[1] == "-"
		scale := l.scales[m[4]]
		used := 1
		if scale == "" && n.joined(i) {
			if s, ok := l.scales[strings.ToLower(n.core(i+1))]; ok && len(n.core(i+1)) > 2 {
				scale, used = s, 2
			}
		}
		return used, l.sayMoney(x, cur, scale)
	}
	if m := symbolLastRE.FindStringSubmatch(c); m != nil {
		if x, ok := parseNumber(m[1], l); ok {
			if cur, ok := l.currencies[m[2]]; ok {
				return 1, l.sayMoney(x, cur, "")
			}
		}
	}
	// "5 €", and "USD 5".
	if x, ok := parseNumber(c, l); ok && n.joined(i) {
		if cur, ok := l.currencies[n.core(i+1)]; ok && utf8.RuneCountInString(n.core(i+1)) == 1 {
			return 2, l.sayMoney(x, cur, "")
		}
	}
	if cur, ok := l.currencies[c]; ok && len(c) == 3 && n.joined(i) {
		if x, ok := parseNumber(n.core(i+1), l); ok {
			return 2, l.sayMoney(x, cur, "")
		}
	}
	return 0, ""
}

// sayMoney reads an amount: "nine dollars and fifty cents", "two point
// five million euros".
func (l *language) sayMoney(x number, cur currency, scale string) string {
	sign := ""
	if x.neg {
		sign, x.neg = l.minus+" ", false
	}
	if scale != "" {
		return sign + sayNumber(x, l) + " " + scale + " " + cur.many
	}
	name := cur.many
	if x.one() {
		name = cur.one
	}
	if !x.hasPoint || cur.subMany == "" || len(x.frac) != 2 {
		return sign + l.count(x) + " " + name
	}
	cents, centDigits := int64(atoi(x.frac)), strings.TrimLeft(x.frac, "0")
	sub := cur.subMany
	if cents == 1 {
		sub = cur.subOne
	}
	x.hasPoint, x.frac = false, ""
	switch {
	case cents == 0:
		if x.one() {
			return sign + l.count(x) + " " + cur.one
		}
		return sign + l.count(x) + " " + cur.many
	case x.whole == "0":
		return sign + l.count(number{whole: centDigits}) + " " + sub
	}
	if x.one() {
		name = cur.one
	} else {
		name = cur.many
	}
	and := l.and
	if l.moneyAnd != "" {
		and = l.moneyAnd
	}
	return sign + l.count(x) + " " + name + " " + and + " " + l.count(number{whole: centDigits}) + " " + sub
}

// ---- dates ----

var (
	isoDateRE    = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)
	slashDateRE  = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})/(\d{4})$`)
	dottedDateRE = regexp.MustCompile(`^(\d{1,2})\.(\d{1,2})\.(\d{4})$`)
	dayRE        = regexp.MustCompile(`^(\d{1,2})(st|nd|rd|th|er|e|º|ª)?$`)
)

func validDate(m, d int) bool { return m >= 1 && m <= 12 && d >= 1 && d <= 31 }

func (l *language) dateRule(n *normalizer, i int) (int, string) {
	used, say := l.dateOf(n, i)
	if used > 0 && l.inflectDate != nil {
		say = l.inflectDate(n, i, say)
	}
	return used, say
}

func (l *language) dateOf(n *normalizer, i int) (int, string) {
	c := n.core(i)
	if m := isoDateRE.FindStringSubmatch(c); m != nil && validDate(atoi(m[2]), atoi(m[3])) {
		return 1, l.date(atoi(m[1]), atoi(m[2]), atoi(m[3]), l.dayFirst)
	}
	if m := slashDateRE.FindStringSubmatch(c); m != nil {
		a, b := atoi(m[1]), atoi(m[2])
		month, day := a, b
		if l.dayFirst && a <= 31 && b <= 12 || a > 12 {
			month, day = b, a
		}
		if validDate(month, day) {
			return 1, l.date(atoi(m[3]), month, day, l.dayFirst || a > 12)
		}
	}
	if m := dottedDateRE.FindStringSubmatch(c); m != nil && validDate(atoi(m[2]), atoi(m[1])) {
		return 1, l.date(atoi(m[3]), atoi(m[2]), atoi(m[1]), true)
	}
	// "November 24, 2026", "Nov. 24", "24 November 2026".
	if month := l.monthOf(c, n.trail(i)); month > 0 && n.joined(i) || month > 0 && strings.HasPrefix(n.trail(i), ".") {
		if d := dayRE.FindStringSubmatch(n.core(i + 1)); d != nil && atoi(d[1]) >= 1 && atoi(d[1]) <= 31 && n.lead(i+1) == "" {
			used, year := 2, 0
			if y := n.core(i + 2); len(y) == 4 && digits(y) && (n.joined(i+1) || n.trail(i+1) == ",") && n.lead(i+2) == "" {
				used, year = 3, atoi(y)
			}
			return used, l.date(year, month, atoi(d[1]), false)
		}
	}
	if d := dayRE.FindStringSubmatch(c); d != nil && n.joined(i) && atoi(d[1]) >= 1 && atoi(d[1]) <= 31 {
		if month := l.monthOf(n.core(i+1), n.trail(i+1)); month > 0 && len(n.core(i+1)) >= 3 {
			used, year := 2, 0
			// "5 Jan. 2020": the abbreviation's period is no sentence end.
			if y := n.core(i + 2); len(y) == 4 && digits(y) && (n.joined(i+1) || n.trail(i+1) == "." && n.lead(i+2) == "") {
				used, year = 3, atoi(y)
			}
			return used, l.date(year, month, atoi(d[1]), true)
		}
	}
	return 0, ""
}

// monthOf returns the month a word names (1 to 12), 0 for none. An
// abbreviation counts only with its period, or as three letters in upper
// case first ("Nov").
func (l *language) monthOf(core, trail string) int {
	low := strings.ToLower(core)
	for k, m := range l.months {
		if low == strings.ToLower(m) {
			return k + 1
		}
	}
	if m, ok := l.monthAbbr[low]; ok && (strings.HasPrefix(trail, ".") || unicode.IsUpper(firstRune(core))) {
		return m
	}
	return 0
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// ---- times ----

var (
	clockRE   = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?i:(am|pm|a\.m|p\.m|h))?$`)
	secondsRE = regexp.MustCompile(`^(\d{1,2}):(\d{2}):(\d{2})$`)
	hourAmRE  = regexp.MustCompile(`^(\d{1,2})(?i:(am|pm|a\.m|p\.m))$`)
	frHourRE  = regexp.MustCompile(`^(\d{1,2})h(\d{2})?$`)
	ratioRE   = regexp.MustCompile(`^(\d{1,4}):(\d{1,4})$`)
)

// ampm returns "am" or "pm" for the ways they are written, "" otherwise.
func ampm(core, trail string) string {
	s := strings.ToLower(strings.ReplaceAll(core, ".", ""))
	if s == "am" || s == "pm" {
		if core == "AM" || core == "PM" || strings.Contains(core, ".") || core == "am" || core == "pm" {
			return s
		}
	}
	return ""
}

func (l *language) timeRule(n *normalizer, i int) (int, string) {
	if m := ratioRE.FindStringSubmatch(n.core(i)); m != nil && len(m[2]) != 2 {
		// "3:1", "16:9", "1:100": no clock has minutes of one or three digits.
		ratio := l.ratio
		if ratio == "" {
			ratio = l.to
		}
		return 1, l.cardinal(int64(atoi(m[1]))) + " " + ratio + " " + l.cardinal(int64(atoi(m[2])))
	}
	used, say := l.clockOf(n, i)
	if used > 0 && l.clockArticle != nil {
		h := atoi(strings.SplitN(n.core(i), ":", 2)[0])
		if a := l.clockArticle(h); !strings.EqualFold(n.core(i-1), a) {
			say = a + " " + say
		}
	}
	return used, say
}

func (l *language) clockOf(n *normalizer, i int) (int, string) {
	c := n.core(i)
	if m := clockRE.FindStringSubmatch(c); m != nil {
		h, min := atoi(m[1]), atoi(m[2])
		if h > 24 || min > 59 {
			return 0, ""
		}
		mark := strings.ToLower(strings.ReplaceAll(m[3], ".", ""))
		if mark == "h" {
			mark = ""
		}
		used := 1
		if mark == "" && n.joined(i) {
			if a := ampm(n.core(i+1), n.trail(i+1)); a != "" {
				mark, used = a, 2
				n.eatDotBefore(i + 2) // "3:30 p.m. on Friday"
			} else if l.clockWord != "" && n.core(i+1) == l.clockWord {
				used = 2 // "22:30 Uhr": the reading says "Uhr" already
			} else if n.core(i+1) == "h" && l.decimal == ',' {
				used = 2 // "14:30 h", as French and Spanish write it
				n.eatDot = true
			}
		}
		if used == 1 && mark != "" {
			n.eatDotBefore(i + 1)
		}
		return used, l.clock(h, min, mark)
	}
	if m := secondsRE.FindStringSubmatch(c); m != nil && atoi(m[2]) < 60 && atoi(m[3]) < 60 {
		return 1, l.sayDuration(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	}
	if m := hourAmRE.FindStringSubmatch(c); m != nil && atoi(m[1]) >= 1 && atoi(m[1]) <= 12 {
		n.eatDotBefore(i + 1)
		return 1, l.clock(atoi(m[1]), 0, strings.ToLower(strings.ReplaceAll(m[2], ".", "")))
	}
	if digits(c) && len(c) <= 2 && atoi(c) >= 1 && atoi(c) <= 12 && n.joined(i) {
		if a := ampm(n.core(i+1), n.trail(i+1)); a != "" {
			n.eatDotBefore(i + 2)
			return 2, l.clock(atoi(c), 0, a)
		}
	}
	if m := frHourRE.FindStringSubmatch(c); m != nil && l.decimal == ',' && atoi(m[1]) <= 24 && atoi(m[2]) < 60 {
		return 1, l.clock(atoi(m[1]), atoi(m[2]), "")
	}
	return 0, ""
}

// ---- ordinals and decades ----

func (l *language) ordinalRule(n *normalizer, i int) (int, string) {
	if l.ordinalAt != nil {
		if used, say := l.ordinalAt(n, i); used > 0 {
			return used, say
		}
	}
	c := n.core(i)
	if l.ordinalOf != nil {
		if say, ok := l.ordinalOf(c); ok {
			return 1, say
		}
	}
	if l.decades != nil {
		if say, ok := l.decades(c); ok {
			return 1, say
		}
	}
	return 0, ""
}

// ---- numbers with a unit, percent or degrees attached ----

var attachedRE = regexp.MustCompile(`^(-?[0-9][0-9.,]*)([^0-9.,].*)$`)

func (l *language) measure(n *normalizer, i int) (int, string) {
	c := n.core(i)
	m := attachedRE.FindStringSubmatch(c)
	if m == nil {
		return 0, ""
	}
	x, ok := parseNumber(m[1], l)
	if !ok {
		return 0, ""
	}
	suffix := m[2]
	switch {
	case suffix == "%":
		return 1, sayNumber(x, l) + " " + l.percent
	case suffix == "°" || suffix == "º" && l.decimal == '.':
		if scale := l.scaleName(n.core(i + 1)); scale != "" && n.joined(i) {
			return 2, sayNumber(x, l) + " " + l.degree.words(x) + " " + scale
		}
		return 1, sayNumber(x, l) + " " + l.degree.words(x)
	case suffix == "°C" || suffix == "℃":
		return 1, sayNumber(x, l) + " " + l.degree.words(x) + " " + l.celsius
	case suffix == "°F" || suffix == "℉":
		return 1, sayNumber(x, l) + " " + l.degree.words(x) + " " + l.fahrenheit
	case (suffix == "x" || suffix == "×") && l.times != "":
		return 1, sayNumber(x, l) + " " + l.times
	case suffix == "¢" && l.currencies["$"].subMany != "":
		return 1, sayNumber(x, l) + " " + unit{l.currencies["$"].subOne, l.currencies["$"].subMany}.words(x)
	}
	if houseNumber(n, i, x, suffix) {
		return 1, sayNumber(x, l) + " " + suffix
	}
	if u, ok := l.units[suffix]; ok {
		return 1, l.countOf(x, u) + " " + u.words(x)
	}
	// "1.2M users", "3bn people"; "k" and "K" stay, a 10K run and a 4K
	// screen are said that way.
	if scale, ok := l.scales[suffix]; ok && (len(suffix) > 1 || suffix == "M") {
		return 1, sayNumber(x, l) + " " + scale
	}
	return 0, ""
}

// houseNumber reports whether a number with a capital letter attached is
// a house, flat or seat number: before a name ("221B Baker Street", not
// "221 bytes") or after a word that numbers places ("Apt 4B").
func houseNumber(n *normalizer, i int, x number, suffix string) bool {
	if len(suffix) != 1 || suffix[0] < 'A' || suffix[0] > 'Z' || !x.isInt() || x.grouped {
		return false
	}
	next := n.core(i + 1)
	return n.joined(i) && isCapitalized(next) && strings.ToUpper(next) != next ||
		i > 0 && (n.trail(i-1) == "" || n.trail(i-1) == ".") && placeWords[strings.TrimSuffix(n.core(i-1), ".")]
}

// placeWords number flats, rooms and seats, in the languages there are
// rules for.
var placeWords = words("Apt apt Apartment apartment Flat flat Suite suite Unit unit Room room Seat seat Gate gate " +
	"Platform platform Row row Floor floor No Nr Wohnung Zimmer Sitz Platz Gleis Haus appartement chambre place porte " +
	"quai piso puerta habitación asiento andén")

// scaleName names the temperature scale a word writes ("C", "F"); "" for
// any other word.
func (l *language) scaleName(word string) string {
	switch word {
	case "C":
		return l.celsius
	case "F":
		return l.fahrenheit
	}
	return ""
}

// ---- ranges ----

var (
	// rangeEndRE is an end of a range rangeOf reads: a number, perhaps
	// after a currency sign and before what the rules read after one
	// ("$5", "10am", "15%", "75°F", "17:00").
	rangeEndRE = regexp.MustCompile(`^[$€£¥₹]?[0-9][0-9.,:]*[^-–]*$`)
	plainRE    = regexp.MustCompile(`^[0-9][0-9.,]*$`)
)

// rangeOf reads "A-B" whose ends the other rules read, with the
// language's "to" between them: "10-15%", "9-10am", "9am-5pm",
// "9:00-17:00", "70-75°F", "$5-$10". A bare number before the dash is
// said as a number and what follows the other end is said once ("nine to
// ten a m"). Ranges of two plain numbers are numeral's; an end no rule
// reads leaves the word as it is.
func (l *language) rangeOf(n *normalizer, i int) (int, string) {
	c := n.core(i)
	dash := strings.IndexAny(c, "-–")
	if dash <= 0 {
		return 0, ""
	}
	_, size := utf8.DecodeRuneInString(c[dash:])
	left, right := c[:dash], c[dash+size:]
	if say := l.namedRange(left, right); say != "" {
		return 1, say
	}
	if !rangeEndRE.MatchString(left) || !rangeEndRE.MatchString(right) || plainRE.MatchString(left) && plainRE.MatchString(right) {
		return 0, ""
	}
	a, b := l.sayAlone(left), l.sayAlone(right)
	if strings.ContainsAny(a+b, "0123456789") {
		return 0, ""
	}
	return 1, a + " " + l.to + " " + b
}

// namedRange reads a range of abbreviated days or months: "Mon-Fri" is
// "Monday to Friday", "Jan-Mar" "January to March".
func (l *language) namedRange(left, right string) string {
	a, okA := l.monthAbbr[strings.ToLower(left)]
	b, okB := l.monthAbbr[strings.ToLower(right)]
	if okA && okB && isCapitalized(left) {
		return l.months[a-1] + " " + l.to + " " + l.months[b-1]
	}
	if !isCapitalized(left) || !isCapitalized(right) || len(left) > 4 || len(right) > 4 {
		return ""
	}
	// With their periods, as abbreviations are written alone ("Mon.").
	sayA, sayB := strings.TrimSuffix(l.sayAlone(left+"."), "."), strings.TrimSuffix(l.sayAlone(right+"."), ".")
	if sayA == left || sayB == right || strings.Contains(sayA+sayB, " ") {
		return "" // "Jean-Paul"; only words such as weekdays, said as one word each
	}
	return sayA + " " + l.to + " " + sayB
}

// perUnitRE is an amount per unit written with a slash: "$3.50/lb",
// "€2/kg", "15/hr".
var perUnitRE = regexp.MustCompile(`^([$€£¥₹]?[0-9][0-9.,]*[€£]?)/([A-Za-z]+)$`)

// perUnit reads an amount per unit: "$3.50/lb" is "three dollars and
// fifty cents per pound".
func (l *language) perUnit(n *normalizer, i int) (int, string) {
	m := perUnitRE.FindStringSubmatch(n.core(i))
	if m == nil || l.per == "" {
		return 0, ""
	}
	u, ok := l.units[m[2]]
	if !ok {
		return 0, ""
	}
	amount := l.sayAlone(m[1])
	if strings.ContainsAny(amount, "0123456789") {
		return 0, ""
	}
	return 1, amount + " " + l.per + " " + u.one
}

// sayAlone reads one word by the language's rules, as if it stood alone.
func (l *language) sayAlone(w string) string {
	n := &normalizer{l: l, src: w, toks: tokenize(w)}
	n.run()
	return n.out.Text
}

// ---- plain numbers ----

var (
	rangeRE    = regexp.MustCompile(`^(-?[0-9][0-9.,]*)[-–—](-?[0-9][0-9.,]*)$`)
	fractionRE = regexp.MustCompile(`^(\d{1,3})/(\d{1,3})$`)
)

func (l *language) numeral(n *normalizer, i int) (int, string) {
	c := n.core(i)
	if c == "" || !(c[0] >= '0' && c[0] <= '9' || c[0] == '-' || c[0] == '+' || strings.HasPrefix(c, "−") || c[0] == '#' || c[0] == byte(l.decimal)) {
		return 0, ""
	}
	if strings.HasPrefix(c, "#") && l.numberSign != "" {
		if x, ok := parseNumber(c[1:], l); ok && x.isInt() {
			return 1, l.numberSign + " " + sayNumber(x, l)
		}
	}
	if m := fractionRE.FindStringSubmatch(c); m != nil {
		a, b := int64(atoi(m[1])), int64(atoi(m[2]))
		if c == "24/7" || c == "50/50" {
			return 1, l.cardinal(a) + " " + l.cardinal(b) // said as written, no "over"
		}
		if name := l.fractionName(a, b); name != "" && b != 0 {
			return 1, name
		}
		if validDate(int(a), int(b)) && !l.dayFirst || validDate(int(b), int(a)) && l.dayFirst {
			month, day := int(a), int(b)
			if l.dayFirst {
				month, day = day, month
			}
			return 1, l.date(0, month, day, l.dayFirst)
		}
		if b != 0 {
			return 1, l.cardinal(a) + " " + l.over + " " + l.cardinal(b)
		}
	}
	if m := rangeRE.FindStringSubmatch(c); m != nil && !strings.HasPrefix(c, "-") {
		x, ok1 := parseNumber(m[1], l)
		y, ok2 := parseNumber(m[2], l)
		if ok1 && ok2 {
			if isYear(x) && isYear(y) {
				a, _ := x.value()
				b, _ := y.value()
				return 1, l.year(a) + " " + l.to + " " + l.year(b)
			}
			return 1, sayNumber(x, l) + " " + l.to + " " + sayNumber(y, l)
		}
	}
	x, ok := parseNumber(c, l)
	if !ok {
		return 0, ""
	}
	used := 1
	// "1 234 567" where thousands are grouped by spaces.
	if l.groupSpace && x.isInt() && !x.grouped && len(x.whole) <= 3 {
		whole := c
		for n.joined(i+used-1) && groupRE.MatchString(n.core(i+used)) {
			whole += n.core(i + used)
			used++
		}
		if used > 1 {
			x, _ = parseNumber(whole, l)
			x.grouped = true
			// "2 500,50 €": money grouped by spaces.
			if cur, ok := l.currencies[n.core(i+used)]; ok && n.joined(i+used-1) && utf8.RuneCountInString(n.core(i+used)) == 1 {
				return used + 1, l.sayMoney(x, cur, "")
			}
		}
	}
	// "2 1/2": two and a half.
	if x.isInt() && !x.neg && n.joined(i) {
		if m := fractionRE.FindStringSubmatch(n.core(i + 1)); m != nil {
			if name := l.fractionName(int64(atoi(m[1])), int64(atoi(m[2]))); name != "" && atoi(m[1]) < atoi(m[2]) {
				return 2, sayNumber(x, l) + " " + l.and + " " + name
			}
		}
	}
	if v, _ := x.value(); isYear(x) && used == 1 && !n.unitFollows(l, i) && !(l.nounNotYear != nil && n.joined(i) && l.nounNotYear(n.core(i+1))) {
		return 1, l.year(v)
	}
	say := sayNumber(x, l)
	if l.nounGender != nil && x.isInt() && !x.neg && n.joined(i+used-1) {
		if g := l.nounGender(n.core(i + used)); g != 0 {
			say = l.oneBefore(say, g)
			if l.oneCase != nil {
				say = l.oneCase(n, i, say, g)
			}
		}
	}
	if n.unitFollows(l, i+used-1) {
		say = l.count(x)
		if u, ok := l.units[n.core(i+used)]; ok {
			say = l.countOf(x, u)
		}
	}
	if x.plusSigned {
		say = l.plus + " " + say
	}
	return used, say
}

// isYear reports a number written as a year: four digits from 1100 to
// 2099, no sign, no separators.
func isYear(x number) bool {
	v, ok := x.value()
	return ok && x.isInt() && !x.neg && !x.grouped && !x.plusSigned && len(x.whole) == 4 && v >= 1100 && v <= 2099
}

var groupRE = regexp.MustCompile(`^\d{3}(,\d+)?$`)

// count reads x before a noun (a unit, a currency).
func (l *language) count(x number) string {
	say := sayNumber(x, l)
	if l.beforeNoun != nil && !x.hasPoint {
		say = l.beforeNoun(say)
	}
	return say
}

// countOf reads x before the unit u, in its gender.
func (l *language) countOf(x number, u unit) string {
	if l.feminine[u.one] && !x.hasPoint {
		return l.feminize(sayNumber(x, l))
	}
	return l.count(x)
}

// unitFollows reports a unit or currency code after word i.
func (n *normalizer) unitFollows(l *language, i int) bool {
	if !n.joined(i) {
		return false
	}
	next := n.core(i + 1)
	_, unit := l.units[next]
	_, cur := l.currencies[next]
	return unit || cur
}

// unitAfterNumber reads a unit or currency code after a number: "12 km",
// "5 EUR", "20 °C".
func (l *language) unitAfterNumber(n *normalizer, i int) (int, string) {
	c := n.core(i)
	if i == 0 || !n.joined(i-1) {
		return 0, ""
	}
	prev := n.core(i - 1)
	if m := rangeRE.FindStringSubmatch(prev); m != nil {
		prev = m[2] // "5-10 km": the unit agrees with the range's end
	}
	x, ok := parseNumber(prev, l)
	if !ok {
		return 0, ""
	}
	if cur, ok := l.currencies[c]; ok && len(c) == 3 {
		if x.one() {
			return 1, cur.one
		}
		return 1, cur.many
	}
	switch c {
	case "°C", "℃":
		return 1, l.degree.words(x) + " " + l.celsius
	case "°F", "℉":
		return 1, l.degree.words(x) + " " + l.fahrenheit
	case "%":
		return 1, l.percent
	}
	if u, ok := l.units[c]; ok {
		return 1, u.words(x)
	}
	return 0, ""
}

// ---- abbreviations, Roman numerals, initialisms ----

func (l *language) abbreviationRule(n *normalizer, i int) (int, string) {
	if l.abbreviation == nil {
		return 0, ""
	}
	return l.abbreviation(n, i)
}

var romanRE = regexp.MustCompile(`^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$`)

// notRegnal are numerals that are more often words or initials than a
// name's number.
var notRegnal = words("MM CD DC CC MD DM LI MI DI CI XL")

// romanRule reads a Roman numeral after a counted word ("Chapter IV",
// "chapter IV") as a number and after a name ("Henry VIII") as the
// language says a ruler's number. The numeral "I" is read only after a
// capitalized counted word or a known name: elsewhere it is the pronoun.
func (l *language) romanRule(n *normalizer, i int) (int, string) {
	r := l.roman
	c := n.core(i)
	if r == nil || c == "" || !romanRE.MatchString(c) || i == 0 || n.trail(i-1) != "" || n.lead(i) != "" {
		return 0, ""
	}
	prev := strings.TrimSuffix(n.core(i-1), ".")
	v := romanValue(c)
	switch {
	case r.counted[strings.ToLower(prev)] && (c != "I" || isCapitalized(prev)):
		return 1, r.count(v)
	case r.regnal[prev], r.anyName && len(c) >= 2 && isCapitalized(prev) && !notRegnal[c]:
		n.eatDot = r.rankDot
		return 1, r.rank(prev, v)
	}
	return 0, ""
}

func romanValue(s string) int64 {
	values := map[byte]int64{'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}
	var total int64
	for k := 0; k < len(s); k++ {
		v := values[s[k]]
		if k+1 < len(s) && values[s[k+1]] > v {
			total -= v
		} else {
			total += v
		}
	}
	return total
}

// words makes a set of the words of a space-separated list.
func words(list string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(list) {
		set[w] = true
	}
	return set
}

func (l *language) initialismRule(n *normalizer, i int) (int, string) {
	if !l.initialisms {
		return 0, ""
	}
	return initialism(n.core(i))
}

func (l *language) symbol(n *normalizer, i int) (int, string) {
	if n.core(i) == "&" && n.lead(i) == "" && n.trail(i) == "" {
		return 1, l.and
	}
	return 0, ""
}
