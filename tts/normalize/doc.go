// Package normalize turns written forms into the words a careful reader
// says, before a speech engine phonemizes text: "$9.50" is "nine dollars
// and fifty cents", "2026-11-24" "November twenty fourth, twenty twenty
// six", "Dr. Smith" "Doctor Smith", "3.5 MB" "three point five
// megabytes". It keeps a map from every piece of its output to the text
// it came from, so that word timings point at what a client sent.
//
// Normalize chooses its rules by language. English (US and British) has
// every class below; German, French and Spanish are read as their natives
// read them: numbers, decimals and thousands as each writes them,
// ordinals by the words around them and in the case those ask for
// ("zum 1. Mal" is "zum ersten Mal", "am 15.08.2024" "am fünfzehnten
// August …", "XIXe siècle" "dix-neuvième siècle", "la 3.ª vez" "la
// tercera vez"), money, dates, times, percent, units, each language's
// abbreviations and titles ("z. B.", "Mlle", "Srta.", "av. J.-C."), and
// one agreeing with its noun ("eine Frage", "vingt et une pages",
// "veintiún años"). Other languages are left unchanged.
//
//   - numbers: cardinals (with thousands separators), negatives,
//     decimals, ordinals ("2nd", "1er", "2ª"), fractions ("3/4", "2 1/2",
//     "24/7"), ranges and scores ("3-5", "3–2"; "10-15%", "9am-5pm",
//     "5-10 km", "Mon-Fri", each end read as the other rules read it),
//     years ("1999", and ranges of them), decades ("1990s", "'80s"), "#1";
//   - money: $ € £ ¥ ₹ before or after the amount, ISO codes ("USD 5", "5
//     EUR"), cents, scale words and suffixes ("€2.5M", "$3bn", "$5
//     million");
//   - dates: ISO, with slashes (month first in US English, day first
//     elsewhere, and whichever is the day when one is over 12), with dots
//     ("24.11.2026"), with month names or their abbreviations ("Nov 24,
//     2026", "24 November 2026");
//   - times: "7:05 am", "19:30", "7pm", "19h30", "1:30:15";
//   - telephone numbers, read digit by digit in their groups ("555-0142",
//     "(415) 555-0142"), and emergency numbers after a word of calling
//     ("call 112");
//   - house numbers with a letter: "221B Baker Street";
//   - units after a number, SI and US, in the plural when the number is
//     not one ("1 km", "12 km", "72°F", "50%", "2x");
//   - abbreviations by context: "Dr. Smith" and "Elm Dr.", "St. Louis" and
//     "Main St.", "p. 42", "vs.", "etc.", "e.g.", "No. 5";
//   - Roman numerals after names and counted words: "Henry VIII",
//     "Chapter IV", "World War II", "Ludwig XIV.", "Louis XIV", "Felipe VI";
//   - web addresses, e-mail addresses and file names, their punctuation
//     by name ("dot", "slash", "at"; "http(s)://" is not read);
//   - initialisms spelled ("FBI"), acronyms said as words ("NASA",
//     "JSON"), and capitalized words ("HELLO") left alone. An all-capital
//     word of up to three letters, or one without a vowel, is spelled,
//     unless it is a common English word ("THE", "YES").
//
// In every language, letters and digits drawn as symbols are read as
// what they draw: "ⓐ" is "a", "①" "1", "⑴" "(1)", "Ｈｅｌｌｏ" "Hello".
// Audio tags (<|…|>) are never changed. Not handled: numbers spelled with
// words, chemical formulas, math expressions beyond a fraction, measures
// with two units ("5 ft 3 in", whose "in" is too often the preposition),
// German case beyond the word before an ordinal, and the gender of nouns
// outside the lists and endings gender.go and german_ordinal.go know.
package normalize
