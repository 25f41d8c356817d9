package book

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// document is a spine document as text.
type document struct {
	text  string         // paragraphs separated by "\n\n"
	ids   map[string]int // where each element with an id starts in text
	heads []head         // its h1 and h2 headings
}

// head is a heading of a document: where it starts in the text, and its
// text.
type head struct {
	at    int
	title string
}

// Elements whose content is not read.
var skipped = map[string]bool{
	"head": true, "script": true, "style": true, "template": true, "noscript": true,
	"svg": true, "math": true, "rt": true, "rp": true, "img": true, "audio": true, "video": true,
}

// Elements that are paragraphs of their own (or hold them).
var blocks = map[string]bool{
	"p": true, "div": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"li": true, "ul": true, "ol": true, "dl": true, "dt": true, "dd": true, "blockquote": true,
	"section": true, "article": true, "aside": true, "header": true, "footer": true, "nav": true,
	"figure": true, "figcaption": true, "table": true, "tr": true, "caption": true, "pre": true,
	"hr": true, "body": true, "main": true, "address": true, "hgroup": true,
}

// Kinds of break pending between two pieces of text.
const (
	none = iota
	space
	line
	paragraph
)

type textWriter struct {
	b       strings.Builder
	pending int
	ids     map[string]int
	heads   []head
}

func (w *textWriter) brk(kind int) { w.pending = max(w.pending, kind) }

func (w *textWriter) write(s string) {
	words := strings.Fields(s)
	if len(words) == 0 {
		if s != "" {
			w.brk(space)
		}
		return
	}
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsSpace(r) {
		w.brk(space)
	}
	if w.b.Len() > 0 {
		w.b.WriteString([]string{"", " ", "\n", "\n\n"}[w.pending])
	}
	w.pending = none
	w.b.WriteString(strings.Join(words, " "))
	if r, _ := utf8.DecodeLastRuneInString(s); unicode.IsSpace(r) {
		w.brk(space)
	}
}

func (w *textWriter) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.write(n.Data)
		return
	case html.ElementNode:
		if skipped[n.Data] || unheard(n) {
			return
		}
		if id := attr(n, "id"); id != "" {
			if _, seen := w.ids[id]; !seen {
				w.ids[id] = w.b.Len()
			}
		}
		switch {
		case n.Data == "br":
			w.brk(line)
			return
		case n.Data == "td" || n.Data == "th":
			w.brk(space)
		case blocks[n.Data]:
			w.brk(paragraph)
		}
		if n.Data == "h1" || n.Data == "h2" {
			w.heads = append(w.heads, head{w.b.Len(), innerText(n)})
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	if n.Type == html.ElementNode && blocks[n.Data] {
		w.brk(paragraph)
	}
}

// readDocument reads an (X)HTML document's text.
func readDocument(format, name string, raw []byte) (*document, error) {
	src, err := utf8Document(format, name, raw)
	if err != nil {
		return nil, err
	}
	root, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return nil, formatError(format, err, "%s cannot be parsed: %v", name, err)
	}
	w := textWriter{ids: map[string]int{}}
	w.walk(root)
	return &document{text: w.b.String(), ids: w.ids, heads: w.heads}, nil
}

// htmlBook splits an HTML page into chapters at its h1 and h2 headings,
// as Markdown's are.
func htmlBook(data []byte) ([]Chapter, error) {
	d, err := readDocument("html", "the page", data)
	if err != nil {
		return nil, err
	}
	chapters := []Chapter{{Text: d.text[:d.cut(0)]}}
	for i, h := range d.heads {
		chapters = append(chapters, Chapter{Title: h.title, Text: dropTitle(h.title, d.text[h.at:d.cut(i+1)])})
	}
	return chapters, nil
}

// cut is where the document's heading i starts, or its end.
func (d *document) cut(i int) int {
	if i < len(d.heads) {
		return d.heads[i].at
	}
	return len(d.text)
}

// innerText is the text in n, on one line.
func innerText(n *html.Node) string {
	t := textWriter{ids: map[string]int{}}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		t.walk(c)
	}
	return strings.Join(strings.Fields(t.b.String()), " ")
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// unheard reports whether an element is one a listener does not hear:
// a page-break marker, a note reference, a note or its link back to the
// text, as EPUB 3 marks them (epub:type), as ARIA does (role), and as
// pandoc does where it has neither (EPUB 2, HTML 4: its classes).
func unheard(n *html.Node) bool {
	t := epubType(n)
	for _, kind := range []string{"pagebreak", "noteref", "footnote", "endnote", "rearnote"} {
		if strings.Contains(t, kind) {
			return true
		}
	}
	for _, f := range strings.Fields(attr(n, "role")) {
		switch f {
		case "doc-pagebreak", "doc-noteref", "doc-footnote", "doc-endnote", "doc-endnotes", "doc-backlink":
			return true
		}
	}
	for _, f := range strings.Fields(attr(n, "class")) {
		switch f {
		case "footnote-ref", "footnotes", "footnote-back":
			return true
		}
	}
	return false
}

// epubType is an element's epub:type attribute.
func epubType(n *html.Node) string {
	for _, a := range n.Attr {
		if a.Key == "epub:type" || (a.Key == "type" && a.Namespace == "epub") {
			return a.Val
		}
	}
	return ""
}
