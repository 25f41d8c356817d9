// Package lexicon reads pronunciation lexicons written in W3C PLS 1.0
// (the Pronunciation Lexicon Specification) and finds their words in
// text.
//
// A lexicon is a list of lexemes. Each lexeme has one or more graphemes
// (how the word is written: "WHO", "New York") and the pronunciation
// they take: a phoneme string (IPA; X-SAMPA is converted to IPA) or an
// alias (other text to read instead: "World Health Organization"). PLS
// allows several pronunciations per lexeme; the one used is the first
// with prefer="true", else the first in document order, as PLS says.
// role attributes, example, meta and metadata elements are accepted and
// left out.
//
// Parse reads a document, New makes a lexicon of lexemes given another
// way (a list of alias and phoneme rules), and Marshal writes a lexicon
// back as PLS.
//
// A document is read in the encoding its XML declaration names (UTF-8 when it
// names none; ISO-8859-1, windows-1252 and the other IANA names too), or in
// UTF-16 when it starts with UTF-16's byte order mark.
//
// Alphabets are "ipa" and "x-sampa" (names in any case); any other is an
// error. A document is refused with a *SyntaxError, naming its line and
// column, when it is malformed XML, is not one PLS lexicon element of
// version 1.0, names another alphabet, has an empty grapheme, or a
// lexeme with neither phoneme nor alias; with a *LimitError when it
// passes MaxBytes, MaxLexemes or the length bounds of its entries.
//
// # Matching
//
// Find looks the graphemes of lexicons up in text:
//
//   - Whole words only: a match neither starts nor ends inside a word
//     (the characters beside it are not letters, digits or marks), so
//     "WHO" is not found in "WHOM".
//   - Longest grapheme first: at one place in the text, the longest
//     grapheme that matches wins ("New York" over "New"). A space in a
//     grapheme matches any run of white space in the text; graphemes are
//     read with their white space collapsed.
//   - Case as written: a grapheme matches text of exactly its case, as
//     PLS graphemes are orthography and ElevenLabs' dictionaries are
//     case sensitive ("WHO" matches "WHO", not "who"). List each case a
//     word takes ("Tomato" and "tomato") as graphemes of one lexeme.
//   - Characters as they are: text and graphemes are compared code point
//     by code point, without Unicode normalization ("é" written as one
//     character does not match "e" and a combining accent).
//   - Lexicons in order: where more than one lexicon has a grapheme at
//     one place, the first lexicon given wins; a grapheme two lexemes of
//     one lexicon list takes the first one's pronunciation.
//
// A lexicon keeps its graphemes in a tree of their bytes (a trie), which
// Find walks from each place a word begins, only as deep as the text goes
// on along some grapheme (at most MaxGrapheme characters): lookup costs
// no more for a lexicon of many graphemes, however alike they begin, than
// for one of a few. A lexicon named twice in one call is looked up once.
// Straddles tells text that arrives in pieces where it must
// not be cut: inside a grapheme, found or not yet complete.
//
// A lexicon's Language (xml:lang, which PLS requires and Parse does not)
// is kept for its owner; Find does not compare it with anything.
package lexicon
