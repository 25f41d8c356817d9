package normalize

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Text is normalized text and its mapping back to the text it came from.
type Text struct {
	// Text is what a speech engine should read.
	Text string
	// Spans cover Text and the source, in order and without gaps: each
	// maps Text[Out:OutEnd] to source[Src:SrcEnd].
	Spans []Span
}

// Span maps a piece of the normalized text to the source text it came
// from. A Copy span is the source unchanged and maps byte for byte; any
// other maps its whole output to its whole source (the words read for
// "$9.50" all come from "$9.50").
type Span struct {
	Out, OutEnd int
	Src, SrcEnd int
	Copy        bool
}

// Source returns the source byte range [start, end) that produced
// Text[outStart:outEnd]: the union of what the spans it touches map to.
func (t Text) Source(outStart, outEnd int) (start, end int) {
	start, end = -1, -1
	for _, s := range t.Spans {
		if s.OutEnd <= outStart && !(s.Out == s.OutEnd && s.Out == outStart) || s.Out >= outEnd && outEnd > outStart {
			continue
		}
		a, b := s.Src, s.SrcEnd
		if s.Copy {
			a = s.Src + max(0, outStart-s.Out)
			b = s.Src + min(s.OutEnd, outEnd) - s.Out
		}
		if start < 0 || a < start {
			start = a
		}
		end = max(end, b)
	}
	if start < 0 {
		return 0, 0
	}
	return start, end
}

// Out returns the offset in Text of the source offset src: where text
// inserted at src in the source would be, once normalized.
func (t Text) Out(src int) int {
	for _, s := range t.Spans {
		switch {
		case src < s.Src:
			return s.Out
		case src < s.SrcEnd && s.Copy:
			return s.Out + src - s.Src
		case src < s.SrcEnd:
			return s.Out
		}
	}
	return len(t.Text)
}

// Normalize returns text with its written forms expanded to the words a
// careful reader says in language lang, a BCP 47 tag or a voice id such
// as "en-us", "en-GB", "de", "fr-fr" or "es". Languages it has no rules
// for are returned unchanged. Audio tags (<|…|>) are never changed.
//
// In every language, letters and digits drawn as symbols ("ⓐ", "①", "Ａ",
// see symbolBlocks) are read as the letters and digits they draw, before
// the language's rules read the text.
func Normalize(text, lang string) Text {
	plain, drawn := unsymbol(text)
	if !drawn {
		plain = Text{Text: text, Spans: []Span{{0, len(text), 0, len(text), true}}}
	}
	l := languageOf(lang)
	if l == nil {
		return plain
	}
	n := &normalizer{l: l, src: plain.Text, toks: tokenize(plain.Text)}
	n.run()
	if drawn {
		n.out.Spans = through(n.out, plain)
	}
	return n.out
}

// The languages' rules, built once: a language is never changed after.
var (
	usEnglish      = sync.OnceValue(func() *language { return english(false) })
	britishEnglish = sync.OnceValue(func() *language { return english(true) })
	germanRules    = sync.OnceValue(german)
	frenchRules    = sync.OnceValue(french)
	spanishRules   = sync.OnceValue(spanish)
)

// languageOf returns the rules of a language tag, nil when there are
// none.
func languageOf(tag string) *language {
	tag = strings.ToLower(strings.ReplaceAll(tag, "_", "-"))
	base, region, _ := strings.Cut(tag, "-")
	switch base {
	case "en":
		if region == "us" || region == "" || region == "ca" || region == "ph" {
			return usEnglish()
		}
		return britishEnglish()
	case "de":
		return germanRules()
	case "fr":
		return frenchRules()
	case "es":
		return spanishRules()
	}
	return nil
}

// token is a run of text between white space, or an audio tag.
type token struct {
	start, end int // bytes of the source
	tag        bool
}

// tokenize splits text at white space, keeping each audio tag (<|…|>,
// which may hold spaces) whole.
func tokenize(text string) []token {
	var toks []token
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		start := i
		if strings.HasPrefix(text[i:], "<|") {
			if j := strings.Index(text[i+2:], "|>"); j >= 0 {
				toks = append(toks, token{start, i + 2 + j + 2, true})
				i += 2 + j + 2
				continue
			}
		}
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsSpace(r) || strings.HasPrefix(text[i:], "<|") && i > start {
				break
			}
			i += size
		}
		toks = append(toks, token{start, i, false})
	}
	return toks
}

// word is a token split into leading punctuation, its core and trailing
// punctuation.
type word struct {
	lead, core, trail string
	coreStart         int // byte offset of core in the source
	tag               bool
}

// leadPunct and trailPunct are what is split off a token's ends.
const (
	leadPunct  = "([{\"'“‘«¿¡„"
	trailPunct = ")]}\"'”’»,;:!?…"
)

func split(src string, t token) word {
	s := src[t.start:t.end]
	if t.tag {
		return word{core: s, coreStart: t.start, tag: true}
	}
	core := strings.TrimLeft(s, leadPunct)
	lead := s[:len(s)-len(core)]
	body := strings.TrimRight(core, trailPunct)
	// A final period is trailing punctuation too, unless the core is an
	// abbreviation or initials ("Dr.", "e.g."): the matchers look at it.
	trail := core[len(body):]
	if strings.HasSuffix(body, ".") && !strings.HasSuffix(body, "..") && len(body) > 1 {
		body, trail = body[:len(body)-1], "."+trail
	}
	return word{lead: lead, core: body, trail: trail, coreStart: t.start + len(lead)}
}

// normalizer holds the state of one Normalize call.
type normalizer struct {
	l     *language
	src   string
	toks  []token
	words []word
	out   Text
	b     strings.Builder
	done  int // bytes of src already mapped
	// eatDot is set by a rule that read an abbreviation's period: it goes
	// with the abbreviation, unless it ends the text ("usw." at the end
	// keeps its period, "Uds.?" loses it).
	eatDot bool
}

// copyTo appends the source up to byte offset end unchanged.
func (n *normalizer) copyTo(end int) {
	if end <= n.done {
		return
	}
	out := n.b.Len()
	n.b.WriteString(n.src[n.done:end])
	n.addSpan(Span{out, n.b.Len(), n.done, end, true})
	n.done = end
}

// replace appends words in place of the source from n.done to end.
func (n *normalizer) replace(end int, words string) {
	out := n.b.Len()
	n.b.WriteString(words)
	n.addSpan(Span{out, n.b.Len(), n.done, end, false})
	n.done = end
}

func (n *normalizer) addSpan(s Span) {
	if k := len(n.out.Spans) - 1; k >= 0 && s.Copy && n.out.Spans[k].Copy {
		n.out.Spans[k].OutEnd, n.out.Spans[k].SrcEnd = s.OutEnd, s.SrcEnd
		return
	}
	n.out.Spans = append(n.out.Spans, s)
}

// run rewrites every token, left to right; a rule may take several
// tokens at once.
func (n *normalizer) run() {
	n.words = make([]word, len(n.toks))
	for i, t := range n.toks {
		n.words[i] = split(n.src, t)
	}
	for i := 0; i < len(n.toks); {
		w := n.words[i]
		if w.tag || w.core == "" {
			i++
			continue
		}
		used, say := n.l.rewrite(n, i)
		if used == 0 {
			i++
			continue
		}
		last := n.words[i+used-1]
		end := last.coreStart + len(last.core)
		if n.eatDot && strings.HasPrefix(last.trail, ".") && (i+used < len(n.words) || len(last.trail) > 1) {
			end++
		}
		n.eatDot = false
		n.copyTo(n.start(i, used))
		n.replace(end, say)
		i += used
	}
	n.copyTo(len(n.src))
	n.out.Text = n.b.String()
	if len(n.out.Spans) == 0 {
		n.out.Spans = []Span{{0, 0, 0, 0, true}}
	}
}

// start returns where the source that words i to i+used-1 replace
// begins: at word i's core, or at its opening parenthesis when the
// closing one is read with them ("(415) 555-0142").
func (n *normalizer) start(i, used int) int {
	w := n.words[i]
	if !strings.HasSuffix(w.lead, "(") {
		return w.coreStart
	}
	for k := i; k < i+used-1; k++ {
		if strings.Contains(n.words[k].trail, ")") {
			return w.coreStart - 1
		}
	}
	return w.coreStart
}

// eatDotBefore lets the period that ends the words being read ("p.m.")
// be no sentence's end unless word k, the next, is capitalized: "3 p.m.
// on Friday" reads on.
func (n *normalizer) eatDotBefore(k int) { n.eatDot = !isCapitalized(n.core(k)) }

// core returns the core of word i, "" past either end.
func (n *normalizer) core(i int) string {
	if i < 0 || i >= len(n.words) || n.words[i].tag {
		return ""
	}
	return n.words[i].core
}

// trail returns the trailing punctuation of word i.
func (n *normalizer) trail(i int) string {
	if i < 0 || i >= len(n.words) {
		return ""
	}
	return n.words[i].trail
}

// lead returns the leading punctuation of word i.
func (n *normalizer) lead(i int) string {
	if i < 0 || i >= len(n.words) {
		return ""
	}
	return n.words[i].lead
}

// joined reports whether words i and i+1 form one phrase: nothing but
// white space between their cores.
func (n *normalizer) joined(i int) bool {
	return i+1 < len(n.words) && n.words[i].trail == "" && n.words[i+1].lead == "" && !n.words[i+1].tag
}
