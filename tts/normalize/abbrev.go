package normalize

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Abbreviations of German, French and Spanish: each language's usual
// list, read where a reader of that language expands them. An entry is
// keyed by the abbreviation as written, its parts joined without spaces
// ("z.B." for "z. B." and "z.B."), with its final period when it needs
// one ("usw.") and without when it is written without ("Mme").

// abbrevWhere says where an abbreviation is read.
type abbrevWhere int

const (
	anywhere     abbrevWhere = iota
	beforeName               // a title, before a capitalized word: "Dr. Weber"
	beforeNumber             // before a number: "Nr. 5", "pág. 12"
)

// abbrev is what an abbreviation is read as, and where.
type abbrev struct {
	say   string
	where abbrevWhere
	// elsewhere is read where the abbreviation is not before a name or a
	// number: German "Fr." is "Frau" before a name, else "Freitag".
	elsewhere string
	// phone: the digits after it are a telephone number, read digit by
	// digit in their groups ("Tel. 030 1234").
	phone bool
}

// abbrevLists are a language's abbreviations as "written=said" pairs,
// by where they are read. Written forms may hold spaces ("z. B."): a
// text may write them with or without.
type abbrevLists struct {
	anywhere, names, numbers []string
	// phones are read anywhere, and the digits after them as a telephone
	// number.
	phones []string
	// elsewhere are the titles read otherwise where no name follows
	// ("Fr.=Freitag").
	elsewhere []string
}

// table makes the lists one table, keyed by written form without spaces.
func (a abbrevLists) table() map[string]abbrev {
	t := map[string]abbrev{}
	key := func(written string) string { return strings.ReplaceAll(written, " ", "") }
	for _, l := range []struct {
		pairs []string
		where abbrevWhere
		phone bool
	}{{a.anywhere, anywhere, false}, {a.names, beforeName, false}, {a.numbers, beforeNumber, false}, {a.phones, anywhere, true}} {
		for _, p := range l.pairs {
			written, said, _ := strings.Cut(p, "=")
			t[key(written)] = abbrev{say: said, where: l.where, phone: l.phone}
		}
	}
	for _, p := range a.elsewhere {
		written, said, _ := strings.Cut(p, "=")
		e := t[key(written)]
		e.elsewhere = said
		t[key(written)] = e
	}
	return t
}

// abbreviationOf reads the abbreviation that starts at word i, of up to
// four words ("av. J.-C.", "v. Chr.", "u. a."), in the table abbrevs.
func (l *language) abbreviationOf(abbrevs map[string]abbrev) func(n *normalizer, i int) (int, string) {
	return func(n *normalizer, i int) (int, string) {
		key, start := "", sentenceStart(n, i)
		best, say, eat := 0, "", false
		for used := 1; used <= 4 && i+used-1 < len(n.words); used++ {
			k := i + used - 1
			if k > i && (n.lead(k) != "" || n.words[k].tag || n.trail(k-1) != ".") {
				break
			}
			key += n.core(k)
			dotted := strings.HasPrefix(n.trail(k), ".")
			a, ok, dot := abbrev{}, false, false
			if dotted {
				a, ok = lookupAbbrev(abbrevs, key+".", start)
				dot = ok
			}
			if !ok {
				a, ok = lookupAbbrev(abbrevs, key, start)
			}
			if ok {
				if a.where == beforeName && titlePair(n, i+used, abbrevs, l.and) {
					a.where = anywhere // "M. et Mme Dupont": the name after the next title is this one's too
				}
				if s, ok := placeAbbrev(n, i+used, a); ok {
					best, say, eat = used, s, dot
					if a.phone {
						if groups, phone := phoneAfter(n, i+used); groups > 0 {
							best, say, eat = used+groups, s+" "+l.sayPhone(phone), false
						}
					}
				}
			}
			if !dotted {
				break
			}
			key += "."
		}
		if best > 0 {
			// An abbreviation that may end a sentence keeps its period
			// before a capital: "usw. Dann".
			n.eatDot = eat && !(sentenceEnders[writtenAs(n, i, best)] && isCapitalized(n.core(i+best)))
			if r := firstRune(n.core(i)); start && unicode.IsUpper(r) {
				say = capitalize(say)
			}
		}
		return best, say
	}
}

// sentenceEnders are abbreviations that often end a sentence.
var sentenceEnders = words("usw. usf. u.v.m. o.Ä. u.Ä. etc. v.Chr. n.Chr. J.-C. av.J.-C. apr.J.-C. a.C. d.C. EE.UU. " +
	"S.A. Uds. Vds. ff.")

// writtenAs is the written form of words i to i+used-1, without spaces, with
// the last one's period.
func writtenAs(n *normalizer, i, used int) string {
	var b strings.Builder
	for k := i; k < i+used; k++ {
		b.WriteString(n.core(k))
		b.WriteString(".")
	}
	return b.String()
}

// lookupAbbrev finds key in abbrevs; at the start of a sentence also with
// its first letter in lower case ("Z. B." is "z. B.").
func lookupAbbrev(abbrevs map[string]abbrev, key string, start bool) (abbrev, bool) {
	if a, ok := abbrevs[key]; ok {
		return a, true
	}
	if start {
		r, size := utf8.DecodeRuneInString(key)
		if unicode.IsUpper(r) {
			return lookupAbbrev(abbrevs, string(unicode.ToLower(r))+key[size:], false)
		}
	}
	return abbrev{}, false
}

// titlePair reports whether words next on are "and" (and, or "&") and a
// title before a name: "et Mme Dupont" after the "M." of "M. et Mme
// Dupont".
func titlePair(n *normalizer, next int, abbrevs map[string]abbrev, and string) bool {
	if w := n.core(next); w != and && w != "&" || n.lead(next) != "" {
		return false
	}
	key := n.core(next + 1)
	a, ok := abbrevs[key+"."]
	if !ok || !strings.HasPrefix(n.trail(next+1), ".") {
		a, ok = abbrevs[key]
	}
	return ok && (a.where == beforeName || a.where == anywhere) && n.lead(next+1) == "" && isCapitalized(n.core(next+2)) && n.lead(next+2) == ""
}

// placeAbbrev returns what a is read as before word next, false when it
// is not read there.
func placeAbbrev(n *normalizer, next int, a abbrev) (string, bool) {
	w := n.core(next)
	joined := next < len(n.words) && n.lead(next) == "" && !n.words[next].tag
	name := joined && isCapitalized(w)
	number := joined && w != "" && w[0] >= '0' && w[0] <= '9'
	switch {
	case a.where == anywhere,
		a.where == beforeName && name,
		a.where == beforeNumber && number:
		return a.say, true
	case a.elsewhere != "":
		return a.elsewhere, true
	}
	return "", false
}

// sentenceStart reports whether word i starts a sentence.
func sentenceStart(n *normalizer, i int) bool {
	if i == 0 {
		return true
	}
	t := n.trail(i - 1)
	return strings.ContainsAny(t, ".!?") || strings.ContainsAny(n.lead(i), "¿¡")
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// phoneAfter returns the groups of digits that start at word i (at most
// six, "030 1234", "+49 30 1234-5"), how many words they are and the
// number they write.
func phoneAfter(n *normalizer, i int) (int, string) {
	var groups []string
	for k := i; k < len(n.words) && k < i+6; k++ {
		c := n.core(k)
		if n.lead(k) != "" && n.lead(k) != "(" || !phoneGroupRE.MatchString(c) || k > i && n.trail(k-1) != "" && n.trail(k-1) != ")" {
			break
		}
		groups = append(groups, c)
		if n.trail(k) != "" && n.trail(k) != ")" {
			break
		}
	}
	return len(groups), strings.Join(groups, " ")
}

var phoneGroupRE = regexp.MustCompile(`^\+?\d[\d/-]*\d$`)
