package wire

import (
	"unicode/utf8"

	"github.com/voxkit/voxkit/tts/normalize"
)

// Normalization is the answer of GET /v1/normalize: the text a voice
// reads for an input, and which characters of the input each piece of it
// comes from.
type Normalization struct {
	Object string              `json:"object"` // "normalization"
	Voice  string              `json:"voice"`
	Text   string              `json:"text"`
	Spans  []NormalizationSpan `json:"spans"`
}

// NormalizationSpan maps text[TextStart:TextEnd] to
// input[InputStart:InputEnd], in characters (Unicode code points).
// Changed is false where the input is read as written.
type NormalizationSpan struct {
	TextStart  int  `json:"text_start"`
	TextEnd    int  `json:"text_end"`
	InputStart int  `json:"input_start"`
	InputEnd   int  `json:"input_end"`
	Changed    bool `json:"changed"`
}

// FromNormalized converts normalized text of input for the API.
func FromNormalized(voice, input string, t normalize.Text) Normalization {
	out := Normalization{Object: "normalization", Voice: voice, Text: t.Text, Spans: make([]NormalizationSpan, 0, len(t.Spans))}
	// The spans are in order and contiguous: each starts where the one
	// before ended, so characters are counted once.
	textChars, inputChars := 0, 0
	for _, s := range t.Spans {
		span := NormalizationSpan{TextStart: textChars, InputStart: inputChars, Changed: !s.Copy}
		textChars += utf8.RuneCountInString(t.Text[s.Out:s.OutEnd])
		inputChars += utf8.RuneCountInString(input[s.Src:s.SrcEnd])
		span.TextEnd, span.InputEnd = textChars, inputChars
		out.Spans = append(out.Spans, span)
	}
	return out
}
