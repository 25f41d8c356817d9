package book

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// file is one entry of a test EPUB.
type file struct{ name, body string }

// makeZip writes files into a zip archive, "mimetype" stored first as an
// EPUB's is.
func makeZip(t testing.TB, files ...file) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		method := zip.Deflate
		if f.name == "mimetype" {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const containerXML = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`

func xhtml(title, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>` + title + `</title><style>p { margin: 0 }</style></head>
<body>` + body + `</body></html>`
}

// The documents both test books share: a cover with no entry in the table
// of contents, two chapters in one file (cut at an id), a chapter split
// over two files, and non-linear notes.
var (
	cover = xhtml("Cover", `<div><p>The Lighthouse</p><p>by A. Keeper</p></div>`)
	ch12  = xhtml("One and two", `<section id="c1"><h1>Chapter 1</h1>
<p>The lamp was lit at <em>dusk</em>,
   every day.</p><p>Gulls&nbsp;cried.<span epub:type="pagebreak" id="p2" title="2"/></p></section>
<section id="c2"><h1>Chapter 2: Fog</h1><p>Fog came in.<a epub:type="noteref" href="notes.xhtml#n1">1</a> Nobody slept.</p>
<ul><li>a bell</li><li>a horn</li></ul><p>Line one<br/>line two</p></section>`)
	ch3a  = xhtml("Three", `<h2>Chapter 3</h2><p>The storm began.</p><script>var x = "not read";</script>`)
	ch3b  = xhtml("Three, continued", `<p>It ended at dawn.</p><table><tr><td>Wind</td><td>strong</td></tr></table>`)
	notes = xhtml("Notes", `<aside id="n1"><p>A note not read in order.</p></aside>`)
)

const opfManifest = `
  <manifest>
    <item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch12" href="text/ch%%2012.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch3a" href="text/ch3a.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch3b" href="text/ch3b.xhtml" media-type="application/xhtml+xml"/>
    <item id="notes" href="notes.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
    %s
  </manifest>
  <spine%s>
    <itemref idref="cover"/>
    <itemref idref="ch12"/>
    <itemref idref="notes" linear="no"/>
    <itemref idref="ch3a"/>
    <itemref idref="ch3b"/>
  </spine>`

func opf(version, navItem, spineAttr string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="` + version + `" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Lighthouse</dc:title></metadata>` +
		fmt.Sprintf(opfManifest, navItem, spineAttr) + `
</package>`
}

const ncx = `<?xml version="1.0" encoding="UTF-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
  <head/><docTitle><text>The Lighthouse</text></docTitle>
  <navMap>
    <navPoint id="n1" playOrder="1"><navLabel><text>Chapter 1</text></navLabel><content src="text/ch%2012.xhtml#c1"/>
      <navPoint id="n1a" playOrder="2"><navLabel><text>Part of one</text></navLabel><content src="text/ch%2012.xhtml#c1"/>
        <navPoint id="n1b" playOrder="3"><navLabel><text>Too deep</text></navLabel><content src="text/ch%2012.xhtml#p2"/></navPoint>
      </navPoint>
    </navPoint>
    <navPoint id="n2" playOrder="4"><navLabel><text>Chapter 2: Fog</text></navLabel><content src="text/ch%2012.xhtml#c2"/></navPoint>
    <navPoint id="n3" playOrder="5"><navLabel><text>Chapter 3</text></navLabel><content src="text/ch3a.xhtml"/></navPoint>
  </navMap>
</ncx>`

const nav = `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>Contents</title></head><body>
<nav epub:type="landmarks"><ol><li><a href="cover.xhtml">Cover</a></li></ol></nav>
<nav epub:type="toc"><h1>Contents</h1><ol>
  <li><a href="text/ch%2012.xhtml#c1">Chapter 1</a>
    <ol><li><a href="text/ch%2012.xhtml#c1">Part of one</a><ol><li><a href="text/ch%2012.xhtml#p2">Too deep</a></li></ol></li></ol></li>
  <li><a href="text/ch%2012.xhtml#c2">Chapter <b>2</b>: Fog</a></li>
  <li><a href="text/ch3a.xhtml">Chapter 3</a></li>
</ol></nav></body></html>`

func epubFiles(version string) []file {
	files := []file{
		{"mimetype", "application/epub+zip"},
		{"META-INF/container.xml", containerXML},
		{"OEBPS/cover.xhtml", cover},
		{"OEBPS/text/ch 12.xhtml", ch12},
		{"OEBPS/text/ch3a.xhtml", ch3a},
		{"OEBPS/text/ch3b.xhtml", ch3b},
		{"OEBPS/notes.xhtml", notes},
		{"OEBPS/style.css", "p {}"},
	}
	if version == "3" {
		return append(files,
			file{"OEBPS/content.opf", opf("3.0", `<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>`, "")},
			file{"OEBPS/nav.xhtml", nav})
	}
	return append(files,
		file{"OEBPS/content.opf", opf("2.0", `<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>`, ` toc="ncx"`)},
		file{"OEBPS/toc.ncx", ncx})
}

// The chapters both versions of the book give.
var lighthouse = []Chapter{
	{"", "The Lighthouse\n\nby A. Keeper"},
	{"Part of one", "Chapter 1\n\nThe lamp was lit at dusk, every day.\n\nGulls cried."},
	{"Chapter 2: Fog", "Fog came in. Nobody slept.\n\na bell\n\na horn\n\nLine one\nline two"},
	{"Chapter 3", "The storm began.\n\nIt ended at dawn.\n\nWind strong"},
}

func TestEPUB(t *testing.T) {
	for _, version := range []string{"2", "3"} {
		t.Run("EPUB"+version, func(t *testing.T) {
			got, err := Parse("lighthouse.epub", "application/epub+zip", makeZip(t, epubFiles(version)...))
			if err != nil {
				t.Fatal(err)
			}
			checkChapters(t, got, lighthouse)
		})
	}
}

func checkChapters(t *testing.T, got, want []Chapter) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d chapters, want %d:\n%q", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("chapter %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}
}

// TestEPUBWithoutTOC: a book without a table of contents has a chapter per
// spine document, titled by its first heading (not read twice).
func TestEPUBWithoutTOC(t *testing.T) {
	files := epubFiles("2")
	files = files[:len(files)-1] // no toc.ncx
	got, err := Parse("", "", makeZip(t, files...))
	if err != nil {
		t.Fatal(err)
	}
	checkChapters(t, got, []Chapter{
		{"", "The Lighthouse\n\nby A. Keeper"},
		{"Chapter 1", "The lamp was lit at dusk, every day.\n\nGulls cried.\n\nChapter 2: Fog\n\nFog came in. Nobody slept.\n\na bell\n\na horn\n\nLine one\nline two"},
		{"Chapter 3", "The storm began."},
		{"", "It ended at dawn.\n\nWind strong"},
	})
}

// TestPandocEPUB reads EPUBs that a real tool made (pandoc: .ci/deps.sh
// test installs it).
func TestPandocEPUB(t *testing.T) {
	audiotest.Require(t, "pandoc")
	dir := t.TempDir()
	md := filepath.Join(dir, "book.md")
	os.WriteFile(md, []byte("% The Book\n% Ann Author\n\n# Chapter One\n\nIt was *dark*. \"Hello,\" she said.\n\n"+
		"# Chapter Two\n\nSecond text, with a [link](http://example.com).\n\n## A Section\n\nMore text.[^1]\n\n### Deeper\n\nStill two.\n\n"+
		"[^1]: A footnote, not read.\n"), 0o644)
	for _, to := range []string{"epub2", "epub3"} {
		t.Run(to, func(t *testing.T) {
			t.Parallel() // pandoc's start is most of the package's time
			out := filepath.Join(dir, to+".epub")
			if b, err := exec.Command("pandoc", "-t", to, md, "-o", out).CombinedOutput(); err != nil {
				t.Fatalf("pandoc: %v\n%s", err, b)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(filepath.Base(out), "", data)
			if err != nil {
				t.Fatal(err)
			}
			// pandoc's EPUB 2 lists its title page in toc.ncx, its EPUB
			// 3 only among the landmarks.
			titlePage := Chapter{"", "The Book\n\nAnn Author"}
			if to == "epub2" {
				titlePage = Chapter{"The Book", "Ann Author"}
			}
			checkChapters(t, got, []Chapter{
				titlePage,
				{"Chapter One", "It was dark. \u201cHello,\u201d she said."},
				{"Chapter Two", "Second text, with a link."},
				{"A Section", "More text.\n\nDeeper\n\nStill two."},
			})
		})
	}
}

func TestEPUBErrors(t *testing.T) {
	good := epubFiles("3")
	replace := func(name, body string) []file {
		var out []file
		for _, f := range good {
			if f.name == name {
				if body == "" {
					continue
				}
				f.body = body
			}
			out = append(out, f)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		reason error
		msg    string
	}{
		{"not a zip", []byte("PK\x03\x04 but not really a zip archive"), nil, "not a zip archive"},
		{"no container", makeZip(t, replace("META-INF/container.xml", "")...), nil, "META-INF/container.xml is missing"},
		{"no rootfile", makeZip(t, replace("META-INF/container.xml", "<container><rootfiles/></container>")...), nil, "names no package document"},
		{"no package", makeZip(t, replace("OEBPS/content.opf", "")...), nil, "OEBPS/content.opf is missing"},
		{"package not XML", makeZip(t, replace("OEBPS/content.opf", "<package><manifest>")...), nil, "not well-formed XML"},
		{"empty spine", makeZip(t, replace("OEBPS/content.opf", `<package><manifest/><spine/></package>`)...), nil, "the spine lists no documents"},
		{"spine names nothing", makeZip(t, replace("OEBPS/content.opf", `<package><manifest/><spine><itemref idref="x"/></spine></package>`)...), nil, `names "x"`},
		{"document missing", makeZip(t, replace("OEBPS/text/ch3a.xhtml", "")...), nil, "text/ch3a.xhtml, in the spine, is missing"},
		{"document not UTF-8", makeZip(t, replace("OEBPS/text/ch3a.xhtml", "<p>caf\xe9</p>")...), ErrEncoding, "text/ch3a.xhtml is not UTF-8"},
		{"no text", makeZip(t, blank(good)...), ErrEmpty, "no text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("book.epub", "", tc.data)
			checkError(t, err, "epub", tc.reason, tc.msg)
		})
	}
}

// blank empties a book's documents.
func blank(files []file) []file {
	var out []file
	for _, f := range files {
		if strings.HasPrefix(f.name, "OEBPS/text/") || f.name == "OEBPS/cover.xhtml" {
			f.body = xhtml("Nothing", "<p> </p><img src='x.png'/>")
		}
		out = append(out, f)
	}
	return out
}

func checkError(t *testing.T, err error, format string, reason error, msg string) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want a *FormatError", err, err)
	}
	if fe.Format != format || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "book: ") {
		t.Errorf("error %q (format %q), want format %q and %q in it", err, fe.Format, format, msg)
	}
	if reason != nil && !errors.Is(err, reason) {
		t.Errorf("error %v is not %v", err, reason)
	}
}

// TestZipBomb: what an archive decompresses to counts against the
// Parser's limit, whatever sizes its headers claim.
func TestZipBomb(t *testing.T) {
	big := strings.Repeat("<p>a</p>", 1<<20) // 8 MiB that deflate to a few KiB
	files := epubFiles("3")
	for i, f := range files {
		if f.name == "OEBPS/text/ch3b.xhtml" {
			files[i].body = big
		}
	}
	p := Parser{MaxSize: 1 << 20}
	_, err := p.Parse("", "", makeZip(t, files...))
	checkError(t, err, "epub", ErrTooLarge, "more than the 1048576 bytes")

	// The same entry, its header claiming 100 bytes: archive/zip stops
	// reading at the size claimed.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range epubFiles("3") {
		if f.name == "OEBPS/text/ch3b.xhtml" {
			var z bytes.Buffer
			fw := zip.NewWriter(&z)
			w, _ := fw.Create("x")
			w.Write([]byte(big))
			fw.Close()
			raw := rawDeflate(t, z.Bytes())
			w, err := zw.CreateRaw(&zip.FileHeader{Name: f.name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE([]byte(big)),
				CompressedSize64: uint64(len(raw)), UncompressedSize64: 100})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(raw)
			continue
		}
		w, _ := zw.Create(f.name)
		w.Write([]byte(f.body))
	}
	zw.Close()
	_, err = p.Parse("", "", buf.Bytes())
	checkError(t, err, "epub", nil, "OEBPS/text/ch3b.xhtml cannot be decompressed")

	p = Parser{MaxEntries: 5}
	_, err = p.Parse("", "", makeZip(t, epubFiles("3")...))
	checkError(t, err, "epub", ErrTooLarge, "more than 5")
}

// rawDeflate takes the deflated data of a one-entry zip archive's entry.
func rawDeflate(t *testing.T, archive []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	off, err := zr.File[0].DataOffset()
	if err != nil {
		t.Fatal(err)
	}
	return archive[off : off+int64(zr.File[0].CompressedSize64)]
}
