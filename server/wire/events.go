package wire

import (
	"encoding/base64"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/voxkit/voxkit/tts"
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
	return UsageOf(utf8.RuneCountInString(input), audio)
}

// UsageOf computes Usage for an input of chars characters (an input
// stream's, which is not kept) and the duration of audio produced.
func UsageOf(chars int, audio time.Duration) Usage {
	out := int((audio + 20*time.Millisecond - 1) / (20 * time.Millisecond))
	return Usage{InputTokens: chars, OutputTokens: out, TotalTokens: chars + out}
}

// Event is any one event of an SSE stream as a client reads it (the
// gateway reading a worker's answer): Type says which of the other fields
// it holds. An error event has no type, only Error (an Error's object).
type Event struct {
	Type  string          `json:"type"`
	Audio string          `json:"audio"`
	Words []WordTime      `json:"words"`
	Error json.RawMessage `json:"error"`
}

// SSEDelta returns the SSE event carrying audio, with its trailing blank
// line.
func SSEDelta(audio []byte) []byte { return AppendSSEDelta(nil, audio) }

// AppendSSEDelta appends SSEDelta(audio) to dst, so that a stream can
// reuse one buffer for its events: the base64 is written in place (its
// alphabet needs no JSON escaping), not built as a string, marshalled and
// copied, four times the audio in garbage per event.
func AppendSSEDelta(dst, audio []byte) []byte {
	dst = append(dst, `data: {"type":"`+EventAudioDelta+`","audio":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, audio)
	return append(dst, "\"}\n\n"...)
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

// EventTimestamps is the type of the word timings sent after each
// sentence's audio, as an SSE event and as a WebSocket message, when a
// request asks for "timestamps": "word".
const EventTimestamps = "speech.timestamps"

// Timestamps are the word timings of one sentence.
type Timestamps struct {
	Type string `json:"type"`
	// ID is the WebSocket context's id; absent over SSE.
	ID string `json:"id,omitempty"`
	// Index counts the sentences of the request from 0.
	Index int        `json:"index"`
	Words []WordTime `json:"words"`
}

// WordTime is where one word is heard: milliseconds from the start of the
// request's audio, and the word's characters (Unicode code points) in the
// text the client sent, tags included.
type WordTime struct {
	Word      string  `json:"word"`
	StartMS   float64 `json:"start_ms"`
	EndMS     float64 `json:"end_ms"`
	CharStart int     `json:"char_start"`
	CharEnd   int     `json:"char_end"`
	Estimated bool    `json:"estimated,omitempty"`
}

// NewTimestamps returns the message of a sentence's word timings.
func NewTimestamps(id string, d tts.SentenceDone) Timestamps {
	ms := func(t time.Duration) float64 { return float64(t.Microseconds()) / 1000 }
	words := make([]WordTime, len(d.Words))
	for i, w := range d.Words {
		words[i] = WordTime{Word: w.Word, StartMS: ms(w.Start), EndMS: ms(w.End), CharStart: w.CharStart, CharEnd: w.CharEnd, Estimated: w.Estimated}
	}
	return Timestamps{Type: EventTimestamps, ID: id, Index: d.Index, Words: words}
}

// SSETimestamps returns the SSE event of a sentence's word timings.
func SSETimestamps(d tts.SentenceDone) []byte { return sseData(NewTimestamps("", d)) }
