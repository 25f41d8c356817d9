package runner

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	para := strings.Repeat("One sentence here. ", 5) // 95 characters
	for _, c := range []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"fits", "Short text.", 100, []string{"Short text."}},
		{"paragraphs", para + "\n\n" + para + "\n\n" + para, 200, []string{para + "\n\n" + strings.TrimSpace(para), strings.TrimSpace(para)}},
		{"sentences", "Aaaa bbbb. Cccc dddd. Eeee ffff.", 25, []string{"Aaaa bbbb. Cccc dddd.", "Eeee ffff."}},
		{"spaces", "aaaa bbbb cccc dddd eeee", 12, []string{"aaaa bbbb", "cccc dddd", "eeee"}},
		{"one long word", strings.Repeat("x", 25), 10, []string{strings.Repeat("x", 10), strings.Repeat("x", 10), strings.Repeat("x", 5)}},
		{"characters, not bytes", strings.Repeat("é", 15), 10, []string{strings.Repeat("é", 10), strings.Repeat("é", 5)}},
		{"blank", " \n\n ", 10, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Cut(c.text, c.max)
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Errorf("Cut(%q, %d) = %q, want %q", c.text, c.max, got, c.want)
			}
			for _, s := range got {
				if n := utf8.RuneCountInString(s); n > c.max {
					t.Errorf("segment of %d characters, max %d", n, c.max)
				}
			}
		})
	}
}

func TestCaptions(t *testing.T) {
	ts := Timestamps{Words: []Timing{
		{Word: "Hello", Start: 0.1, End: 0.5, Chapter: 1},
		{Word: "there.", Start: 0.5, End: 1.0, Chapter: 1},
		{Word: "Next", Start: 3661.25, End: 3661.5, Chapter: 2},
	}}
	if got, want := string(captionsSRT(ts)), "1\n00:00:00,100 --> 00:00:01,000\nHello there.\n\n2\n01:01:01,250 --> 01:01:01,500\nNext\n\n"; got != want {
		t.Errorf("SRT:\n%q\nwant\n%q", got, want)
	}
	if got, want := string(captionsVTT(ts)), "WEBVTT\n\n00:00:00.100 --> 00:00:01.000\nHello there.\n\n01:01:01.250 --> 01:01:01.500\nNext\n\n"; got != want {
		t.Errorf("VTT:\n%q\nwant\n%q", got, want)
	}
}
