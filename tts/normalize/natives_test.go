package normalize

import (
	"strings"
	"testing"
)

// TestNatives: sentences in German, French and Spanish, one or more for
// each class a native reads in their own way (ordinals with their case,
// dates, abbreviations and titles, money, temperatures, percentages,
// times, thousands, number words), are normalized as a native reads them
// aloud (testdata/natives_*.txt; the natives_held_* sentences were written
// after the code, to judge it). It logs how many are read right, the
// figure docs/reading.md gives before and after issue 44.
func TestNatives(t *testing.T) {
	for _, c := range []struct{ file, lang string }{{"natives_de", "de"}, {"natives_fr", "fr-fr"}, {"natives_es", "es"},
		{"natives_held_de", "de"}, {"natives_held_fr", "fr-fr"}, {"natives_held_es", "es"}} {
		t.Run(c.file, func(t *testing.T) {
			cs := cases(t, c.file)
			if len(cs) < 15 {
				t.Errorf("%d sentences, want at least 15", len(cs))
			}
			right := 0
			var wrong []string
			for _, s := range cs {
				got := Normalize(s[1], c.lang)
				checkSpans(t, s[1], got)
				if got.Text == s[2] {
					right++
					continue
				}
				wrong = append(wrong, s[0]+": "+s[1]+"\n   got  "+got.Text+"\n   want "+s[2])
			}
			t.Logf("%s: %d of %d read as natives read them", c.lang, right, len(cs))
			if len(wrong) > 0 {
				t.Errorf("%d read wrong:\n%s", len(wrong), strings.Join(wrong, "\n"))
			}
		})
	}
}
