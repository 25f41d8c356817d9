package book

import (
	"strings"
	"testing"
	"unicode/utf16"
)

func TestPlainText(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []Chapter
	}{
		{"one chapter", "Hello there.\r\nA second line.\r\n", []Chapter{{"", "Hello there.\nA second line."}}},
		{"byte order mark", "\ufeffHello.", []Chapter{{"", "Hello."}}},
		{"chapters", "The Book\n\nChapter 1\n\nIt began.\n\nCHAPTER II. The Middle\nIt went on.\n\nChapter Twenty-One\n\nIt ended.\n",
			[]Chapter{{"", "The Book"}, {"Chapter 1", "It began."}, {"CHAPTER II. The Middle", "It went on."}, {"Chapter Twenty-One", "It ended."}}},
		{"one heading is not obvious", "Chapter 1\n\nIt began and ended.", []Chapter{{"", "Chapter 1\n\nIt began and ended."}}},
		{"headings inside sentences", "He read chapter 1 first.\n\nChapter 2 of the law says so,\nChapter 3 too, in a long line that no heading would ever have in any book anywhere.",
			[]Chapter{{"", "He read chapter 1 first.\n\nChapter 2 of the law says so,\nChapter 3 too, in a long line that no heading would ever have in any book anywhere."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse("book.txt", "text/plain; charset=utf-8", []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			checkChapters(t, got, tc.want)
		})
	}
}

func utf16Bytes(s string, big bool) []byte {
	out := []byte{0xFF, 0xFE}
	if big {
		out = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if big {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

func TestEncodings(t *testing.T) {
	for _, big := range []bool{false, true} {
		got, err := Parse("a.md", "", utf16Bytes("# Kapitel 1\n\nÜber 𝄞 Straße.", big))
		if err != nil {
			t.Fatal(err)
		}
		checkChapters(t, got, []Chapter{{"Kapitel 1", "Über 𝄞 Straße."}})
	}
	for _, tc := range []struct {
		name, file, contentType string
		data                    []byte
		format                  string
		reason                  error
		msg                     string
	}{
		{"latin-1", "a.txt", "", []byte("caf\xe9 au lait"), "text", ErrEncoding, "invalid byte 0xe9 at offset 3"},
		{"NUL", "a.md", "", []byte("a\x00b"), "markdown", ErrEncoding, "NUL byte"},
		{"odd UTF-16", "a.txt", "", []byte{0xFF, 0xFE, 'a'}, "text", ErrEncoding, "odd number of bytes"},
		{"empty", "a.txt", "", nil, "text", ErrEmpty, "no text"},
		{"white space", "a.txt", "", []byte(" \n\t\n"), "text", ErrEmpty, "no text"},
		{"only markup", "a.md", "", []byte("# \n\n![x](y.png)\n\n```\ncode\n```\n"), "markdown", ErrEmpty, "no text"},
		{"pdf", "a.pdf", "application/pdf", []byte("%PDF-1.4"), "", ErrUnsupported, "application/pdf is not a book format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.file, tc.contentType, tc.data)
			checkError(t, err, tc.format, tc.reason, tc.msg)
		})
	}
}

func TestDetect(t *testing.T) {
	zip := []byte("PK\x03\x04...")
	for _, tc := range []struct {
		file, contentType string
		data              []byte
		want              string
	}{
		{"b.epub", "", nil, "epub"},
		{"", "application/epub+zip", nil, "epub"},
		{"b.bin", "application/octet-stream", zip, "epub"},
		{"B.MD", "", nil, "markdown"},
		{"notes.md", "text/plain", nil, "markdown"},
		{"", "text/markdown; charset=UTF-8", nil, "markdown"},
		{"b.txt", "", nil, "text"},
		{"", "", []byte("words"), "text"},
		{"b.html", "text/html", nil, "html"},
		{"b.htm", "", nil, "html"},
		{"b.css", "text/css", nil, "text"},
		{"b.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", zip, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	} {
		if got := detect(tc.file, tc.contentType, tc.data); got != tc.want {
			t.Errorf("detect(%q, %q) = %q, want %q", tc.file, tc.contentType, got, tc.want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		want     []Chapter
	}{
		{"headings start chapters", "Intro line.\n\n# One\n\nFirst.\n\n## Two ##\n\nSecond.\n\n### Inner\n\nStill two.\n",
			[]Chapter{{"", "Intro line."}, {"One", "First."}, {"Two", "Second.\n\nInner\n\nStill two."}}},
		{"setext headings", "Part One\n========\n\nText\nwraps here.\n\nPart Two\n--------\nMore.",
			[]Chapter{{"Part One", "Text wraps here."}, {"Part Two", "More."}}},
		{"a title heading and chapters", "# The Book\n\n## Chapter 1\n\nA.\n\n## Chapter 2\n\nB.",
			[]Chapter{{"Chapter 1", "A."}, {"Chapter 2", "B."}}},
		{"emphasis and code", "# *Fancy* `Title`\n\nSome **bold**, *italic*, _under_, __strong__, ***both***, ~~gone~~ and `code` words; snake_case_name and 2 * 3 * 4 stay.",
			[]Chapter{{"Fancy Title", "Some bold, italic, under, strong, both, gone and code words; snake_case_name and 2 * 3 * 4 stay."}}},
		{"links and images", "See [the site](http://example.com \"t\") and [a ref][r]. ![a cat](cat.png) <https://example.org> [^1]\n\n[r]: http://example.com\n[^1]: A footnote.",
			[]Chapter{{"", "See the site and a ref. https://example.org"}}},
		{"HTML", "<div align=\"center\">\n<b>Bold</b> &amp; <i>more</i> a < b\n</div>\n<!-- a comment\nover lines -->\nAfter.",
			[]Chapter{{"", "Bold & more a < b\n\nAfter."}}},
		{"code fences are left out", "Before.\n\n```go\nfunc main() {}\n# not a heading\n```\n\n~~~~\nmore code\n~~~~\nAfter.",
			[]Chapter{{"", "Before.\n\nAfter."}}},
		{"lists become lines", "Shopping:\n\n- milk\n- eggs,\n  fresh\n* [x] bread\n1. one\n2) two\n\nDone.",
			[]Chapter{{"", "Shopping:\n\nmilk\neggs, fresh\nbread\none\ntwo\n\nDone."}}},
		{"quotes, rules and escapes", "> Quoted\n> text.\n\n---\n\n\\*not emphasis\\* and 1\\. literal",
			[]Chapter{{"", "Quoted text.\n\n*not emphasis* and 1. literal"}}},
		{"tables", "Stats:\n| Name | Age |\n|------|----:|\n| Ann  | 30  |\n| Bob  | 41  |\n\nEnd.",
			[]Chapter{{"", "Stats:\n\nName, Age\nAnn, 30\nBob, 41\n\nEnd."}}},
		{"front matter", "---\ntitle: x\nauthor: y\n---\n# One\n\nText.",
			[]Chapter{{"One", "Text."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse("book.md", "", []byte(tc.md))
			if err != nil {
				t.Fatal(err)
			}
			checkChapters(t, got, tc.want)
		})
	}
}

// TestMarkdownBook: a long Markdown book keeps every word of its
// paragraphs, in order.
func TestMarkdownBook(t *testing.T) {
	var md strings.Builder
	var words int
	for c := 1; c <= 3; c++ {
		md.WriteString("# Chapter " + string(rune('0'+c)) + "\n\n")
		for p := 0; p < 50; p++ {
			md.WriteString("On 3 May 1999, \"Wait,\" said Ann, \"it's 4:30 PM.\" She paid $12.50 for it.\n\n")
			words += 15
		}
	}
	got, err := Parse("book.md", "text/markdown", []byte(md.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d chapters", len(got))
	}
	n := 0
	for i, c := range got {
		if c.Title != "Chapter "+string(rune('1'+i)) {
			t.Errorf("chapter %d title %q", i, c.Title)
		}
		n += len(strings.Fields(c.Text))
	}
	if n != words {
		t.Errorf("%d words, want %d", n, words)
	}
}

// TestHTML: a page is cut at its h1 and h2 headings, each its chapter's
// title and not read again; note references and the notes (ARIA's
// doc-noteref, doc-endnotes, as pandoc writes them) are not read.
func TestHTML(t *testing.T) {
	page := `<!DOCTYPE html><html><head><title>Moby-Dick</title><style>h1 {}</style></head><body>
<p>Call me <i>Ishmael</i>.</p>
<h2 id="c1">Chapter 1. Loomings</h2>
<p>Some years ago&mdash;never mind how long.</p>
<h2>Chapter 2. The Carpet-Bag</h2><p>I stuffed a shirt or two.<a href="#fn1" role="doc-noteref"><sup>1</sup></a></p><script>alert(1)</script>
<section class="footnotes" role="doc-endnotes"><hr /><ol><li id="fn1" role="doc-endnote"><p>A note.<a href="#fnref1" role="doc-backlink">↩︎</a></p></li></ol></section>
</body></html>`
	got, err := Parse("moby.html", "text/html; charset=utf-8", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	checkChapters(t, got, []Chapter{
		{"", "Call me Ishmael."},
		{"Chapter 1. Loomings", "Some years ago—never mind how long."},
		{"Chapter 2. The Carpet-Bag", "I stuffed a shirt or two."},
	})
	_, err = Parse("x.html", "", []byte("<p>caf\xe9</p>"))
	checkError(t, err, "html", ErrEncoding, "the page is not UTF-8")
	// Nesting deep enough to exhaust a recursive reader is refused.
	_, err = Parse("x.html", "", []byte(strings.Repeat("<div>", 100000)+"text"))
	checkError(t, err, "html", nil, "the page cannot be parsed")
}

func TestDropTitle(t *testing.T) {
	for _, tc := range []struct{ title, text, want string }{
		{"Chapter 1", "Chapter 1\n\nIt began.", "It began."},
		{"CHAPTER I.", "Chapter I\n\nIt began.", "It began."},
		{"Chapter 1. Loomings", "CHAPTER 1\n\nLoomings.\n\nIt began.", "It began."},
		{"Chapter 1", "Chapter 1 began here.\n\nIt did.", "Chapter 1 began here.\n\nIt did."},
		{"Loomings", "Chapter 1\n\nLoomings\n\nIt began.", "Chapter 1\n\nLoomings\n\nIt began."},
		{"", "Chapter 1\n\nIt began.", "Chapter 1\n\nIt began."},
	} {
		if got := dropTitle(tc.title, tc.text); got != tc.want {
			t.Errorf("dropTitle(%q, %q) = %q, want %q", tc.title, tc.text, got, tc.want)
		}
	}
}
