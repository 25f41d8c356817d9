package normalize

import (
	"slices"
	"strconv"
	"strings"
)

// number is a parsed numeral: its sign, whole digits and fraction digits.
type number struct {
	neg        bool
	whole      string // digits, no grouping
	frac       string // digits after the decimal separator; "" for none
	hasPoint   bool
	grouped    bool // written with thousands separators
	plusSigned bool
	bare       bool // written without its whole part: ".5"
}

// value returns the whole part, false when it does not fit an int64.
func (x number) value() (int64, bool) {
	v, err := strconv.ParseInt(x.whole, 10, 64)
	return v, err == nil
}

// isInt reports a number without fraction.
func (x number) isInt() bool { return !x.hasPoint }

// one reports the number 1 exactly, which takes a singular unit.
func (x number) one() bool { return x.whole == "1" && !x.hasPoint && !x.neg }

// parseNumber reads s as a numeral of language l: an optional sign,
// digits with l's thousands separator in groups of three, and l's
// decimal separator with digits.
func parseNumber(s string, l *language) (number, bool) {
	var x number
	switch {
	case strings.HasPrefix(s, "-"), strings.HasPrefix(s, "−"):
		x.neg = true
		s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "−")
	case strings.HasPrefix(s, "+"):
		x.plusSigned = true
		s = s[1:]
	}
	if s == "" {
		return number{}, false
	}
	whole, frac, hasPoint := strings.Cut(s, string(l.decimal))
	if hasPoint && (frac == "" || !digits(frac)) {
		return number{}, false
	}
	if whole == "" {
		if !hasPoint {
			return number{}, false
		}
		whole, x.bare = "0", true
	}
	if digits(whole) {
		x.whole = whole
	} else {
		groups := strings.Split(whole, string(l.group))
		if len(groups) < 2 || len(groups[0]) == 0 || len(groups[0]) > 3 || !digits(groups[0]) {
			return number{}, false
		}
		for _, g := range groups[1:] {
			if len(g) != 3 || !digits(g) {
				return number{}, false
			}
		}
		x.whole, x.grouped = strings.Join(groups, ""), true
	}
	x.frac, x.hasPoint = frac, hasPoint
	return x, true
}

// digits reports a non-empty run of ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// atoi returns the value of a short run of digits.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// spellDigits reads each digit of s as a word of l.
func spellDigits(s string, l *language) string {
	words := make([]string, 0, len(s))
	for _, c := range s {
		if c >= '0' && c <= '9' {
			words = append(words, l.digit[c-'0'])
		}
	}
	return strings.Join(words, " ")
}

// sayNumber reads x in full: sign, whole part (digit by digit when it is
// too long to be a quantity) and fraction.
func sayNumber(x number, l *language) string {
	var parts []string
	if x.neg {
		parts = append(parts, l.minus)
	}
	v, ok := x.value()
	if x.bare {
		return strings.Join(append(parts, l.point, l.sayFraction(x.frac)), " ")
	}
	if ok && v < 1e15 && (len(x.whole) == 1 || x.whole[0] != '0') {
		parts = append(parts, l.cardinal(v))
	} else {
		parts = append(parts, spellDigits(x.whole, l))
	}
	if x.hasPoint {
		parts = append(parts, l.point, l.sayFraction(x.frac))
	}
	return strings.Join(parts, " ")
}

// sayFraction reads the digits after a decimal separator: one by one, or
// as a number after the zeros that lead it ("0,05": "zéro virgule zéro
// cinq").
func (l *language) sayFraction(d string) string {
	rest := strings.TrimLeft(d, "0")
	if !l.fractionAsNumber || len(rest) > 6 {
		return spellDigits(d, l)
	}
	words := slices.Repeat([]string{l.digit[0]}, len(d)-len(rest))
	if rest != "" {
		words = append(words, l.cardinal(int64(atoi(rest))))
	}
	return strings.Join(words, " ")
}

// sayDuration reads hours, minutes and seconds: "one hour, thirty minutes
// and fifteen seconds".
func (l *language) sayDuration(h, m, s int) string {
	part := func(n int, u unit) string {
		name := u.many
		if n == 1 {
			name = u.one
		}
		return l.cardinal(int64(n)) + " " + name
	}
	return part(h, l.hour) + ", " + part(m, l.minute) + " " + l.and + " " + part(s, l.second)
}
