package align

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/voxkit/voxkit/tts"
)

// streamSilence is text of an input stream that makes no audio.
var streamSilence = strings.Repeat(".\n\n", 1000)

// alignSentence writes a silent stretch and "Hello there." to ca, as an
// input stream does, and aligns the sentence with the words a voice
// reports for it, at chars (the characters written before it).
func alignSentence(ca *Aligner, chars int) Alignment {
	ca.Write(streamSilence)
	ca.Write("Hello there.\n\n")
	at := chars + utf8.RuneCountInString(streamSilence)
	a, _ := ca.Sentence([]tts.Word{
		{Word: "Hello", Start: 0, End: 300 * time.Millisecond, CharStart: at, CharEnd: at + 5},
		{Word: "there", Start: 300 * time.Millisecond, End: 600 * time.Millisecond, CharStart: at + 6, CharEnd: at + 11},
	}, false)
	return a
}

// TestCharAlignerLetsGo: an input stream's aligner holds the text from
// the last sentence it aligned on, so each sentence costs what its own
// text does however much came before, and aligns the characters its
// words' offsets (into the whole text) name.
func TestCharAlignerLetsGo(t *testing.T) {
	ca := &Aligner{}
	chars := 0
	for i := range 50 {
		a := alignSentence(ca, chars)
		if len(ca.Input) > len("\n\n") {
			t.Fatalf("sentence %d: %d characters held after it", i, len(ca.Input))
		}
		text := strings.Join(a.Chars, "")
		if !strings.HasSuffix(text, "Hello there.\n\n") || len(a.Chars) != utf8.RuneCountInString(streamSilence)+14 {
			t.Fatalf("sentence %d: aligned %d characters ending %q", i, len(a.Chars), text[max(0, len(text)-20):])
		}
		if h := len(a.Chars) - 14; a.Start[h] != 0 || a.Start[h+6] != 0.3 {
			t.Fatalf("sentence %d: Hello at %v, there at %v", i, a.Start[h], a.Start[h+6])
		}
		chars += len(a.Chars)
	}
}

// BenchmarkCharAlignerSentence measures aligning a sentence of an input
// stream after 1 KB and after 500 KB of text: it costs the same.
func BenchmarkCharAlignerSentence(b *testing.B) {
	for _, prior := range []int{1 << 10, 500 << 10} {
		b.Run(fmt.Sprintf("prior=%dKB", prior>>10), func(b *testing.B) {
			ca := &Aligner{}
			ca.Write(strings.Repeat(".", prior))
			ca.Sentence(nil, true)
			chars := prior
			words := []tts.Word{{Word: "Hi", End: 300 * time.Millisecond}}
			for b.Loop() {
				ca.Write("Hi.\n\n")
				words[0].CharStart, words[0].CharEnd = chars, chars+2
				ca.Sentence(words, false)
				chars += 5
			}
		})
	}
}
