package book

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: whatever the bytes and their claimed kind, Parse answers
// chapters with text, or a *FormatError; it never panics.
func FuzzParse(f *testing.F) {
	f.Add("b.md", "", []byte("# One\n\n**a** [b](c) ![d](e)\n\n- f\n| g | h |\n|---|---|\n| i | j |\n```\nk\n```\n"))
	f.Add("b.txt", "", []byte("Chapter 1\n\nA.\n\nChapter 2\n\nB."))
	f.Add("b.html", "", []byte("<h1>A</h1><p>b<br>c</p><h2 id=x>D</h2>"))
	f.Add("b.txt", "", utf16Bytes("text", true))
	for _, v := range []string{"2", "3"} {
		f.Add("b.epub", "", makeZip(f, epubFiles(v)...))
	}
	f.Fuzz(func(t *testing.T, name, contentType string, data []byte) {
		p := Parser{MaxSize: 1 << 20}
		chapters, err := p.Parse(name, contentType, data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "book: ") {
				t.Fatalf("error %v (%T)", err, err)
			}
			return
		}
		if len(chapters) == 0 {
			t.Fatal("no chapters and no error")
		}
		for _, c := range chapters {
			if strings.TrimSpace(c.Text) == "" || !utf8.ValidString(c.Text) || !utf8.ValidString(c.Title) {
				t.Fatalf("chapter %q", c)
			}
		}
	})
}
