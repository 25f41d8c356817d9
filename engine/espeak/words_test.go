//go:build cgo

package espeak

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/internal/dsp"
)

// TestWords checks the word timings of texts with numbers, punctuation,
// several sentences and the controls that go through SSML or stretching:
// every word of the text is there, once, in order, where its sound is.
func TestWords(t *testing.T) {
	e := newEngine(t)
	texts := []string{
		"Hello, world. It cost $42 on the 3rd of May!",
		`"Quoted," she said; don't stop — ok? Fine & dandy <3.`,
		"Naïve café owners façade. Zwölf Äpfel.",
	}
	prosodies := []engine.Prosody{{}, {Emphasis: true}, {Spell: true}, {Rate: 0.3}, {Range: 1.5}}
	for i, text := range texts {
		for j, p := range prosodies {
			if testing.Short() && j != 0 && j != 1+i%(len(prosodies)-1) {
				continue // each text plain and with one control; make test runs every pair
			}
			c, err := enginetest.Collect(context.Background(), e, engine.Request{Voice: "en-us", Text: text, Prosody: p})
			if err != nil {
				t.Fatal(err)
			}
			if enginetest.CheckWords(t, text, c) > 0 {
				t.Logf("text %q, prosody %+v", text, p)
			}
			var got []string
			for _, w := range c.Words {
				got = append(got, text[w.Start:w.End])
			}
			want := wordsIn(text)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("prosody %+v: words\n%q, want\n%q", p, got, want)
			}
		}
	}
}

// wordsIn returns the words of text as wordAround finds them.
func wordsIn(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		i := strings.Index(text, f)
		if a, b, ok := wordAround(text, i); ok {
			out = append(out, text[a:b])
		}
	}
	return out
}

// TestWordsAroundBreak checks that a break's silence lies between the
// words around it and that each word's span holds speech.
func TestWordsAroundBreak(t *testing.T) {
	e := newEngine(t)
	text := "We wait here, then go on."
	at := strings.Index(text, "then")
	c, err := enginetest.Collect(context.Background(), e, engine.Request{Voice: "en-us", Text: text,
		Breaks: []engine.Break{{Offset: at, Duration: 500 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckWords(t, text, c)
	for i, w := range c.Words {
		if text[w.Start:w.End] != "then" {
			continue
		}
		prev := c.Words[i-1]
		gap := time.Duration(w.From-prev.To) * time.Second / time.Duration(c.SampleRate)
		if gap < 500*time.Millisecond {
			t.Errorf("%q ends %v before %q starts, want at least the break's 500ms", text[prev.Start:prev.End], gap, "then")
		}
		if rms := dsp.RMS(c.Samples[prev.To:w.From]); rms > 0.001 {
			t.Errorf("between %q and %q: RMS %.4f, want silence", text[prev.Start:prev.End], "then", rms)
		}
		return
	}
	t.Fatalf("no word %q in %v", "then", c.Words)
}

// TestWordsAcrossSentences checks that word samples count from the first
// sample of the call.
func TestWordsAcrossSentences(t *testing.T) {
	e := newEngine(t)
	one, err := enginetest.Collect(context.Background(), e, engine.Request{Voice: "en-us", Text: "First one."})
	if err != nil {
		t.Fatal(err)
	}
	both, err := enginetest.Collect(context.Background(), e, engine.Request{Voice: "en-us", Text: "First one. Second one."})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckWords(t, "First one. Second one.", both)
	if len(both.Words) != 4 || both.Words[2].From < len(one.Samples)-one.SampleRate/100 {
		t.Fatalf("words %+v; the first sentence alone has %d samples", both.Words, len(one.Samples))
	}
}
