package tags

import (
	"regexp"
	"slices"
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
			if hasDelimiter(text) {
				t.Fatalf("%s %q holds a tag delimiter", where, text)
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
		// The text is the input without its tags and tag-shaped spans (and
		// perhaps with spaces added where removing a tag would have formed
		// another).
		// Words holding a leftover delimiter are dropped too; such a word
		// may straddle a style change, where only its part in one style
		// is dropped. So the words kept lie between the clean words and
		// all the words of the stripped input.
		stripped := strings.Fields(stripTags(input))
		all := strings.Join(stripped, "")
		clean := strings.Join(slices.DeleteFunc(stripped, hasDelimiter), "")
		got := strings.Join(strings.Fields(s.Text()), "")
		if !isSubsequence(clean, got) || !isSubsequence(got, all) {
			t.Fatalf("text %q, want between %q and %q", got, clean, all)
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

// stripTags removes, scanning left to right, the well-formed tags (by
// tagPattern) and the tag-shaped spans: "<|", at most 64 bytes without
// "<|" or a line break, then the first "|>".
func stripTags(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if !strings.HasPrefix(s[i:], "<|") {
			b.WriteByte(s[i])
			i++
			continue
		}
		if loc := tagPattern.FindStringIndex(s[i:]); loc != nil && loc[0] == 0 {
			i += loc[1]
			continue
		}
		if end := strings.Index(s[i+2:], "|>"); end >= 0 && end <= 64 {
			inner := s[i+2 : i+2+end]
			if !strings.Contains(inner, "<|") && !strings.ContainsAny(inner, "\r\n") {
				i += end + 4
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func hasDelimiter(s string) bool { return strings.Contains(s, "<|") || strings.Contains(s, "|>") }

// isSubsequence reports whether the bytes of a appear in b in order.
func isSubsequence(a, b string) bool {
	for i := 0; i < len(b) && len(a) > 0; i++ {
		if b[i] == a[0] {
			a = a[1:]
		}
	}
	return a == ""
}
