package tags

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Options control Parse. The zero value parses leniently and accepts every
// tag of the vocabulary.
type Options struct {
	// Strict makes Parse fail with a *StrictError when any tag is unknown,
	// unsupported, has a bad or out-of-range value, names an unknown
	// voice or closes nothing. Otherwise such tags are dropped (or, for
	// out-of-range values, clamped) and listed in Script.Issues.
	Strict bool
	// Supports reports whether the renderer can render the named tag of
	// the vocabulary. Nil means every tag.
	Supports func(name string) bool
	// Voice reports whether a <|voice:ID|> tag may switch to voice id.
	// Nil accepts every id.
	Voice func(id string) bool
	// Open are style tags in force from the start of the input, as if
	// written before it but not part of it (as Script.Open lists them, or
	// Instructions.Open): they style the whole input unless it closes
	// them, and tags in the input override them.
	Open []string
	// Lang is the language of the input (a BCP 47 tag; "" when unknown),
	// kept as Script.Lang for Script.Sentences.
	Lang string
}

// Script is parsed input: text in resolved styles, and events, in order.
type Script struct {
	// Parts holds the text and events. Adjacent text parts differ in
	// style; text never contains a well-formed tag or a tag delimiter
	// ("<|" or "|>").
	Parts []Part
	// Issues lists the tags that were dropped or clamped, in input order.
	Issues []*TagError
	// Open lists the style tags still open at the end of the input, as
	// tags (such as "<|whisper|>"), oldest first: input that continues
	// this input keeps its styles when parsed with them in front.
	Open []string
	// Lang is the language of the input (Options.Lang): Sentences splits
	// the text as text of that language (sentence.SplitLang).
	Lang string
}

// Ignored returns the dropped tags without their delimiters (such as
// "foo" or "rate:abc"), each once, in input order. They are printable
// ASCII without commas or surrounding spaces, fit for an HTTP header:
// other characters are written as Go escapes ("voice:andr\u00e9",
// "a\x2cb").
func (s Script) Ignored() []string { return s.issueNames(true) }

// Clamped returns the tags that still apply with their value clamped to
// its limit (such as "pause:6s" or "rate:9"), as written, in the form and
// order of Ignored.
func (s Script) Clamped() []string { return s.issueNames(false) }

// issueNames lists the header-safe names of the dropped tags, or of the
// clamped ones.
func (s Script) issueNames(dropped bool) []string {
	var out []string
	for _, e := range s.Issues {
		name := headerSafe(e.Name())
		if e.Dropped() == dropped && name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// headerSafe escapes what may not stand in a comma-separated header list.
func headerSafe(s string) string {
	q := strconv.QuoteToASCII(s)
	q = q[1 : len(q)-1]
	return strings.ReplaceAll(strings.TrimSpace(q), ",", `\x2c`)
}

// Text returns the script's text without tags or events.
func (s Script) Text() string {
	var b strings.Builder
	for _, p := range s.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Parse reads the tags in input and returns the script they describe.
//
// A tag is written <|name|>, <|name:value|> or <|/name|>, where name is
// made of the characters a-z, 0-9, '_' and '-', and value of any
// characters except white space, '<', '>' and '|' (bytes that are not
// UTF-8 count as characters). Text shaped like a tag but not well formed
// — "<|", at most 64 bytes without "<|" or a line break, then "|>", as in
// <|Pause|> or <|pause 1s|> — is removed and reported as ErrMalformed, so
// it is never read aloud. Anything else, including a "<|" with no "|>"
// soon after it, is literal text. A style
// tag applies from where it stands until its closing tag, <|reset|> or the
// end of the input; for each attribute (rate, pitch, …) the most recently
// opened tag that sets it wins. A closing tag closes the most recent open
// tag of the same name, so overlapping tags work. An event tag happens
// where it stands.
//
// Tags that cannot be applied are removed from the text and listed in
// Script.Issues, or make Parse fail in strict mode. Parse never returns
// text that contains a well-formed tag.
func Parse(input string, opts Options) (Script, error) {
	p := parser{opts: opts}
	p.script.Lang = opts.Lang
	for _, t := range opts.Open {
		if n, ok := matchTag(t); ok && n == len(t) {
			p.tag(0, t)
		}
	}
	textStart := 0
	for i := 0; i < len(input); {
		j := strings.Index(input[i:], "<|")
		if j < 0 {
			break
		}
		pos := i + j
		n, ok := matchTag(input[pos:])
		if !ok {
			if n, bad := matchMalformed(input[pos:]); bad {
				p.text(textStart, input[textStart:pos])
				p.issue(pos, input[pos:pos+n], ErrMalformed, "")
				i = pos + n
				textStart = i
				continue
			}
			i = pos + 1
			continue
		}
		p.text(textStart, input[textStart:pos])
		p.tag(pos, input[pos:pos+n])
		i = pos + n
		textStart = i
	}
	p.text(textStart, input[textStart:])
	p.flush()
	for _, t := range p.open {
		tag := "<|" + t.name
		if t.value != "" {
			tag += ":" + t.value
		}
		p.script.Open = append(p.script.Open, tag+"|>")
	}
	// Leftover delimiters are found when text is flushed, after later tags.
	slices.SortStableFunc(p.script.Issues, func(a, b *TagError) int { return a.Pos - b.Pos })
	if opts.Strict && len(p.script.Issues) > 0 {
		return Script{}, &StrictError{Tags: p.script.Issues}
	}
	return p.script, nil
}

// Mask returns input with each tag, and each piece of tag-shaped text
// that Parse would remove as malformed, replaced by as many spaces: what
// is left is the text Parse keeps, at its place in input.
func Mask(input string) string {
	b := []byte(input)
	for i := 0; i < len(input); {
		j := strings.Index(input[i:], "<|")
		if j < 0 {
			break
		}
		pos := i + j
		n, ok := matchTag(input[pos:])
		if !ok {
			n, ok = matchMalformed(input[pos:])
		}
		if !ok {
			i = pos + 1
			continue
		}
		for k := pos; k < pos+n; k++ {
			b[k] = ' '
		}
		i = pos + n
	}
	return string(b)
}

// openTag is a style tag in force.
type openTag struct {
	name  string
	value string
}

type parser struct {
	opts         Options
	open         []openTag
	style        Style
	script       Script
	pending      strings.Builder // text not yet in script.Parts
	pendingStyle Style
	pendingPos   int // where the pending text began in the input
}

func (p *parser) issue(pos int, tag string, kind error, detail string) {
	if len(tag) > maxValueDisplay+8 {
		tag = truncate(tag, maxValueDisplay) + "…|>"
	}
	p.script.Issues = append(p.script.Issues, &TagError{Pos: pos, Tag: tag, Kind: kind, Detail: detail})
}

// text appends literal text found at pos in the current style, joining it
// to the pending text when the style is the same.
func (p *parser) text(pos int, s string) {
	if s == "" {
		return
	}
	if p.pending.Len() > 0 && p.pendingStyle != p.style {
		p.flush()
	}
	if p.pending.Len() == 0 {
		p.pendingStyle = p.style
		p.pendingPos = pos
	} else if joinFormsTag(p.pending.String(), s) {
		p.pending.WriteByte(' ')
	}
	p.pending.WriteString(s)
}

// flush moves the pending text into the script.
func (p *parser) flush() {
	if p.pending.Len() == 0 {
		return
	}
	text := p.pending.String()
	if strings.Contains(text, "<|") || strings.Contains(text, "|>") {
		text = p.dropDebris(text)
	}
	p.script.Parts = append(p.script.Parts, Part{Text: text, Style: p.pendingStyle})
	p.pending = strings.Builder{}
}

// dropDebris removes from text the words that hold a tag delimiter, "<|"
// or "|>" — what is left of tag-shaped text that was not a tag, as in
// "<|pause:1s <|x|>" — so that no word of it is read aloud. Each is
// reported as ErrMalformed, at its position (approximate where removed
// tags joined the text).
func (p *parser) dropDebris(text string) string {
	var b strings.Builder
	for off := p.pendingPos; len(text) > 0; {
		word := strings.IndexFunc(text, func(r rune) bool { return !unicode.IsSpace(r) })
		if word < 0 {
			b.WriteString(text)
			break
		}
		b.WriteString(text[:word])
		text, off = text[word:], off+word
		end := strings.IndexFunc(text, unicode.IsSpace)
		if end < 0 {
			end = len(text)
		}
		if w := text[:end]; strings.Contains(w, "<|") || strings.Contains(w, "|>") {
			p.issue(off, w, ErrMalformed, "text joined to a tag delimiter")
			b.WriteByte(' ') // keeps the part, and the words around apart
		} else {
			b.WriteString(w)
		}
		text, off = text[end:], off+end
	}
	return b.String()
}

// joinFormsTag reports whether a+b holds a well-formed tag across the
// join, given that neither a nor b holds one. A tag holds one '<' (its
// first byte) and one '>' (its last) and no white space, so such a tag
// starts at the '<' ending a's last run of tag bytes and ends at the first
// '>' of b.
func joinFormsTag(a, b string) bool {
	i := len(a) - 1
	for i >= 0 && a[i] != '<' && a[i] != '>' && !isASCIISpace(a[i]) {
		i--
	}
	if i < 0 || a[i] != '<' {
		return false
	}
	j := 0
	for j < len(b) && b[j] != '>' && b[j] != '<' && !isASCIISpace(b[j]) {
		j++
	}
	if j == len(b) || b[j] != '>' {
		return false
	}
	cand := a[i:] + b[:j+1]
	n, ok := matchTag(cand)
	return ok && n == len(cand)
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// tag handles one well-formed tag found at pos.
func (p *parser) tag(pos int, tag string) {
	inner := tag[2 : len(tag)-2]
	closing := strings.HasPrefix(inner, "/")
	inner = strings.TrimPrefix(inner, "/")
	name, value, hasValue := strings.Cut(inner, ":")
	d, known := vocabulary[name]
	switch {
	case !known:
		p.issue(pos, tag, ErrUnknownTag, "")
		return
	case p.opts.Supports != nil && !p.opts.Supports(name):
		p.issue(pos, tag, ErrUnsupported, "")
		return
	case closing:
		p.close(pos, tag, name, d, hasValue)
		return
	}
	switch {
	case hasValue && d.value == noValue:
		p.issue(pos, tag, ErrBadValue, name+" takes no value")
		return
	case !hasValue && d.value == requiredValue, hasValue && value == "" && d.value == requiredValue:
		p.issue(pos, tag, ErrBadValue, name+" needs a value, as in <|"+name+":…|>")
		return
	}
	switch d.kind {
	case resetTag:
		p.open = p.open[:0]
		p.restyle()
	case eventTag:
		e, clamped, err := d.event(value)
		if err != nil {
			p.issue(pos, tag, ErrBadValue, err.Error())
			return
		}
		if clamped != "" {
			p.issue(pos, tag, ErrOutOfRange, clamped)
		}
		p.flush()
		p.script.Parts = append(p.script.Parts, Part{Event: e, Style: p.style})
	case styleTag:
		var probe Style
		clamped, err := d.set(&probe, value)
		if err != nil {
			p.issue(pos, tag, ErrBadValue, err.Error())
			return
		}
		if name == "voice" && p.opts.Voice != nil && !p.opts.Voice(value) {
			p.issue(pos, tag, ErrUnknownVoice, "")
			return
		}
		if clamped != "" {
			p.issue(pos, tag, ErrOutOfRange, clamped)
		}
		if name == "phoneme" {
			p.flush() // each phoneme tag's text is a part of its own
		}
		p.open = append(p.open, openTag{name: name, value: value})
		p.restyle()
	}
}

// close handles a closing tag.
func (p *parser) close(pos int, tag, name string, d def, hasValue bool) {
	if d.kind != styleTag {
		p.issue(pos, tag, ErrBadValue, "<|"+name+"|> has no closing tag")
		return
	}
	if hasValue {
		p.issue(pos, tag, ErrBadValue, "a closing tag takes no value")
		return
	}
	for i := len(p.open) - 1; i >= 0; i-- {
		if p.open[i].name == name {
			if name == "phoneme" {
				p.flush()
			}
			p.open = slices.Delete(p.open, i, i+1)
			p.restyle()
			return
		}
	}
	p.issue(pos, tag, ErrUnmatched, "")
}

// restyle recomputes the style from the open tags, oldest first.
func (p *parser) restyle() {
	var s Style
	for _, t := range p.open {
		vocabulary[t.name].set(&s, t.value) // values were checked when opened
	}
	p.style = s
}

// matchTag reports whether s starts with a well-formed tag, and its length.
func matchTag(s string) (int, bool) {
	if !strings.HasPrefix(s, "<|") {
		return 0, false
	}
	i := 2
	if i < len(s) && s[i] == '/' {
		i++
	}
	start := i
	for i < len(s) && isNameByte(s[i]) {
		i++
	}
	if i == start {
		return 0, false
	}
	if i < len(s) && s[i] == ':' {
		i++
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			// Bytes that are not UTF-8 count as value characters, so
			// that no tag-shaped text slips through as literal.
			if r == '|' || r == '<' || r == '>' || unicode.IsSpace(r) {
				break
			}
			i += size
		}
	}
	if strings.HasPrefix(s[i:], "|>") {
		return i + 2, true
	}
	return 0, false
}

// maxMalformed is the longest inside of tag-shaped text that Parse
// removes as a malformed tag.
const maxMalformed = 64

// matchMalformed reports whether s starts with tag-shaped text that is not
// a well-formed tag, and its length: "<|", at most maxMalformed bytes
// holding no "<|" and no line break, then "|>".
func matchMalformed(s string) (int, bool) {
	if !strings.HasPrefix(s, "<|") {
		return 0, false
	}
	end := strings.Index(s[2:], "|>")
	if end < 0 || end > maxMalformed {
		return 0, false
	}
	inner := s[2 : 2+end]
	if strings.Contains(inner, "<|") || strings.ContainsAny(inner, "\n\r") {
		return 0, false
	}
	return end + 4, true
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
