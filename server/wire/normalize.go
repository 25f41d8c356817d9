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
	chars := func(s string, i int) int { return utf8.RuneCountInString(s[:i]) }
	for _, s := range t.Spans {
		out.Spans = append(out.Spans, NormalizationSpan{
			TextStart: chars(t.Text, s.Out), TextEnd: chars(t.Text, s.OutEnd),
			InputStart: chars(input, s.Src), InputEnd: chars(input, s.SrcEnd), Changed: !s.Copy,
		})
	}
	return out
}
