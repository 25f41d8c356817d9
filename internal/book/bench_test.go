package book

import (
	"fmt"
	"strings"
	"testing"
)

// A 60,000-word book (the long-form figure) in 30 chapters, as
// Markdown and as an EPUB 3 of one document per chapter.
func longBook() (md string, files []file) {
	para := `On 3 May 1999, "Wait," said *Ann*, "it's 4:30 PM." She paid $12.50 for [the tickets](http://example.com) and ran.`
	var b strings.Builder
	nav := `<nav epub:type="toc"><ol>`
	var spine, manifest string
	for c := 1; c <= 30; c++ {
		var x strings.Builder
		fmt.Fprintf(&b, "# Chapter %d\n\n", c)
		for range 110 { // 110 paragraphs of 18 words
			b.WriteString(para + "\n\n")
			x.WriteString("<p>" + para + "</p>\n")
		}
		name := fmt.Sprintf("c%d.xhtml", c)
		files = append(files, file{"OEBPS/" + name, xhtml("c", fmt.Sprintf("<h1>Chapter %d</h1>", c)+x.String())})
		nav += fmt.Sprintf(`<li><a href="%s">Chapter %d</a></li>`, name, c)
		manifest += fmt.Sprintf(`<item id="c%d" href="%s" media-type="application/xhtml+xml"/>`, c, name)
		spine += fmt.Sprintf(`<itemref idref="c%d"/>`, c)
	}
	files = append(files,
		file{"mimetype", "application/epub+zip"},
		file{"META-INF/container.xml", containerXML},
		file{"OEBPS/nav.xhtml", `<html xmlns:epub="http://www.idpf.org/2007/ops"><body>` + nav + `</ol></nav></body></html>`},
		file{"OEBPS/content.opf", `<package><manifest><item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/>` + manifest + `</manifest><spine>` + spine + `</spine></package>`})
	return b.String(), files
}

func BenchmarkParse(b *testing.B) {
	md, files := longBook()
	epub := makeZip(b, files...)
	for _, bc := range []struct {
		name string
		data []byte
	}{{"markdown", []byte(md)}, {"epub", epub}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(md)))
			for b.Loop() {
				chapters, err := Parse("book."+map[string]string{"markdown": "md", "epub": "epub"}[bc.name], "", bc.data)
				if err != nil || len(chapters) != 30 {
					b.Fatalf("%d chapters, %v", len(chapters), err)
				}
			}
		})
	}
}
