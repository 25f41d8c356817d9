package tags

import (
	"regexp"
	"strings"
	"testing"
)

// tagPattern is an independent statement of the tag syntax: Parse must
// agree with it.
var tagPattern = regexp.MustCompile(`<\|/?[a-z0-9_-]+(?::[^|<>\s\x0b\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]*)?\|>`)

func FuzzParse(f *testing.F) {
	for _, tc := range goldenCases {
		f.Add(tc.input, tc.maxLen)
	}
	f.Add("<|sl<|x|>ow|>", 0)
	f.Add("<|<|<|slow|>|>|>", 3)
	f.Fuzz(func(t *testing.T, input string, maxLen int) {
		// Tiny bounds make the plain-text splitter quadratic; real
		// callers use hundreds.
		maxLen = 20 + int(uint(maxLen)%380)
		s, err := Parse(input, Options{})
		if err != nil {
			t.Fatalf("lenient Parse failed: %v", err)
		}
		_, strictErr := Parse(input, Options{Strict: true})
		if (strictErr != nil) != (len(s.Issues) > 0) {
			t.Fatalf("strict error %v with %d issues", strictErr, len(s.Issues))
		}
		check := func(where, text string) {
			if n, ok := findTag(text); ok {
				t.Fatalf("%s %q holds the tag %q", where, text, n)
			}
			if tagPattern.MatchString(text) {
				t.Fatalf("%s %q matches the tag pattern", where, text)
			}
		}
		for i, p := range s.Parts {
			check("part", p.Text)
			if i > 0 && !p.IsEvent() && !s.Parts[i-1].IsEvent() && p.Style == s.Parts[i-1].Style {
				t.Fatalf("adjacent parts %v and %v share a style", s.Parts[i-1], p)
			}
		}
		for _, sen := range s.Sentences(maxLen) {
			if len(sen.Parts) == 0 {
				t.Fatalf("empty sentence")
			}
			for _, p := range sen.Parts {
				check("sentence part", p.Text)
				if !p.IsEvent() && strings.TrimSpace(p.Text) == "" {
					t.Fatalf("blank sentence part")
				}
			}
		}
		// The text is the input without its tags (and perhaps with spaces
		// added where removing a tag would have formed another).
		want := strings.Join(strings.Fields(tagPattern.ReplaceAllString(input, "")), "")
		got := strings.Join(strings.Fields(s.Text()), "")
		if got != want {
			t.Fatalf("text %q, want %q", got, want)
		}
	})
}

// findTag returns the first well-formed tag in s.
func findTag(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if n, ok := matchTag(s[i:]); ok {
			return s[i : i+n], true
		}
	}
	return "", false
}
