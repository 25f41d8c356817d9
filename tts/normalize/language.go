package normalize

// language holds the words and conventions one language reads written
// forms with. The rules (rules.go) are shared; what differs is here.
type language struct {
	decimal, group rune // the decimal and thousands separators
	groupSpace     bool // thousands may also be grouped by (no-break) spaces
	digit          [10]string
	cardinal       func(int64) string
	ordinal        func(int64) string
	year           func(int64) string
	// fractionAsNumber reads the digits after the decimal separator as
	// a number ("3,14": "trois virgule quatorze"), not one by one.
	fractionAsNumber bool
	point, minus     string
	plus             string
	percent          string
	to               string // "3-5": "three to five"
	ratio            string // "3:1": "three to one"; to when empty
	and              string
	over             string                  // a fraction without a name: "7/23"
	fractionName     func(a, b int64) string // "3/4": "three quarters"; "" when it has none
	months           [12]string
	monthAbbr        map[string]int // lower case, without the period
	dayFirst         bool           // 11/12/2026 is the 11th of December
	date             func(y, m, d int, dayWritten bool) string
	clock            func(h, m int, ampm string) string
	// clockArticle, when set, is what a time starts with unless the text
	// has it already: Spanish "las".
	clockArticle func(h int) string
	// hour, minute and second name the parts of a duration ("1:30:15").
	hour, minute, second unit
	currencies           map[string]currency // by symbol and ISO code
	scales               map[string]string   // "k": "thousand", "million": "million"
	units                map[string]unit
	degree               unit
	celsius              string
	fahrenheit           string
	names                webWords
	times                string // "2x": "two times"
	per                  string // "$3/lb": "three dollars per pound"
	numberSign           string // "#5": "number five"
	// ordinalOf reads an ordinal written with digits ("2nd", "1er",
	// "2ª").
	ordinalOf func(core string) (string, bool)
	// ordinalAt reads an ordinal that only the words around it tell from
	// a cardinal, in the case they ask for: German "zum 1. Mal" is "zum
	// ersten Mal", "15.08." "fünfzehnter August".
	ordinalAt func(n *normalizer, i int) (used int, say string)
	// inflectDate gives a date read at word i the case the words before
	// it ask for: German "am 15.08.2024" is "am fünfzehnten August …".
	inflectDate func(n *normalizer, i int, say string) string
	// nounGender tells the gender of the noun a number counts, for the
	// number one: 'f' feminine, 'm' masculine, 'n' neuter, 0 when the word
	// is no noun it knows ("1 Frage": "eine Frage").
	nounGender func(word string) byte
	// oneBefore makes a number that ends in one agree with a noun of
	// gender g: German "eins" "ein"/"eine", French "vingt et un" "vingt
	// et une", Spanish "veintiuno" "veintiún"/"veintiuna".
	oneBefore func(say string, g byte) string
	// oneCase gives the one before a noun of gender g at word i the case
	// the words before it decide: German "für 1 Wunsch" is "für einen
	// Wunsch".
	oneCase func(n *normalizer, i int, say string, g byte) string
	// nounNotYear reports a word after a four-digit number that makes it
	// a count, not a year: German "1234 Besucher".
	nounNotYear func(word string) bool
	// beforeNoun adapts a number read before a unit or currency: German
	// "eins" is "ein", Spanish "uno" is "un".
	beforeNoun func(string) string
	// feminine are the units whose number agrees in the feminine, and
	// feminize makes it so: German "eine Stunde", French "une heure",
	// Spanish "una hora".
	feminine map[string]bool
	feminize func(string) string
	// moneyAnd joins the two parts of an amount; "" means and.
	moneyAnd string
	decades  func(core string) (string, bool)
	// clockWord is the word a clock time says and a text may repeat after
	// it: German "22:30 Uhr" is read once with "Uhr".
	clockWord string
	// emergency are the short numbers read digit by digit: always when
	// true ("911"), else after one of callWords ("call 112").
	emergency, callWords map[string]bool
	// predecimal reads British money before 1971: "3s. 6d." (sterling.go).
	predecimal bool
	// roman reads Roman numerals after counted words and names; nil
	// leaves them as written.
	roman *romanWords
	// English only: abbreviations by context, letters of initialisms.
	abbreviation func(n *normalizer, i int) (used int, say string)
	initialisms  bool
}

// romanWords say where a language reads Roman numerals and how.
type romanWords struct {
	// counted are the words, in lower case, after which a numeral is a
	// number: "Chapter IV" is "Chapter four".
	counted map[string]bool
	// regnal are the names whose numerals are ordinals: "Henry VIII".
	regnal map[string]bool
	// anyName reads a numeral of two letters or more after any
	// capitalized word as regnal ("Martin Luther King III").
	anyName bool
	// count reads a numeral after a counted word ("four"), rank after
	// the name given ("the eighth"; Spanish "Isabel II" is "segunda").
	count func(int64) string
	rank  func(name string, v int64) string
	// rankDot: the numeral may end in a period that belongs to it (German
	// "Ludwig XIV.").
	rankDot bool
}

// currency names an amount of money.
type currency struct {
	one, many       string // "dollar", "dollars"
	subOne, subMany string // "cent", "cents"; "" when it has none
}

// unit names a unit after a number: one of it, or many.
type unit struct{ one, many string }

// words returns the unit's name after x.
func (u unit) words(x number) string {
	if x.one() {
		return u.one
	}
	return u.many
}

// webWords are the names of the punctuation of addresses.
type webWords struct {
	dot, slash, at, colon, dash, underscore string
}
