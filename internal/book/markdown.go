package book

import (
	"html"
	"regexp"
	"strings"
)

// Markdown's block syntax, line by line.
var (
	atxHeading  = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextLine  = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	rule        = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	fence       = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	listItem    = regexp.MustCompile(`^[ \t]*(?:[-*+]|[0-9]{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(.*)$`)
	refDef      = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:`)
	tableRule   = regexp.MustCompile(`^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$`)
	quoteMarker = regexp.MustCompile(`^ {0,3}(?:>[ \t]?)+`)
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
)

// Markdown's inline syntax, replaced in this order; a rule runs only on
// text that holds its mark.
var inlines = []struct {
	mark string
	re   *regexp.Regexp
	with string
}{
	{"![", regexp.MustCompile(`!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])`), ""},    // images
	{"[^", regexp.MustCompile(`\[\^[^\]]*\]`), ""},                           // footnote marks
	{"[", regexp.MustCompile(`\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])`), "$1"},  // links
	{"<", regexp.MustCompile(`<((?:https?|ftp|mailto):[^>\s]+)>`), "$1"},     // autolinks
	{"<", regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9-]*(?:\s[^>]*)?/?>`), ""}, // HTML tags
	{"`", regexp.MustCompile("(`+)[ ]?(.+?)[ ]?`+"), "$2"},                   // code spans
	{"***", regexp.MustCompile(`\*\*\*(\S(?:.*?\S)?)\*\*\*`), "$1"},
	{"**", regexp.MustCompile(`\*\*(\S(?:.*?\S)?)\*\*`), "$1"},
	{"*", regexp.MustCompile(`\*(\S(?:.*?\S)?)\*`), "$1"},
	{"___", regexp.MustCompile(`(^|[^\pL\pN_])___(\S(?:.*?\S)?)___($|[^\pL\pN_])`), "$1$2$3"},
	{"__", regexp.MustCompile(`(^|[^\pL\pN_])__(\S(?:.*?\S)?)__($|[^\pL\pN_])`), "$1$2$3"},
	{"_", regexp.MustCompile(`(^|[^\pL\pN_])_(\S(?:.*?\S)?)_($|[^\pL\pN_])`), "$1$2$3"},
	{"~~", regexp.MustCompile(`~~(\S(?:.*?\S)?)~~`), "$1"},
}

// escaped is a backslash escape: it stands for the character itself and
// is hidden from the inline syntax while that is stripped.
var escaped = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")

// inline strips the inline syntax of one paragraph's text and collapses
// its white space.
func inline(s string) string {
	if strings.Contains(s, `\`) {
		s = escaped.ReplaceAllStringFunc(s, func(m string) string { return string(rune(0xE000 + int(m[1]))) })
	}
	for _, in := range inlines {
		if strings.Contains(s, in.mark) {
			s = in.re.ReplaceAllString(s, in.with)
		}
	}
	s = strings.Map(func(r rune) rune {
		if r >= 0xE000 && r < 0xE080 {
			return r - 0xE000
		}
		return r
	}, s)
	return strings.Join(strings.Fields(html.UnescapeString(s)), " ")
}

// mdReader gathers a Markdown text's chapters.
type mdReader struct {
	chapters []Chapter
	paras    []string // the current chapter's paragraphs
	title    string
	para     []string // the lines of the paragraph being read
	items    []string // the items of the list being read
	gap      bool     // a blank line came after the last list item
	table    bool     // items are a table's rows
}

func (m *mdReader) endPara() {
	if len(m.para) > 0 {
		if s := inline(strings.Join(m.para, " ")); s != "" {
			m.paras = append(m.paras, s)
		}
		m.para = nil
	}
}

func (m *mdReader) endList() {
	var lines []string
	for _, it := range m.items {
		if s := inline(it); s != "" {
			lines = append(lines, s)
		}
	}
	if len(lines) > 0 {
		m.paras = append(m.paras, strings.Join(lines, "\n"))
	}
	m.items, m.gap, m.table = nil, false, false
}

func (m *mdReader) endBlock() {
	m.endPara()
	m.endList()
}

func (m *mdReader) endChapter() {
	m.endBlock()
	if m.title != "" || len(m.paras) > 0 {
		m.chapters = append(m.chapters, Chapter{Title: m.title, Text: strings.Join(m.paras, "\n\n")})
	}
	m.title, m.paras = "", nil
}

// heading starts a chapter ("#", "##") or adds a paragraph (deeper).
func (m *mdReader) heading(level int, text string) {
	if level <= 2 {
		m.endChapter()
		m.title = inline(text)
		return
	}
	m.endBlock()
	if s := inline(text); s != "" {
		m.paras = append(m.paras, s)
	}
}

// markdown splits Markdown text into chapters at its "#" and "##"
// headings and strips its syntax.
func markdown(text string) []Chapter {
	text = htmlComment.ReplaceAllString(text, "")
	lines := strings.Split(text, "\n")
	lines = skipFrontMatter(lines)
	var (
		m        mdReader
		fenceTag string // the open code fence's marker, "" outside one
	)
	for _, line := range lines {
		if fenceTag != "" {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, fenceTag) && strings.Trim(t, fenceTag[:1]) == "" {
				fenceTag = ""
			}
			continue
		}
		if f := fence.FindStringSubmatch(line); f != nil {
			// Code is not read aloud: the block is left out.
			m.endBlock()
			fenceTag = f[1]
			continue
		}
		line = quoteMarker.ReplaceAllString(line, "")
		blank := strings.TrimSpace(line) == ""
		switch {
		case blank:
			m.endPara()
			if len(m.items) > 0 {
				m.gap = true
			}
		case atxHeading.MatchString(line):
			h := atxHeading.FindStringSubmatch(line)
			m.heading(len(h[1]), h[2])
		case setextLine.MatchString(line) && len(m.para) > 0:
			text := strings.Join(m.para, " ")
			m.para = nil
			level := 1
			if strings.TrimSpace(line)[0] == '-' {
				level = 2
			}
			m.heading(level, text)
		case rule.MatchString(line):
			m.endBlock()
		case refDef.MatchString(line):
			// Link and footnote definitions are not text.
		case tableRule.MatchString(line) && len(m.para) > 0:
			// The row above was a table's header: each row becomes a line
			// of its cells.
			header := tableRow(m.para[len(m.para)-1])
			m.para = m.para[:len(m.para)-1]
			m.endBlock()
			m.items, m.table = []string{header}, true
		case listItem.MatchString(line):
			m.endPara()
			if m.table {
				m.endList()
			}
			m.items = append(m.items, listItem.FindStringSubmatch(line)[1])
			m.gap = false
		case m.table && strings.Contains(line, "|") && !m.gap:
			m.items = append(m.items, tableRow(line))
		case len(m.items) > 0 && (!m.gap || startsIndented(line)):
			// A list item's continuation.
			if m.gap {
				m.items = append(m.items, strings.TrimSpace(line))
			} else {
				m.items[len(m.items)-1] += " " + strings.TrimSpace(line)
			}
			m.gap = false
		default:
			if len(m.items) > 0 {
				m.endList()
			}
			m.para = append(m.para, strings.TrimSpace(line))
		}
	}
	m.endChapter()
	return m.chapters
}

func startsIndented(line string) bool {
	return strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t")
}

// tableRow makes a line of a table row's cells: "| a | b |" is "a, b".
func tableRow(line string) string {
	var cells []string
	for c := range strings.SplitSeq(strings.Trim(strings.TrimSpace(line), "|"), "|") {
		if c = strings.TrimSpace(c); c != "" {
			cells = append(cells, c)
		}
	}
	return strings.Join(cells, ", ")
}

// skipFrontMatter drops a YAML front matter block ("---" first, up to the
// next "---" or "...").
func skipFrontMatter(lines []string) []string {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return lines
	}
	for i := 1; i < len(lines); i++ {
		if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
			return lines[i+1:]
		}
	}
	return lines
}
