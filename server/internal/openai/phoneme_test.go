package openai_test

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestSilentPhonemesRefused: a phoneme tag (<|phoneme|> or SSML's
// <phoneme>) whose phonemes make no audio in the voice is a 400 naming
// them, not a 200 with nothing (or less) to hear; phonemes the voice has
// are spoken.
func TestSilentPhonemesRefused(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	speak := func(input, format string) (int, string) {
		body, _ := json.Marshal(map[string]any{"voice": "en-us", "input": input, "response_format": format})
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(string(body)))
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, tc := range []struct{ input, phonemes string }{
		{"<|phoneme:ʘʘʘ|>hello<|/phoneme|>", "ʘʘʘ"},
		{"<|phoneme:_|>hello<|/phoneme|>", "_"},
		{`<speak><phoneme alphabet="ipa" ph="ʘʘ">hello</phoneme></speak>`, "ʘʘ"},
		{"Hello <|phoneme:ʘʘʘ|>there<|/phoneme|> world.", "ʘʘʘ"},
	} {
		for _, format := range []string{"wav", "pcm"} {
			st, body := speak(tc.input, format)
			var e struct {
				Error struct{ Message, Code string } `json:"error"`
			}
			json.Unmarshal([]byte(body), &e)
			if st != 400 || e.Error.Code != "invalid_value" || !strings.Contains(e.Error.Message, `"`+tc.phonemes+`"`) {
				t.Errorf("%q as %s: %d %.300s; want 400 invalid_value naming %q", tc.input, format, st, body, tc.phonemes)
			}
		}
	}
	if st, body := speak("<|phoneme:həˈloʊ|>hello<|/phoneme|>", "pcm"); st != 200 || len(body) < 4000 {
		t.Errorf("phonemes the voice has: %d, %d bytes", st, len(body))
	}
}
