package tags_test

import (
	"testing"

	"github.com/voxkit/voxkit/tags"
)

// TestSentencesLang: a script parsed with Options.Lang is cut into
// sentences as text of that language: German "am 3. Tag" is one.
func TestSentencesLang(t *testing.T) {
	for _, c := range []struct {
		lang string
		want int
	}{{"de", 1}, {"", 2}, {"en", 2}} {
		s, err := tags.Parse("<|slow|>Am 3. Tag ging er heim.", tags.Options{Lang: c.lang})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(s.Sentences(0)); s.Lang != c.lang || got != c.want {
			t.Errorf("lang %q: %d sentences (Lang %q), want %d", c.lang, got, s.Lang, c.want)
		}
	}
}
