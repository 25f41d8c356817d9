package normalize

import (
	"strings"
	"unicode"
)

// The case of German "ein": "1 Wunsch" is "ein Wunsch" as a subject, but
// "für einen Wunsch", "mit einem Wunsch", "in einer Stunde". The case is
// read only where the words before the number decide it: a preposition
// that governs one case, a two-way preposition before a time (which is
// then dative), or a subject pronoun and the verb whose object the number
// counts ("ich habe 1 Hund", "dann sehe ich 1 Mann"). Elsewhere "ein"
// stays as it is.

var (
	deAccusativePrepositions = words("für durch gegen ohne um wider")
	deDativeOnly             = words("mit nach aus von zu bei seit gegenüber außer samt nebst entgegen")
	// deTwoWay take the dative before a time: "in 1 Stunde", "vor 1 Jahr".
	deTwoWay   = words("in an vor")
	deTimeNoun = words("Jahr Monat Woche Tag Stunde Minute Sekunde Jahrzehnt Jahrhundert Jahrtausend Nacht Moment " +
		"Augenblick Abend Morgen Nachmittag Vormittag Wochenende Quartal Semester Halbjahr")
	// deSubjects are pronouns that can only be subjects.
	deSubjects = words("ich du er wir ihr man")
	// deNotVerbs are lower-case words between a subject and a number that
	// are no verb taking an object: the copulas ("er ist 1 Mann"), and
	// conjunctions and adverbs.
	deNotVerbs = words("bin bist ist sind seid war warst waren wart wird wirst werden wurde wurden bleibe bleibst bleibt " +
		"bleiben blieb heiße heißt heißen hieß scheint schien und oder aber denn sondern doch noch auch nur schon " +
		"nicht etwa genau fast rund knapp ungefähr circa mindestens höchstens über unter bis als wie")
)

// deOneCase gives "ein" (say, the number 1 before a noun of gender g at
// word i) the case the words before it decide. The accusative, where
// masculine and neuter part, takes the gender only from what
// deNounGender knows, never from a guess.
func deOneCase(n *normalizer, i int, say string, g byte) string {
	if say != "ein" && say != "eine" || n.core(i+1) == "Uhr" {
		return say
	}
	word := func(k int) string { // word k, lower case, when it runs on to word k+1
		if k < 0 || !n.joined(k) {
			return ""
		}
		return strings.ToLower(n.core(k))
	}
	prev, before := word(i-1), word(i-2)
	switch {
	case deAccusativePrepositions[prev]:
		return deArticle(say, deNounGender(n.core(i+1)), "einen", "eine", "ein")
	case deDativeOnly[prev], deTwoWay[prev] && deTimeNoun[n.core(i+1)]:
		return deArticle(say, g, "einem", "einer", "einem")
	case isVerb(before) && (deSubjects[prev] || prev == "es" && (before == "gibt" || before == "gab")),
		(deSubjects[before] || before == "es" || before == "sie") && isVerb(prev):
		// "dann sehe ich 1 Mann", "gibt es 1 Grund", "ich sehe 1 Mann"
		return deArticle(say, deNounGender(n.core(i+1)), "einen", "eine", "ein")
	}
	return say
}

// isVerb reports whether w, lower case, may be a verb that takes an
// object: a lower-case word that is no copula, conjunction or adverb.
func isVerb(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLower(r) }) < 0 && !deNotVerbs[w] && !deAccusativePrepositions[w] && !deDativeOnly[w] && !deTwoWay[w]
}

// deArticle picks the form of "ein" for gender g.
func deArticle(say string, g byte, m, f, neuter string) string {
	switch g {
	case 'm':
		return m
	case 'f':
		return f
	case 'n':
		return neuter
	}
	return say
}
