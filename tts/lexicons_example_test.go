package tts_test

import (
	"context"
	"fmt"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// A lexicon says a word the way its owner does; the word's timing points
// at it as written.
func ExampleRequest_lexicons() {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		panic(err)
	}
	defer synth.Close()
	lex, err := lexicon.Parse([]byte(`<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
	    alphabet="ipa" xml:lang="en-US">
	  <lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>
	</lexicon>`))
	if err != nil {
		panic(err)
	}
	req := tts.Request{Voice: "en-us", Input: "We met the WHO today.", Format: encode.PCM,
		Lexicons: []*lexicon.Lexicon{lex},
		OnSentence: func(d tts.SentenceDone) {
			for _, w := range d.Words {
				fmt.Printf("%s [%d, %d)\n", w.Word, w.CharStart, w.CharEnd)
			}
		}}
	if _, _, err := synth.SynthesizeRequest(context.Background(), req); err != nil {
		panic(err)
	}
	// Output:
	// We [0, 2)
	// met [3, 6)
	// the [7, 10)
	// WHO [11, 14)
	// today [15, 20)
}
