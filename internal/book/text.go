package book

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeText makes UTF-8 text of data: a UTF-8 byte order mark is
// dropped, UTF-16 with a byte order mark is converted, and anything else
// must be valid UTF-8 with no NUL bytes. Line ends become "\n".
func decodeText(format string, data []byte) (string, error) {
	var text string
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		s, err := fromUTF16(data)
		if err != nil {
			return "", formatError(format, ErrEncoding, "%s", err.Error())
		}
		text = s
	}
	if text == "" {
		if !utf8.Valid(data) {
			n := invalidAt(data)
			return "", formatError(format, ErrEncoding, "the text is not UTF-8 (invalid byte 0x%02x at offset %d); save it as UTF-8", data[n], n)
		}
		text = string(data)
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		return "", formatError(format, ErrEncoding, "the text holds a NUL byte (at character %d): is it a binary file?", utf8.RuneCountInString(text[:i]))
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return strings.ReplaceAll(text, "\r", "\n"), nil
}

func invalidAt(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// fromUTF16 converts UTF-16 text that starts with its byte order mark.
func fromUTF16(data []byte) (string, error) {
	big := data[0] == 0xFE
	data = data[2:]
	if len(data)%2 != 0 {
		return "", errOddUTF16
	}
	units := make([]uint16, len(data)/2)
	for i := range units {
		if big {
			units[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		} else {
			units[i] = uint16(data[2*i+1])<<8 | uint16(data[2*i])
		}
	}
	return string(utf16.Decode(units)), nil
}

var errOddUTF16 = errors.New("the UTF-16 text has an odd number of bytes")

// chapterLine matches a line that is only a chapter heading: "Chapter 3",
// "CHAPTER III.", "Chapter Twenty-One: The Storm".
var chapterLine = regexp.MustCompile(`^(?:CHAPTER|Chapter)\s+(?:[0-9]{1,3}|[IVXLCDM]{1,8}|` + numberWords + `)\b(?:\s*[.:—–-]?\s*\S.{0,70})?[.]?$`)

const numberWords = `(?i:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|hundred)`

// plainText splits text at its chapter headings when it has two or more
// that stand on lines of their own after a blank line (or at the start);
// otherwise it is one chapter with no title.
func plainText(text string) []Chapter {
	lines := strings.Split(text, "\n")
	var heads []int
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if chapterLine.MatchString(l) && (i == 0 || strings.TrimSpace(lines[i-1]) == "") {
			heads = append(heads, i)
		}
	}
	if len(heads) < 2 {
		return []Chapter{{Text: text}}
	}
	var chapters []Chapter
	if front := strings.Join(lines[:heads[0]], "\n"); strings.TrimSpace(front) != "" {
		chapters = append(chapters, Chapter{Text: front})
	}
	for k, h := range heads {
		end := len(lines)
		if k+1 < len(heads) {
			end = heads[k+1]
		}
		chapters = append(chapters, Chapter{
			Title: strings.TrimSpace(lines[h]),
			Text:  strings.Join(lines[h+1:end], "\n"),
		})
	}
	return chapters
}
