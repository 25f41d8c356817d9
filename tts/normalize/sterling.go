package normalize

import (
	"regexp"
	"strings"
)

// Pre-decimal British money, as public-domain books write it: "3s. 6d."
// is "three shillings and sixpence", "£1 3s." "one pound three
// shillings", "6d." "sixpence", "½d." "a halfpenny". Shillings are read
// so only beside pence or after pounds ("3s." alone stays seconds); pence
// need their period, or shillings or pounds before them ("the 2d
// Regiment" is left alone).

var (
	shillingsRE = regexp.MustCompile(`^(\d{1,3})s$`)
	penceRE     = regexp.MustCompile(`^(\d{1,2}|½|\d{1,2}½)d$`)
	poundsRE    = regexp.MustCompile(`^£\d[\d,]*$`)
	sdRE        = regexp.MustCompile(`^(\d{1,3})s\.?(\d{1,2}|½|\d{1,2}½)d$`) // "2s.6d"
)

// sterling reads pre-decimal money (language.predecimal).
func (l *language) sterling(n *normalizer, i int) (int, string) {
	if !l.predecimal {
		return 0, ""
	}
	c := n.core(i)
	if m := sdRE.FindStringSubmatch(c); m != nil {
		n.eatDot = true
		return 1, l.shillings(m[1]) + " " + l.and + " " + l.pence(m[2])
	}
	afterPounds := poundsRE.MatchString(n.core(i-1)) && n.joined(i-1)
	if m := shillingsRE.FindStringSubmatch(c); m != nil {
		next := i + 1
		if next < len(n.words) && (n.trail(i) == "." || n.trail(i) == "") && n.lead(next) == "" && !n.words[next].tag {
			if p := penceRE.FindStringSubmatch(n.core(next)); p != nil {
				n.eatDot = true
				return 2, l.shillings(m[1]) + " " + l.and + " " + l.pence(p[1])
			}
		}
		if afterPounds {
			n.eatDot = true
			return 1, l.shillings(m[1])
		}
		return 0, ""
	}
	if m := penceRE.FindStringSubmatch(c); m != nil && (afterPounds || strings.HasPrefix(n.trail(i), ".")) {
		n.eatDot = true
		return 1, l.pence(m[1])
	}
	return 0, ""
}

// shillings reads a count of shillings: "one shilling", "ten shillings".
func (l *language) shillings(digits string) string {
	if k := atoi(digits); k != 1 {
		return l.cardinal(int64(k)) + " shillings"
	}
	return "one shilling"
}

// pence reads a count of pence as it was said: "a halfpenny", "one penny",
// "sixpence", "twopence halfpenny", "fifteen pence".
func (l *language) pence(p string) string {
	half := strings.HasSuffix(p, "½")
	p = strings.TrimSuffix(p, "½")
	if p == "" {
		return "a halfpenny"
	}
	k := atoi(p)
	var say string
	switch {
	case k == 0:
		say = ""
	case k == 1:
		say = "one penny"
		if half {
			return "three halfpence"
		}
	case k < 12:
		say = l.cardinal(int64(k)) + "pence"
	default:
		say = l.cardinal(int64(k)) + " pence"
	}
	if half {
		if say == "" {
			return "a halfpenny"
		}
		return say + " halfpenny"
	}
	return say
}
