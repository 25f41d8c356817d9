package lexicon

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Namespace is the XML namespace of PLS 1.0 documents.
const Namespace = "http://www.w3.org/2005/01/pronunciation-lexicon"

// Bounds of one lexicon: Parse and New refuse one past them with a
// *LimitError.
const (
	MaxBytes              = 1 << 20 // bytes of the document
	MaxLexemes            = 10000   // lexemes
	MaxGraphemesPerLexeme = 64      // graphemes of one lexeme
	MaxGrapheme           = 256     // characters of a grapheme
	MaxPronunciation      = 256     // characters of a phoneme string or an alias
)

// Alphabets a lexicon or a phoneme may name.
const (
	IPA    = "ipa"
	XSAMPA = "x-sampa"
)

// Kinds of malformed documents: a *SyntaxError wraps one of them.
var (
	ErrMalformed       = errors.New("lexicon: malformed document")
	ErrUnknownAlphabet = errors.New("lexicon: unknown alphabet")
	ErrEmptyGrapheme   = errors.New("lexicon: empty grapheme")
	ErrNoPronunciation = errors.New("lexicon: lexeme has neither phoneme nor alias")
)

// ErrTooLarge is wrapped by every *LimitError.
var ErrTooLarge = errors.New("lexicon: too large")

// SyntaxError is a document Parse refuses, with where (1-based line and
// column) and what kind of fault it is (Err: ErrMalformed,
// ErrUnknownAlphabet, ErrEmptyGrapheme or ErrNoPronunciation, for
// errors.Is).
type SyntaxError struct {
	Line, Column int
	Msg          string
	Err          error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("lexicon: line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// LimitError is a document past one of the bounds of a lexicon: What is
// "bytes", "lexemes", "grapheme characters", "graphemes of a lexeme" or
// "pronunciation characters", Max its bound. Line and Column say where,
// when the document was read that far (0 for "bytes").
type LimitError struct {
	What         string
	Max          int
	Line, Column int
}

func (e *LimitError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("lexicon: more than %d %s", e.Max, e.What)
	}
	return fmt.Sprintf("lexicon: line %d, column %d: more than %d %s", e.Line, e.Column, e.Max, e.What)
}

func (e *LimitError) Unwrap() error { return ErrTooLarge }

// Lexicon is a parsed PLS document. Make one with Parse or New (which
// index it for Find) and do not change its Lexemes after; it is safe for
// concurrent use. One made otherwise, such as the zero value, is not
// indexed: Find finds none of its graphemes.
type Lexicon struct {
	// Name is the caller's name for the lexicon; PLS documents carry
	// none, so Parse leaves it empty and Marshal does not write it.
	Name string
	// Language is the document's xml:lang (a BCP 47 tag, "en-US").
	Language string
	// Lexemes are the entries, in document order.
	Lexemes []Lexeme

	trie trie // its graphemes, for Find (see trie.go)
	size int  // what Size says
}

// Lexeme is one entry: how it is written and what it is read as.
// Exactly one of Phonemes and Alias is set.
type Lexeme struct {
	// Graphemes are the ways the word is written, white space collapsed
	// to single spaces.
	Graphemes []string
	// Phonemes is the pronunciation in IPA (converted from X-SAMPA when
	// the document wrote that).
	Phonemes string
	// Alias is text read instead of the graphemes.
	Alias string
}

// New returns a lexicon of lexemes in language (a BCP 47 tag), checked
// as Parse checks a document and indexed for Find: rules an API takes in
// another shape (a list of alias and phoneme rules) become a Lexicon
// this way. Graphemes have their white space collapsed; Phonemes are
// IPA (convert X-SAMPA with XSAMPAToIPA). A lexeme with an empty
// grapheme, or not exactly one of Phonemes and Alias, fails with an error
// naming its index that wraps ErrEmptyGrapheme or ErrNoPronunciation;
// past the bounds, a *LimitError.
func New(language string, lexemes []Lexeme) (*Lexicon, error) {
	if len(lexemes) > MaxLexemes {
		return nil, &LimitError{What: "lexemes", Max: MaxLexemes}
	}
	l := &Lexicon{Language: language, Lexemes: make([]Lexeme, len(lexemes))}
	for i, x := range lexemes {
		if len(x.Graphemes) > MaxGraphemesPerLexeme {
			return nil, &LimitError{What: "graphemes of a lexeme", Max: MaxGraphemesPerLexeme}
		}
		if len(x.Graphemes) == 0 {
			return nil, fmt.Errorf("lexicon: lexeme %d: %w", i, ErrEmptyGrapheme)
		}
		gs := make([]string, len(x.Graphemes))
		for k, g := range x.Graphemes {
			if gs[k] = strings.Join(strings.Fields(g), " "); gs[k] == "" {
				return nil, fmt.Errorf("lexicon: lexeme %d: %w", i, ErrEmptyGrapheme)
			}
			if utf8.RuneCountInString(gs[k]) > MaxGrapheme {
				return nil, &LimitError{What: "grapheme characters", Max: MaxGrapheme}
			}
		}
		ph, alias := strings.TrimSpace(x.Phonemes), strings.TrimSpace(x.Alias)
		if (ph == "") == (alias == "") {
			return nil, fmt.Errorf("lexicon: lexeme %d: %w (or both)", i, ErrNoPronunciation)
		}
		if utf8.RuneCountInString(ph+alias) > MaxPronunciation {
			return nil, &LimitError{What: "pronunciation characters", Max: MaxPronunciation}
		}
		l.Lexemes[i] = Lexeme{Graphemes: gs, Phonemes: ph, Alias: alias}
	}
	l.buildIndex()
	return l, nil
}

// Parse reads a PLS 1.0 document.
func Parse(doc []byte) (*Lexicon, error) {
	if len(doc) > MaxBytes {
		return nil, &LimitError{What: "bytes", Max: MaxBytes}
	}
	// A byte order mark, which some editors write, is not text outside
	// the element.
	doc, wasUTF16 := fromUTF16(doc)
	doc = bytes.TrimPrefix(doc, []byte("\ufeff"))
	p := &parser{d: xml.NewDecoder(bytes.NewReader(doc))}
	p.d.Strict = true
	p.d.CharsetReader = charsetReader(wasUTF16)
	lex, err := p.document()
	if err != nil {
		return nil, err
	}
	lex.buildIndex()
	return lex, nil
}

// parser reads a document token by token, knowing where it stands.
type parser struct {
	d         *xml.Decoder
	line, col int // where the token at hand starts
	alphabet  string
}

func (p *parser) syntax(kind error, format string, args ...any) *SyntaxError {
	return &SyntaxError{Line: p.line, Column: p.col, Msg: fmt.Sprintf(format, args...), Err: kind}
}

func (p *parser) limit(what string, max int) *LimitError {
	return &LimitError{What: what, Max: max, Line: p.line, Column: p.col}
}

// token returns the next token that is not a comment, processing
// instruction or directive, with p.line and p.col where it starts.
func (p *parser) token() (xml.Token, error) {
	for {
		p.line, p.col = p.d.InputPos()
		tok, err := p.d.Token()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			line, col := p.d.InputPos()
			msg := err.Error()
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				msg = se.Msg
			}
			return nil, &SyntaxError{Line: line, Column: col, Msg: msg, Err: ErrMalformed}
		}
		switch tok.(type) {
		case xml.Comment, xml.ProcInst, xml.Directive:
			continue
		}
		return tok, nil
	}
}

func (p *parser) document() (*Lexicon, error) {
	var lex *Lexicon
	for {
		tok, err := p.token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if lex != nil || t.Name.Local != "lexicon" {
				return nil, p.syntax(ErrMalformed, "the document must be one <lexicon> element, not <%s>", t.Name.Local)
			}
			if lex, err = p.lexicon(t); err != nil {
				return nil, err
			}
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, p.syntax(ErrMalformed, "text outside <lexicon>")
			}
		}
	}
	if lex == nil {
		return nil, &SyntaxError{Line: 1, Column: 1, Msg: "no <lexicon> element", Err: ErrMalformed}
	}
	return lex, nil
}

// lexicon reads the lexicon element whose start is t.
func (p *parser) lexicon(t xml.StartElement) (*Lexicon, error) {
	if t.Name.Space != "" && t.Name.Space != Namespace {
		return nil, p.syntax(ErrMalformed, "<lexicon> in namespace %q, not PLS's %q", t.Name.Space, Namespace)
	}
	if v, _ := attr(t, "version"); v != "1.0" {
		return nil, p.syntax(ErrMalformed, "<lexicon> version %q, want \"1.0\"", v)
	}
	alphabet, ok := attr(t, "alphabet")
	if !ok {
		return nil, p.syntax(ErrUnknownAlphabet, "<lexicon> has no alphabet attribute")
	}
	var err error
	if p.alphabet, err = p.alphabetOf(alphabet); err != nil {
		return nil, err
	}
	lex := &Lexicon{}
	lex.Language, _ = attr(t, "lang") // xml:lang
	for {
		tok, err := p.token()
		if err != nil {
			return nil, p.unexpectedEOF(err, "lexicon")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "lexeme":
				if len(lex.Lexemes) == MaxLexemes {
					return nil, p.limit("lexemes", MaxLexemes)
				}
				l, err := p.lexeme()
				if err != nil {
					return nil, err
				}
				lex.Lexemes = append(lex.Lexemes, l)
			case "meta", "metadata":
				if err := p.d.Skip(); err != nil {
					return nil, p.unexpectedEOF(err, t.Name.Local)
				}
			default:
				return nil, p.syntax(ErrMalformed, "<%s> in <lexicon>", t.Name.Local)
			}
		case xml.EndElement:
			return lex, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, p.syntax(ErrMalformed, "text in <lexicon> outside a lexeme")
			}
		}
	}
}

// pronunciation is a phoneme or alias element, with its prefer attribute.
type pronunciation struct {
	phonemes, alias string
	prefer          bool
}

// lexeme reads a lexeme element after its start.
func (p *parser) lexeme() (Lexeme, error) {
	startLine, startCol := p.line, p.col
	var l Lexeme
	var prons []pronunciation
	for {
		tok, err := p.token()
		if err != nil {
			return Lexeme{}, p.unexpectedEOF(err, "lexeme")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "grapheme":
				line, col := p.line, p.col
				if len(prons) > 0 {
					return Lexeme{}, p.syntax(ErrMalformed, "<grapheme> after a phoneme or alias")
				}
				if len(l.Graphemes) == MaxGraphemesPerLexeme {
					return Lexeme{}, p.limit("graphemes of a lexeme", MaxGraphemesPerLexeme)
				}
				g, err := p.text("grapheme", MaxGrapheme, "grapheme characters")
				if err != nil {
					return Lexeme{}, err
				}
				g = strings.Join(strings.Fields(g), " ")
				if g == "" {
					return Lexeme{}, &SyntaxError{Line: line, Column: col, Msg: "empty <grapheme>", Err: ErrEmptyGrapheme}
				}
				l.Graphemes = append(l.Graphemes, g)
			case "phoneme":
				pr, err := p.phoneme(t)
				if err != nil {
					return Lexeme{}, err
				}
				prons = append(prons, pr)
			case "alias":
				line, col := p.line, p.col
				a, err := p.text("alias", MaxPronunciation, "pronunciation characters")
				if err != nil {
					return Lexeme{}, err
				}
				if a = strings.Join(strings.Fields(a), " "); a == "" {
					return Lexeme{}, &SyntaxError{Line: line, Column: col, Msg: "empty <alias>", Err: ErrNoPronunciation}
				}
				prons = append(prons, pronunciation{alias: a, prefer: prefers(t)})
			case "example":
				if err := p.d.Skip(); err != nil {
					return Lexeme{}, p.unexpectedEOF(err, "example")
				}
			default:
				return Lexeme{}, p.syntax(ErrMalformed, "<%s> in <lexeme>", t.Name.Local)
			}
		case xml.EndElement:
			if len(l.Graphemes) == 0 {
				return Lexeme{}, &SyntaxError{Line: startLine, Column: startCol, Msg: "<lexeme> without a grapheme", Err: ErrEmptyGrapheme}
			}
			if len(prons) == 0 {
				return Lexeme{}, &SyntaxError{Line: startLine, Column: startCol, Msg: "<lexeme> with neither phoneme nor alias", Err: ErrNoPronunciation}
			}
			chosen := prons[0]
			for _, pr := range prons {
				if pr.prefer {
					chosen = pr
					break
				}
			}
			l.Phonemes, l.Alias = chosen.phonemes, chosen.alias
			return l, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return Lexeme{}, p.syntax(ErrMalformed, "text in <lexeme> outside its elements")
			}
		}
	}
}

// phoneme reads a phoneme element whose start is t, in IPA.
func (p *parser) phoneme(t xml.StartElement) (pronunciation, error) {
	line, col := p.line, p.col
	alphabet := p.alphabet
	if a, ok := attr(t, "alphabet"); ok {
		var err error
		if alphabet, err = p.alphabetOf(a); err != nil {
			return pronunciation{}, err
		}
	}
	ph, err := p.text("phoneme", MaxPronunciation, "pronunciation characters")
	if err != nil {
		return pronunciation{}, err
	}
	ph = strings.Join(strings.Fields(ph), " ")
	if ph == "" {
		return pronunciation{}, &SyntaxError{Line: line, Column: col, Msg: "empty <phoneme>", Err: ErrNoPronunciation}
	}
	if alphabet == XSAMPA {
		ipa, err := XSAMPAToIPA(ph)
		if err != nil {
			return pronunciation{}, &SyntaxError{Line: line, Column: col, Msg: err.Error(), Err: ErrMalformed}
		}
		ph = ipa
	}
	return pronunciation{phonemes: ph, prefer: prefers(t)}, nil
}

// alphabetOf returns the alphabet a names, or an ErrUnknownAlphabet.
func (p *parser) alphabetOf(a string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(a)) {
	case IPA:
		return IPA, nil
	case XSAMPA:
		return XSAMPA, nil
	}
	return "", p.syntax(ErrUnknownAlphabet, "alphabet %q (want %q or %q)", a, IPA, XSAMPA)
}

// text reads the character data of element name up to its end, which
// may hold no elements, and bounds it to max characters.
func (p *parser) text(name string, max int, what string) (string, error) {
	var b strings.Builder
	for {
		tok, err := p.token()
		if err != nil {
			return "", p.unexpectedEOF(err, name)
		}
		switch t := tok.(type) {
		case xml.CharData:
			b.Write(t)
			if utf8.RuneCountInString(b.String()) > max {
				return "", p.limit(what, max)
			}
		case xml.StartElement:
			return "", p.syntax(ErrMalformed, "<%s> in <%s>", t.Name.Local, name)
		case xml.EndElement:
			return b.String(), nil
		}
	}
}

// unexpectedEOF turns the end of the document inside element name into
// a SyntaxError; other errors pass.
func (p *parser) unexpectedEOF(err error, name string) error {
	if err == io.EOF {
		line, col := p.d.InputPos()
		return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf("the document ends inside <%s>", name), Err: ErrMalformed}
	}
	return err
}

func attr(t xml.StartElement, name string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

func prefers(t xml.StartElement) bool {
	v, _ := attr(t, "prefer")
	return strings.TrimSpace(v) == "true"
}

// Marshal writes the lexicon as a PLS 1.0 document in IPA: each lexeme
// with its graphemes and its one pronunciation.
func (l *Lexicon) Marshal() []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<lexicon version="1.0" xmlns="` + Namespace + `" alphabet="ipa"`)
	if l.Language != "" {
		b.WriteString(` xml:lang="`)
		xml.EscapeText(&b, []byte(l.Language))
		b.WriteString(`"`)
	}
	b.WriteString(">\n")
	element := func(name, text string) {
		b.WriteString("    <" + name + ">")
		xml.EscapeText(&b, []byte(text))
		b.WriteString("</" + name + ">\n")
	}
	for _, x := range l.Lexemes {
		b.WriteString("  <lexeme>\n")
		for _, g := range x.Graphemes {
			element("grapheme", g)
		}
		if x.Alias != "" {
			element("alias", x.Alias)
		} else {
			element("phoneme", x.Phonemes)
		}
		b.WriteString("  </lexeme>\n")
	}
	b.WriteString("</lexicon>\n")
	return b.Bytes()
}
