package wire

import (
	"encoding/base64"
	"encoding/json"
	"time"
	"unicode/utf8"
)

// SSE event types of stream_format "sse".
const (
	EventAudioDelta = "speech.audio.delta"
	EventAudioDone  = "speech.audio.done"
)

// AudioDelta is one piece of audio in an SSE stream.
type AudioDelta struct {
	Type  string `json:"type"`
	Audio string `json:"audio"` // base64 of the encoded bytes
}

// Usage counts a request's size. voxkit has no tokenizer: input_tokens
// is the number of input characters and output_tokens the number of 20 ms
// frames of audio produced.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// AudioDone ends an SSE stream (before the final "[DONE]").
type AudioDone struct {
	Type  string `json:"type"`
	Usage Usage  `json:"usage"`
}

// NewUsage computes Usage for input and the duration of audio produced.
func NewUsage(input string, audio time.Duration) Usage {
	in := utf8.RuneCountInString(input)
	out := int((audio + 20*time.Millisecond - 1) / (20 * time.Millisecond))
	return Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
}

// SSEDelta returns the SSE event carrying audio, with its trailing blank
// line.
func SSEDelta(audio []byte) []byte {
	return sseData(AudioDelta{Type: EventAudioDelta, Audio: base64.StdEncoding.EncodeToString(audio)})
}

// SSEDone returns the closing events: speech.audio.done with usage, then
// "data: [DONE]".
func SSEDone(u Usage) []byte {
	b := sseData(AudioDone{Type: EventAudioDone, Usage: u})
	return append(b, "data: [DONE]\n\n"...)
}

// SSEError returns an error event, sent when synthesis fails after the
// stream has begun. OpenAI SDKs surface it as a stream error.
func SSEError(e *Error) []byte { return sseData(e) }

func sseData(v any) []byte {
	j, err := json.Marshal(v)
	if err != nil { // the values above always marshal
		panic("wire: " + err.Error())
	}
	b := make([]byte, 0, len(j)+8)
	b = append(b, "data: "...)
	b = append(b, j...)
	return append(b, "\n\n"...)
}
