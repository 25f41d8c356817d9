package lexicon_test

import (
	"fmt"

	"github.com/voxkit/voxkit/lexicon"
)

func Example() {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
         alphabet="ipa" xml:lang="en-US">
  <lexeme>
    <grapheme>WHO</grapheme>
    <alias>World Health Organization</alias>
  </lexeme>
  <lexeme>
    <grapheme>Nguyen</grapheme>
    <phoneme alphabet="x-sampa">N_wi@n</phoneme>
  </lexeme>
</lexicon>`
	lex, err := lexicon.Parse([]byte(doc))
	if err != nil {
		fmt.Println(err)
		return
	}
	text := "Dr. Nguyen met the WHO, who listened."
	for _, m := range lexicon.Find(text, lex) {
		fmt.Printf("%q: alias %q, phonemes %q\n", text[m.Start:m.End], m.Lexeme.Alias, m.Lexeme.Phonemes)
	}
	// Output:
	// "Nguyen": alias "", phonemes "ŋʷiən"
	// "WHO": alias "World Health Organization", phonemes ""
}

func ExampleParse_error() {
	_, err := lexicon.Parse([]byte(`<lexicon version="1.0" alphabet="x-cmu"></lexicon>`))
	fmt.Println(err)
	// Output:
	// lexicon: line 1, column 1: alphabet "x-cmu" (want "ipa" or "x-sampa")
}
