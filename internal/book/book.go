package book

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"path"
	"strings"
)

// Chapter is one chapter of a book: its title (empty when the book gives
// none, as for plain text without chapter headings) and its text.
// Paragraphs in Text are separated by a blank line ("\n\n"); the title is
// not repeated at the start of the text.
type Chapter struct {
	Title, Text string
}

// Reasons a book is refused, wrapped by a *FormatError.
var (
	// ErrEmpty: the book holds no text to speak.
	ErrEmpty = errors.New("book: no text")
	// ErrEncoding: the text is not UTF-8 (or UTF-16 with a byte order
	// mark).
	ErrEncoding = errors.New("book: not UTF-8")
	// ErrTooLarge: an archive decompresses to more than the Parser's
	// limits.
	ErrTooLarge = errors.New("book: too large")
	// ErrUnsupported: the file is of a kind Parse does not read.
	ErrUnsupported = errors.New("book: unsupported format")
)

// FormatError says what is wrong with a book.
type FormatError struct {
	// Format is the kind of book it was read as: "text", "markdown",
	// "html" or "epub"; empty when the kind is not known.
	Format string
	// Msg says what is wrong, for a person: "META-INF/container.xml
	// names no package document".
	Msg string
	// Err is the reason among ErrEmpty, ErrEncoding, ErrTooLarge and
	// ErrUnsupported, or another error met reading the book, or nil.
	Err error
}

func (e *FormatError) Error() string {
	if e.Format == "" {
		return "book: " + e.Msg
	}
	return "book: " + e.Format + ": " + e.Msg
}

func (e *FormatError) Unwrap() error { return e.Err }

func formatError(format string, err error, msg string, args ...any) *FormatError {
	return &FormatError{Format: format, Msg: fmt.Sprintf(msg, args...), Err: err}
}

// Default limits of a Parser whose fields are zero.
const (
	DefaultMaxSize    = 64 << 20
	DefaultMaxEntries = 10000
)

// Parser reads books within limits. Its zero value uses the defaults.
type Parser struct {
	// MaxSize bounds the bytes decompressed from an archive (EPUB), all
	// entries read together; 0 means DefaultMaxSize. An archive's own
	// claims of its entries' sizes are not trusted: reading stops at the
	// limit.
	MaxSize int64
	// MaxEntries bounds the files an archive may hold; 0 means
	// DefaultMaxEntries.
	MaxEntries int
}

// Parse reads a book with the default limits: see Parser.Parse.
func Parse(filename, contentType string, data []byte) ([]Chapter, error) {
	var p Parser
	return p.Parse(filename, contentType, data)
}

// Parse reads the book in data. Its kind comes from contentType
// ("text/plain", "text/markdown", "text/html", "application/epub+zip"),
// else from the file name's extension (.txt, .md, .markdown, .html,
// .epub), else from the data (a zip archive is read as EPUB, anything
// else as plain text). An HTML page is cut into chapters at its h1 and h2
// headings, as Markdown is at "#" and "##".
// contentType and filename may be empty. The chapters returned all have
// text; a book with none is an error wrapping ErrEmpty.
func (p *Parser) Parse(filename, contentType string, data []byte) ([]Chapter, error) {
	kind := detect(filename, contentType, data)
	chapters, err := p.read(kind, data)
	if err != nil {
		return nil, err
	}
	chapters = nonEmpty(chapters)
	if len(chapters) == 0 {
		return nil, formatError(kind, ErrEmpty, "the book has no text")
	}
	return chapters, nil
}

// read reads a book of a kind detect names.
func (p *Parser) read(kind string, data []byte) ([]Chapter, error) {
	switch kind {
	case "epub":
		return p.epub(data)
	case "html":
		return htmlBook(data)
	case "markdown", "text":
		text, err := decodeText(kind, data)
		if err != nil {
			return nil, err
		}
		if kind == "markdown" {
			return markdown(text), nil
		}
		return plainText(text), nil
	}
	return nil, formatError("", ErrUnsupported, "%s is not a book format read here (plain text, Markdown, HTML or EPUB)", kind)
}

// detect names the kind of book: "epub", "markdown", "text", or the
// content type it does not read.
func detect(filename, contentType string, data []byte) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		switch mt {
		case "application/epub+zip":
			return "epub"
		case "text/markdown", "text/x-markdown":
			return "markdown"
		case "text/html", "application/xhtml+xml":
			return "html"
		case "text/plain":
			// Browsers send text/plain for .md files too.
			if ext(filename) == ".md" || ext(filename) == ".markdown" {
				return "markdown"
			}
			return "text"
		case "application/octet-stream", "application/zip", "application/x-zip-compressed":
			// Says nothing: the name or the data will.
		default:
			if !strings.HasPrefix(mt, "text/") {
				return mt
			}
		}
	}
	switch ext(filename) {
	case ".epub":
		return "epub"
	case ".md", ".markdown":
		return "markdown"
	case ".txt", ".text":
		return "text"
	case ".html", ".htm", ".xhtml":
		return "html"
	}
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return "epub"
	}
	return "text"
}

func ext(filename string) string {
	return strings.ToLower(path.Ext(strings.ReplaceAll(filename, `\`, "/")))
}

// nonEmpty keeps the chapters with text, their text and titles trimmed.
func nonEmpty(chapters []Chapter) []Chapter {
	out := chapters[:0]
	for _, c := range chapters {
		c.Title = strings.Join(strings.Fields(c.Title), " ")
		c.Text = strings.TrimSpace(c.Text)
		if c.Text != "" {
			out = append(out, c)
		}
	}
	return out
}
