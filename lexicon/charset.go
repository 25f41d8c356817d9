package lexicon

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
)

// fromUTF16 returns a document that starts with a UTF-16 byte order mark
// as UTF-8, and whether it was one; encoding/xml reads UTF-8 alone.
func fromUTF16(doc []byte) ([]byte, bool) {
	var order unicode.Endianness
	switch {
	case bytes.HasPrefix(doc, []byte{0xFF, 0xFE}):
		order = unicode.LittleEndian
	case bytes.HasPrefix(doc, []byte{0xFE, 0xFF}):
		order = unicode.BigEndian
	default:
		return doc, false
	}
	out, err := unicode.UTF16(order, unicode.ExpectBOM).NewDecoder().Bytes(doc)
	if err != nil {
		return doc, false
	}
	return out, true
}

// charsetReader reads a document in the encoding its XML declaration names
// (an IANA name or alias: ISO-8859-1, latin1, windows-1252, ...). A UTF-16
// document was made UTF-8 already (fromUTF16), so its declaration is true
// of what the document was, and read as it now is.
func charsetReader(wasUTF16 bool) func(label string, in io.Reader) (io.Reader, error) {
	return func(label string, in io.Reader) (io.Reader, error) {
		if wasUTF16 && strings.HasPrefix(strings.ToLower(label), "utf-16") {
			return in, nil
		}
		enc, err := ianaindex.IANA.Encoding(label)
		if err != nil || enc == nil {
			return nil, fmt.Errorf("the document's encoding %q is not one this reads", label)
		}
		if enc == encoding.Nop {
			return in, nil
		}
		return enc.NewDecoder().Reader(in), nil
	}
}
