package book

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// archive reads an EPUB's files within the Parser's limits.
type archive struct {
	files map[string]*zip.File
	lower map[string]*zip.File // by lower-case name, for books whose hrefs' case is wrong
	left  int64                // bytes that may still be decompressed
	limit int64
}

func (p *Parser) openArchive(data []byte) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // nothing is written to disk
		return nil, formatError("epub", err, "not a zip archive (an EPUB is one): %v", err)
	}
	maxEntries, maxSize := p.MaxEntries, p.MaxSize
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	if len(zr.File) > maxEntries {
		return nil, formatError("epub", ErrTooLarge, "the archive holds %d files, more than %d", len(zr.File), maxEntries)
	}
	a := &archive{files: map[string]*zip.File{}, lower: map[string]*zip.File{}, left: maxSize, limit: maxSize}
	for _, f := range zr.File {
		a.files[f.Name] = f
		a.lower[strings.ToLower(f.Name)] = f
	}
	return a, nil
}

// read decompresses one file, counting its bytes against the limit
// whatever its header claims.
func (a *archive) read(name string) ([]byte, error) {
	f := a.files[name]
	if f == nil {
		f = a.lower[strings.ToLower(name)]
	}
	if f == nil {
		return nil, errMissing
	}
	if f.UncompressedSize64 > uint64(a.left) {
		return nil, formatError("epub", ErrTooLarge, "%s decompresses to more than the %d bytes allowed", name, a.limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, formatError("epub", err, "%s cannot be read: %v", name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, a.left+1))
	if err != nil {
		return nil, formatError("epub", err, "%s cannot be decompressed: %v", name, err)
	}
	if int64(len(data)) > a.left {
		return nil, formatError("epub", ErrTooLarge, "the archive decompresses to more than the %d bytes allowed", a.limit)
	}
	a.left -= int64(len(data))
	return data, nil
}

var errMissing = errors.New("book: missing")

// The parts of the EPUB's XML files that are read.
type (
	container struct {
		Rootfiles []struct {
			FullPath  string `xml:"full-path,attr"`
			MediaType string `xml:"media-type,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	packageDoc struct {
		Items []struct {
			ID         string `xml:"id,attr"`
			Href       string `xml:"href,attr"`
			MediaType  string `xml:"media-type,attr"`
			Properties string `xml:"properties,attr"`
		} `xml:"manifest>item"`
		Spine struct {
			Toc   string `xml:"toc,attr"`
			Items []struct {
				IDRef  string `xml:"idref,attr"`
				Linear string `xml:"linear,attr"`
			} `xml:"itemref"`
		} `xml:"spine"`
	}
	ncxPoint struct {
		Label   string     `xml:"navLabel>text"`
		Content ncxSrc     `xml:"content"`
		Points  []ncxPoint `xml:"navPoint"`
	}
	ncxSrc struct {
		Src string `xml:"src,attr"`
	}
	ncxDoc struct {
		Points []ncxPoint `xml:"navMap>navPoint"`
	}
)

// tocEntry is a chapter title of the table of contents, and where it
// points: a document of the book (its path in the archive) and an id in
// it ("" for its start).
type tocEntry struct {
	file, frag, title string
}

func (a *archive) xml(name string, v any) error {
	data, err := a.read(name)
	if err != nil {
		return err
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	if err := d.Decode(v); err != nil {
		return formatError("epub", err, "%s is not well-formed XML: %v", name, err)
	}
	return nil
}

func (p *Parser) epub(data []byte) ([]Chapter, error) {
	a, err := p.openArchive(data)
	if err != nil {
		return nil, err
	}
	var c container
	if err := a.xml("META-INF/container.xml", &c); err != nil {
		if errors.Is(err, errMissing) {
			return nil, formatError("epub", err, "META-INF/container.xml is missing: is it an EPUB?")
		}
		return nil, err
	}
	opfPath := ""
	for _, r := range c.Rootfiles {
		if r.MediaType == "" || r.MediaType == "application/oebps-package+xml" {
			opfPath = r.FullPath
			break
		}
	}
	if opfPath == "" {
		return nil, formatError("epub", nil, "META-INF/container.xml names no package document")
	}
	opfPath = strings.TrimPrefix(opfPath, "/")
	var pkg packageDoc
	if err := a.xml(opfPath, &pkg); err != nil {
		if errors.Is(err, errMissing) {
			return nil, formatError("epub", err, "the package document %s is missing", opfPath)
		}
		return nil, err
	}
	dir := path.Dir(opfPath)
	type item struct{ href, mediaType, properties string }
	manifest := map[string]item{}
	for _, it := range pkg.Items {
		manifest[it.ID] = item{resolve(dir, it.Href), it.MediaType, it.Properties}
	}
	if len(pkg.Spine.Items) == 0 {
		return nil, formatError("epub", nil, "%s: the spine lists no documents", opfPath)
	}

	// The table of contents: the EPUB 3 navigation document, else the
	// EPUB 2 NCX.
	var toc []tocEntry
	for _, it := range pkg.Items {
		if slices.Contains(strings.Fields(it.Properties), "nav") {
			toc, err = a.nav(manifest[it.ID].href)
			if err != nil {
				return nil, err
			}
		}
	}
	if len(toc) == 0 {
		ncxID := pkg.Spine.Toc
		for _, it := range pkg.Items {
			if ncxID == "" && it.MediaType == "application/x-dtbncx+xml" {
				ncxID = it.ID
			}
		}
		if it, ok := manifest[ncxID]; ok {
			toc, err = a.ncx(it.href)
			if err != nil {
				return nil, err
			}
		}
	}
	byFile := map[string][]tocEntry{}
	for _, e := range toc {
		byFile[e.file] = append(byFile[e.file], e)
	}

	var chapters []Chapter
	for _, ref := range pkg.Spine.Items {
		it, ok := manifest[ref.IDRef]
		if !ok {
			return nil, formatError("epub", nil, "%s: the spine names %q, which the manifest does not list", opfPath, ref.IDRef)
		}
		if ref.Linear == "no" || !isXHTML(it.mediaType) {
			continue
		}
		raw, err := a.read(it.href)
		if errors.Is(err, errMissing) {
			return nil, formatError("epub", err, "%s, in the spine, is missing from the archive", it.href)
		}
		if err != nil {
			return nil, err
		}
		doc, err := readDocument("epub", it.href, raw)
		if err != nil {
			return nil, err
		}
		chapters = doc.chapters(chapters, byFile[it.href], len(toc) > 0)
	}
	for i := range chapters {
		chapters[i].Text = dropTitle(chapters[i].Title, chapters[i].Text)
	}
	return chapters, nil
}

// chapters adds a spine document's text to the book's chapters: before
// its first entry in the table of contents it continues the chapter
// before; each entry starts a chapter. A book with no table of contents
// has a chapter per document, titled by its first heading.
func (d *document) chapters(chapters []Chapter, entries []tocEntry, haveTOC bool) []Chapter {
	if !haveTOC {
		title := ""
		if len(d.heads) > 0 {
			title = d.heads[0].title
		}
		return append(chapters, Chapter{Title: title, Text: d.text})
	}
	type cut struct {
		at    int
		title string
	}
	var cuts []cut
	for _, e := range entries {
		at := 0
		if e.frag != "" {
			at = d.ids[e.frag] // an unknown id: the document's start
		}
		cuts = append(cuts, cut{at, e.title})
	}
	slices.SortStableFunc(cuts, func(x, y cut) int { return x.at - y.at })
	// Entries at one place (a part and its first chapter): the last,
	// innermost, names the chapter.
	for i := 0; i+1 < len(cuts); {
		if cuts[i].at == cuts[i+1].at {
			cuts = slices.Delete(cuts, i, i+1)
		} else {
			i++
		}
	}
	head := len(d.text)
	if len(cuts) > 0 {
		head = cuts[0].at
	}
	if before := d.text[:head]; strings.TrimSpace(before) != "" {
		if len(chapters) == 0 {
			chapters = append(chapters, Chapter{})
		}
		last := &chapters[len(chapters)-1]
		last.Text += "\n\n" + before
	}
	for i, c := range cuts {
		end := len(d.text)
		if i+1 < len(cuts) {
			end = cuts[i+1].at
		}
		chapters = append(chapters, Chapter{Title: c.title, Text: d.text[c.at:end]})
	}
	return chapters
}

// dropTitle leaves out a chapter's first paragraph, or first two, when
// they only repeat the title ("Chapter 1" and "Loomings" under the title
// "Chapter 1. Loomings"): the title is not read twice.
func dropTitle(title, text string) string {
	text = strings.TrimSpace(text)
	want := letters(title)
	if want == "" {
		return text
	}
	first, rest, _ := strings.Cut(text, "\n\n")
	if letters(first) == want {
		return rest
	}
	second, rest2, _ := strings.Cut(rest, "\n\n")
	if letters(first+second) == want {
		return rest2
	}
	return text
}

// letters is s's letters and digits, in lower case.
func letters(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

func isXHTML(mediaType string) bool {
	switch mediaType {
	case "application/xhtml+xml", "text/html", "application/xml", "text/xml":
		return true
	}
	return false
}

// resolve makes the archive path of href, relative to dir, without its
// fragment.
func resolve(dir, href string) string {
	href, _, _ = strings.Cut(href, "#")
	if u, err := url.PathUnescape(href); err == nil {
		href = u
	}
	if strings.HasPrefix(href, "/") {
		return strings.TrimPrefix(path.Clean(href), "/")
	}
	return strings.TrimPrefix(path.Join(dir, href), "./")
}

func fragment(href string) string {
	_, frag, _ := strings.Cut(href, "#")
	if u, err := url.PathUnescape(frag); err == nil {
		return u
	}
	return frag
}

// ncx reads an EPUB 2 table of contents, its nested points in reading
// order.
func (a *archive) ncx(name string) ([]tocEntry, error) {
	var doc ncxDoc
	if err := a.xml(name, &doc); err != nil {
		if errors.Is(err, errMissing) {
			return nil, nil // the spine still gives the order
		}
		return nil, err
	}
	var toc []tocEntry
	var walk func([]ncxPoint, int)
	walk = func(points []ncxPoint, depth int) {
		if depth > maxTOCDepth {
			return
		}
		for _, p := range points {
			if p.Content.Src != "" {
				toc = append(toc, tocEntry{resolve(path.Dir(name), p.Content.Src), fragment(p.Content.Src), strings.Join(strings.Fields(p.Label), " ")})
			}
			walk(p.Points, depth+1)
		}
	}
	walk(doc.Points, 1)
	return toc, nil
}

// nav reads an EPUB 3 navigation document's table of contents: the links
// of its nav element of type "toc" (or of its first nav).
func (a *archive) nav(name string) ([]tocEntry, error) {
	raw, err := a.read(name)
	if errors.Is(err, errMissing) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	text, err := utf8Document("epub", name, raw)
	if err != nil {
		return nil, err
	}
	root, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return nil, formatError("epub", err, "%s cannot be parsed: %v", name, err)
	}
	var navs []*html.Node
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.Data == "nav" {
			navs = append(navs, n)
		}
	}
	if len(navs) == 0 {
		return nil, nil
	}
	toc := navs[0]
	for _, n := range navs {
		if slices.Contains(strings.Fields(epubType(n)), "toc") {
			toc = n
			break
		}
	}
	var entries []tocEntry
	for n := range toc.Descendants() {
		if n.Type != html.ElementNode || n.Data != "a" {
			continue
		}
		href := attr(n, "href")
		if href == "" || listDepth(n, toc) > maxTOCDepth {
			continue
		}
		entries = append(entries, tocEntry{resolve(path.Dir(name), href), fragment(href), innerText(n)})
	}
	return entries, nil
}

// maxTOCDepth is the deepest level of the table of contents that starts
// chapters: parts and chapters, as Markdown's "#" and "##", not their
// sections.
const maxTOCDepth = 2

// listDepth counts the lists around n up to the nav element.
func listDepth(n, nav *html.Node) int {
	depth := 0
	for p := n.Parent; p != nil && p != nav; p = p.Parent {
		if p.Type == html.ElementNode && (p.Data == "ol" || p.Data == "ul") {
			depth++
		}
	}
	return depth
}

// utf8Document checks an XHTML document's encoding: UTF-8, or UTF-16
// with a byte order mark (converted).
func utf8Document(format, name string, raw []byte) (string, error) {
	if bytes.HasPrefix(raw, []byte{0xFF, 0xFE}) || bytes.HasPrefix(raw, []byte{0xFE, 0xFF}) {
		s, err := fromUTF16(raw)
		if err != nil {
			return "", formatError(format, ErrEncoding, "%s: %v", name, err)
		}
		return s, nil
	}
	raw = bytes.TrimPrefix(raw, []byte{0xEF, 0xBB, 0xBF})
	if !utf8.Valid(raw) {
		return "", formatError(format, ErrEncoding, "%s is not UTF-8 (invalid byte at offset %d)", name, invalidAt(raw))
	}
	return string(raw), nil
}
