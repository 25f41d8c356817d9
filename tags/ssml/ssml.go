// Package ssml turns SSML into voxkit's input: text with audio tags
// (<|…|>). It takes the subset every engine honours through the tags:
//
//	speak, p, s            text (a sentence ends at the end of each p and s)
//	break                  <|pause|> of its time, or of its strength
//	prosody                <|rate|>, <|pitch|>, <|volume|> (relative and absolute)
//	emphasis               <|emphasis|> (reduced: <|soft|>; none: nothing)
//	say-as                 characters, spell-out: <|spell|>; digits, telephone:
//	                       digit by digit; ordinal; date with its format;
//	                       cardinal, number, time: read as written
//	sub alias              the alias
//	voice name             <|voice|>
//
//	phoneme alphabet="ipa" ph
//	                       <|phoneme|>: the text said as the IPA in ph
//	                       (other alphabets, or no ph: the text)
//
// Text inside is normalized afterwards like any input (numbers read as
// words), unless say-as says otherwise; a phoneme's ph is never touched.
// audio, mark, lang and unknown elements are left out of the markup, and
// phoneme elements in another alphabet than IPA read as their text; all
// of them are listed in Result.Ignored, as dropped audio tags are.
package ssml

import (
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/tags"
)

// Is reports whether input is SSML by its start: its first non-space
// characters are "<speak" (or an XML declaration).
func Is(input string) bool {
	s := strings.TrimLeftFunc(input, unicode.IsSpace)
	return strings.HasPrefix(s, "<speak") || strings.HasPrefix(s, "<?xml")
}

// SyntaxError is malformed SSML, with where it is (1-based line and
// column).
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("ssml: line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Result is SSML turned into voxkit input.
type Result struct {
	// Input is the text with audio tags.
	Input string
	// Ignored names the elements left out (audio, unknown ones,
	// "phoneme:x-sampa" for a phoneme in an alphabet other than IPA), each
	// once, in order.
	Ignored []string
	// from and to are, for each character of Input, the characters of
	// the source it came from: its own for text, the element's text for
	// what say-as and sub rewrote, the element for a tag.
	from, to []int
	// rewritten marks the characters say-as and sub wrote.
	rewritten []bool
}

// Rewritten reports whether character i of Input is one a say-as or sub
// element wrote in place of its text (a pronunciation lexicon leaves
// those alone).
func (r Result) Rewritten(i int) bool {
	return i >= 0 && i < len(r.rewritten) && r.rewritten[i]
}

// Source returns the characters of the SSML source that Input's
// characters [start, end) come from: from the first one's start to the
// last one's end; an empty span where start's would begin when start >=
// end.
func (r Result) Source(start, end int) (int, int) {
	if len(r.from) == 0 {
		return 0, 0
	}
	start, end = max(start, 0), min(end, len(r.from))
	if start >= len(r.from) {
		return r.to[len(r.to)-1], r.to[len(r.to)-1]
	}
	if start >= end {
		return r.from[start], r.from[start]
	}
	a, b := r.from[start], r.to[start]
	for i := start + 1; i < end; i++ {
		a, b = min(a, r.from[i]), max(b, r.to[i])
	}
	return a, b
}

// DefaultMaxBreaks is the most pause the breaks of one document may add
// up to when Converter.MaxBreaks is 0: tts.DefaultMaxAudio.
const DefaultMaxBreaks = 10 * time.Minute

// BreakLimitError is SSML whose breaks add up to more pause than
// Converter.MaxBreaks: Total is the pause of its breaks up to the one
// that passed the limit.
type BreakLimitError struct {
	Total, Limit time.Duration
}

func (e *BreakLimitError) Error() string {
	return fmt.Sprintf("ssml: the breaks add up to at least %v, the limit is %v", e.Total, e.Limit)
}

// Converter turns SSML into voxkit input. Its zero value converts for
// English with DefaultMaxBreaks.
type Converter struct {
	// Lang, a voice's language, writes the ordinals of say-as; ""
	// means English.
	Lang string
	// MaxBreaks bounds the pause of all the breaks of a document (a
	// synthesizer's audio limit): a document whose breaks add up to more
	// fails with a *BreakLimitError as soon as the break that passes it
	// is read, so a break of any time costs no more than the limit's
	// tags. 0 means DefaultMaxBreaks.
	MaxBreaks time.Duration
}

// Convert turns SSML into voxkit input. lang (a voice's language) writes
// the ordinals of say-as; "" means English. Its breaks may add up to
// DefaultMaxBreaks.
func Convert(src, lang string) (Result, error) {
	return Converter{Lang: lang}.Convert(src)
}

// Convert turns SSML into voxkit input.
func (cv Converter) Convert(src string) (Result, error) {
	d := xml.NewDecoder(strings.NewReader(src))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	c := &converter{lang: strings.ToLower(cv.Lang), maxBreaks: cmp.Or(cv.MaxBreaks, DefaultMaxBreaks)}
	depth, root := 0, false
	for {
		before := int(d.InputOffset())
		tok, err := d.Token()
		c.at = span{from: before, to: int(d.InputOffset())}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line, col := d.InputPos()
			var se *xml.SyntaxError
			msg := err.Error()
			if errors.As(err, &se) {
				msg = se.Msg
			}
			return Result{}, &SyntaxError{Line: line, Column: col, Msg: msg}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if root || t.Name.Local != "speak" {
					line, col := d.InputPos()
					return Result{}, &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf("the document must be one <speak> element, not <%s>", t.Name.Local)}
				}
				root = true
			}
			depth++
			if err := c.start(t); err != nil {
				return Result{}, err
			}
		case xml.EndElement:
			depth--
			c.end(t)
		case xml.CharData:
			if depth == 0 {
				if strings.TrimSpace(string(t)) != "" {
					line, col := d.InputPos()
					return Result{}, &SyntaxError{Line: line, Column: col, Msg: "text outside <speak>"}
				}
				continue
			}
			c.text(string(t), src[c.at.from:c.at.to], c.at.from)
		}
	}
	if !root {
		return Result{}, &SyntaxError{Line: 1, Column: 1, Msg: "no <speak> element"}
	}
	return c.out.result(src, c.ignored), nil
}

// span is a stretch of the source, in bytes; rewritten marks what a
// say-as or sub element wrote for it.
type span struct {
	from, to  int
	rewritten bool
}

// mapped is text with, for each of its runes, the span of the source it
// came from.
type mapped struct {
	runes []rune
	spans []span
}

// add appends s, every rune of it from at.
func (m *mapped) add(s string, at span) {
	for _, r := range s {
		m.runes = append(m.runes, r)
		m.spans = append(m.spans, at)
	}
}

// join appends o to m.
func (m *mapped) join(o mapped) {
	m.runes, m.spans = append(m.runes, o.runes...), append(m.spans, o.spans...)
}

// extent is the source m came from, from its first rune's start to its
// last one's end; ok is false when m is empty.
func (m *mapped) extent() (sp span, ok bool) {
	for i, s := range m.spans {
		if i == 0 {
			sp = s
		}
		sp = span{from: min(sp.from, s.from), to: max(sp.to, s.to)}
	}
	return sp, len(m.spans) > 0
}

// trimRightSpace drops the white space at the end of m.
func (m *mapped) trimRightSpace() {
	n := len(m.runes)
	for n > 0 && unicode.IsSpace(m.runes[n-1]) {
		n--
	}
	m.runes, m.spans = m.runes[:n], m.spans[:n]
}

// result is m as a Result of src: runs of white space as one space, none
// at the ends, and the spans in characters of src.
func (m *mapped) result(src string, ignored []string) Result {
	chars := make([]int, len(src)+1) // the character each byte is in; len(src): their count
	n := 0
	for i := range len(src) {
		chars[i] = n
		if i+1 == len(src) || utf8.RuneStart(src[i+1]) {
			n++
		}
	}
	chars[len(src)] = n
	r := Result{Ignored: ignored}
	var b strings.Builder
	space := -1 // the index of a pending space, -1 when none
	for i, c := range m.runes {
		if unicode.IsSpace(c) {
			if space < 0 {
				space = i
			}
			continue
		}
		if space >= 0 && b.Len() > 0 {
			b.WriteByte(' ')
			r.from, r.to = append(r.from, chars[m.spans[space].from]), append(r.to, chars[m.spans[space].to])
			r.rewritten = append(r.rewritten, m.spans[space].rewritten)
		}
		space = -1
		b.WriteRune(c)
		r.from, r.to = append(r.from, chars[m.spans[i].from]), append(r.to, chars[m.spans[i].to])
		r.rewritten = append(r.rewritten, m.spans[i].rewritten)
	}
	r.Input = b.String()
	return r
}

// frame is an open element: what to write at its end.
type frame struct {
	name    string
	closing string       // tags that close what its start opened
	capture *captureMode // say-as and sub collect their text
	skip    bool         // audio: its content is not spoken
}

type captureMode struct {
	as, format, alias string
	text              mapped
}

type converter struct {
	lang      string
	maxBreaks time.Duration // the most pause all breaks may add up to
	breaks    time.Duration // the pause of the breaks so far
	out       mapped
	at        span // the source of the token at hand
	stack     []frame
	ignored   []string
	skip      int // depth inside elements whose content is not spoken
}

func (c *converter) ignore(name string) {
	for _, n := range c.ignored {
		if n == name {
			return
		}
	}
	c.ignored = append(c.ignored, name)
}

func attr(t xml.StartElement, name string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return strings.TrimSpace(a.Value), true
		}
	}
	return "", false
}

// write appends text that is part of the markup's result, from the
// token at hand.
func (c *converter) write(s string) {
	var m mapped
	m.add(s, c.at)
	c.writeMapped(m)
}

// writeMapped appends text that knows where it came from.
func (c *converter) writeMapped(m mapped) {
	if c.skip > 0 {
		return
	}
	for k := len(c.stack) - 1; k >= 0; k-- {
		if f := c.stack[k].capture; f != nil {
			f.text.join(m)
			return
		}
	}
	c.out.join(m)
}

// text appends character data s, raw in the source at offset: white
// space collapsed, and never a tag ("<|" is written "< |").
func (c *converter) text(s, raw string, offset int) {
	var m mapped
	spans := sourceSpans(s, raw, offset)
	runes := []rune(s)
	space := -1
	for i, r := range runes {
		if unicode.IsSpace(r) {
			if space < 0 {
				space = i
			}
			continue
		}
		if space >= 0 {
			m.add(" ", spans[space])
		}
		space = -1
		m.add(string(r), spans[i])
		if r == '<' && i+1 < len(runes) && runes[i+1] == '|' || r == '|' && i+1 < len(runes) && runes[i+1] == '>' {
			m.add(" ", spans[i])
		}
	}
	if space >= 0 {
		m.add(" ", spans[space])
	}
	c.writeMapped(m)
}

// sourceSpans returns, for each rune of the character data s, the bytes
// of raw (s as written in the source, at offset) it was decoded from: an
// entity (&amp;) for the character it stands for, a CR LF for the LF it
// became. What it cannot follow (a CDATA section, say) is mapped to the
// rest of raw.
func sourceSpans(s, raw string, offset int) []span {
	out := make([]span, 0, len(s))
	i := 0
	for _, r := range s {
		w := 0
		switch c, size := utf8.DecodeRuneInString(raw[i:]); {
		case i >= len(raw):
		case c == '&' && strings.IndexByte(raw[i:], ';') > 0:
			w = strings.IndexByte(raw[i:], ';') + 1
		case c == r:
			w = size
		case c == '\r' && r == '\n':
			w = 1
			if strings.HasPrefix(raw[i:], "\r\n") {
				w = 2
			}
		default:
			for len(out) < utf8.RuneCountInString(s) {
				out = append(out, span{from: offset + i, to: offset + len(raw)})
			}
			return out
		}
		out = append(out, span{from: offset + i, to: offset + min(i+w, len(raw))})
		i = min(i+w, len(raw))
	}
	return out
}

func (c *converter) start(t xml.StartElement) error {
	f := frame{name: t.Name.Local}
	switch f.name {
	case "speak", "p", "s", "paragraph", "sentence":
		if f.name != "speak" {
			c.write(" ")
		}
	case "break":
		pause, err := c.pause(t)
		if err != nil {
			return err
		}
		c.write(" " + pause + " ")
	case "prosody":
		f.closing = c.prosody(t)
	case "emphasis":
		switch level, _ := attr(t, "level"); level {
		case "none":
		case "reduced":
			c.write("<|soft|>")
			f.closing = "<|/soft|>"
		default:
			c.write("<|emphasis|>")
			f.closing = "<|/emphasis|>"
		}
	case "say-as":
		as, _ := attr(t, "interpret-as")
		format, _ := attr(t, "format")
		switch as {
		case "characters", "spell-out", "letters":
			c.write("<|spell|>")
			f.closing = "<|/spell|>"
		case "digits", "telephone", "ordinal", "date":
			f.capture = &captureMode{as: as, format: format}
		case "cardinal", "number", "time", "":
		default:
			c.ignore("say-as:" + as)
		}
	case "sub":
		alias, _ := attr(t, "alias")
		f.capture = &captureMode{as: "sub", alias: alias}
	case "voice":
		if name, ok := attr(t, "name"); ok && name != "" && !strings.ContainsAny(name, "|<>") {
			c.write("<|voice:" + name + "|>")
			f.closing = "<|/voice|>"
		} else {
			c.ignore("voice")
		}
	case "phoneme":
		f.closing = c.phoneme(t)
	case "audio", "desc":
		c.ignore(f.name)
		f.skip = true
		c.skip++
	case "lexicon":
		// Not read: its uri names a pronunciation lexicon, which the
		// caller resolves (LexiconURIs) and passes to synthesis.
		f.skip = true
		c.skip++
	default:
		c.ignore(f.name)
	}
	c.stack = append(c.stack, f)
	return nil
}

func (c *converter) end(t xml.EndElement) {
	if len(c.stack) == 0 {
		return
	}
	f := c.stack[len(c.stack)-1]
	c.stack = c.stack[:len(c.stack)-1]
	if f.skip {
		c.skip--
		return
	}
	if f.capture != nil {
		if sp, ok := f.capture.text.extent(); ok {
			c.at = sp // what say-as and sub write comes from their text
		}
		c.at.rewritten = true
		c.write(c.captured(f.capture))
		c.at.rewritten = false
	}
	c.write(f.closing)
	switch f.name {
	case "p", "s", "paragraph", "sentence":
		c.endSentence()
	}
}

// endSentence makes sure a sentence ends where a p or s does.
func (c *converter) endSentence() {
	if c.skip > 0 {
		return
	}
	c.out.trimRightSpace()
	s := string(c.out.runes)
	if s != "" && !strings.ContainsAny(s[len(s)-1:], ".!?") && !strings.HasSuffix(s, "…") && !strings.HasSuffix(s, "|>") {
		c.out.add(".", c.at)
	}
	c.out.add(" ", c.at)
}

// pause is a break's tags: its time, or its strength's, in tags of at
// most tags.MaxPause. It counts the pause against c.maxBreaks before
// writing any tag; a break that is not spoken (inside audio) counts
// nothing.
func (c *converter) pause(t xml.StartElement) (string, error) {
	if c.skip > 0 {
		return "", nil
	}
	d := 500 * time.Millisecond
	if v, ok := attr(t, "time"); ok {
		if t, ok := BreakTime(v); ok {
			d = t
		}
	} else if s, ok := attr(t, "strength"); ok {
		d = time.Duration(map[string]int{"none": 0, "x-weak": 100, "weak": 250, "medium": 500, "strong": 750, "x-strong": 1000}[s]) * time.Millisecond
	}
	c.breaks += d
	if c.breaks > c.maxBreaks {
		return "", &BreakLimitError{Total: c.breaks, Limit: c.maxBreaks}
	}
	var b strings.Builder
	for ms := d.Milliseconds(); ms > 0; {
		step := min(ms, tags.MaxPause.Milliseconds())
		fmt.Fprintf(&b, "<|pause:%dms|>", step)
		ms -= step
	}
	return b.String(), nil
}

// BreakTime reads the time of a break element ("250ms", "1.5s"), rounded
// to the millisecond, at most 1<<62 nanoseconds (146 years): a sum of two
// never overflows.
func BreakTime(v string) (time.Duration, bool) {
	unit := time.Second
	num, ok := strings.CutSuffix(v, "ms")
	if ok {
		unit = time.Millisecond
	} else if num, ok = strings.CutSuffix(v, "s"); !ok {
		return 0, false
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(x) {
		return 0, false
	}
	ms := math.Round(x * float64(unit/time.Millisecond))
	ms = max(0, min(ms, float64((1<<62)/time.Millisecond)))
	return time.Duration(ms) * time.Millisecond, true
}

// prosody writes the opening tags of a prosody element and returns its
// closing ones.
func (c *converter) prosody(t xml.StartElement) string {
	var closing []string
	open := func(tag, value string) {
		c.write("<|" + tag + ":" + value + "|>")
		closing = append([]string{"<|/" + tag + "|>"}, closing...)
	}
	if v, ok := attr(t, "rate"); ok {
		if r, ok := rate(v); ok {
			open("rate", num(r))
		}
	}
	if v, ok := attr(t, "pitch"); ok {
		if st, ok := semitones(v); ok {
			open("pitch", fmt.Sprintf("%+g", math.Round(st*10)/10))
		}
	}
	if v, ok := attr(t, "volume"); ok {
		if g, ok := volume(v); ok {
			open("volume", num(g))
		}
	}
	return strings.Join(closing, "")
}

func num(x float64) string { return strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64) }

// percent reads "150%", "+20%", "-10%" as a factor: 1.5, 1.2, 0.9
// (relative ones from 1).
func percent(v string) (float64, bool) {
	p, ok := strings.CutSuffix(v, "%")
	if !ok {
		return 0, false
	}
	x, err := strconv.ParseFloat(p, 64)
	if err != nil {
		return 0, false
	}
	if strings.HasPrefix(p, "+") || strings.HasPrefix(p, "-") {
		return 1 + x/100, true
	}
	return x / 100, true
}

func rate(v string) (float64, bool) {
	if r, ok := map[string]float64{"x-slow": 0.5, "slow": 0.75, "medium": 1, "default": 1, "fast": 1.3, "x-fast": 1.6}[v]; ok {
		return r, true
	}
	if r, ok := percent(v); ok {
		return r, r > 0
	}
	r, err := strconv.ParseFloat(v, 64)
	return r, err == nil && r > 0
}

func semitones(v string) (float64, bool) {
	if st, ok := map[string]float64{"x-low": -6, "low": -3, "medium": 0, "default": 0, "high": 3, "x-high": 6}[v]; ok {
		return st, true
	}
	if s, ok := strings.CutSuffix(v, "st"); ok {
		x, err := strconv.ParseFloat(s, 64)
		return x, err == nil
	}
	if f, ok := percent(v); ok && f > 0 {
		return 12 * math.Log2(f), true
	}
	return 0, false
}

func volume(v string) (float64, bool) {
	if g, ok := map[string]float64{"silent": 0, "x-soft": 0.3, "soft": 0.6, "medium": 1, "default": 1, "loud": 1.4, "x-loud": 2}[v]; ok {
		return g, true
	}
	if s, ok := strings.CutSuffix(v, "dB"); ok {
		x, err := strconv.ParseFloat(s, 64)
		return math.Pow(10, x/20), err == nil
	}
	if f, ok := percent(v); ok {
		return f, f >= 0
	}
	return 0, false
}

// capturing reports whether text goes to a say-as or sub element, which
// rewrites it.
func (c *converter) capturing() bool {
	for _, f := range c.stack {
		if f.capture != nil {
			return true
		}
	}
	return false
}

// phoneme writes the <|phoneme|> tag of a phoneme element in IPA and
// returns its closing tag. Other alphabets, a phoneme without ph and one
// inside say-as or sub are read as their text and listed as ignored.
func (c *converter) phoneme(t xml.StartElement) string {
	alphabet, _ := attr(t, "alphabet")
	if a := strings.ToLower(alphabet); a != "" && a != "ipa" {
		c.ignore("phoneme:" + a)
		return ""
	}
	ph, _ := attr(t, "ph")
	tag := tags.PhonemeTag(ph)
	if tag == "" || c.capturing() {
		c.ignore("phoneme")
		return ""
	}
	c.write(tag)
	return "<|/phoneme|>"
}

// captured returns what a say-as or sub element says for its text.
func (c *converter) captured(m *captureMode) string {
	text := strings.TrimSpace(string(m.text.runes))
	switch m.as {
	case "sub":
		return m.alias
	case "digits":
		return spaced(text)
	case "telephone":
		var groups []string
		for _, g := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsDigit(r) && r != '+' }) {
			groups = append(groups, spaced(g))
		}
		return strings.Join(groups, ", ")
	case "ordinal":
		return c.ordinal(text)
	case "date":
		return date(text, m.format)
	}
	return text
}

// spaced writes each digit apart, so that each is read on its own.
func spaced(s string) string {
	var out []string
	for _, r := range s {
		if r == '+' {
			out = append(out, "plus")
		} else if !unicode.IsSpace(r) {
			out = append(out, string(r))
		}
	}
	return strings.Join(out, " ")
}

// ordinal writes a number as the voice's language writes an ordinal, for
// the normalizer to read.
func (c *converter) ordinal(s string) string {
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return s
	}
	switch {
	case strings.HasPrefix(c.lang, "fr"):
		if s == "1" {
			return "1er"
		}
		return s + "e"
	case strings.HasPrefix(c.lang, "es"):
		return s + "º"
	case strings.HasPrefix(c.lang, "de"):
		return s + "."
	}
	n, _ := strconv.Atoi(s)
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return s + suffix
}

// date writes a date of the given format (mdy, dmy, ymd, md, dm, my, ym,
// y) as ISO 8601 when it is whole, for the normalizer to read in the
// voice's language; parts are as written otherwise.
func date(s, format string) string {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if len(parts) != 3 || len(format) != 3 {
		return s
	}
	var y, m, d string
	for i, f := range format {
		switch f {
		case 'y':
			y = parts[i]
		case 'm':
			m = parts[i]
		case 'd':
			d = parts[i]
		}
	}
	if len(y) != 4 || m == "" || d == "" {
		return s
	}
	pad := func(s string) string {
		if len(s) == 1 {
			return "0" + s
		}
		return s
	}
	return y + "-" + pad(m) + "-" + pad(d)
}

// LexiconURIs returns the uri of each <lexicon> element of an SSML
// document, in order, without checking the rest of it (Converter does
// that): a server takes each as the id of a stored lexicon. A document
// that is not well-formed yields the ones before the fault.
func LexiconURIs(doc string) []string {
	var uris []string
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		t, err := d.Token()
		if err != nil {
			return uris
		}
		if se, ok := t.(xml.StartElement); ok && se.Name.Local == "lexicon" {
			if uri, ok := attr(se, "uri"); ok {
				uris = append(uris, uri)
			}
		}
	}
}
