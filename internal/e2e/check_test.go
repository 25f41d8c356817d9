package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
)

// contentTypes are the interface specification's Content-Type per response_format.
var contentTypes = map[string]string{
	"wav":  "audio/wav",
	"mp3":  "audio/mpeg",
	"pcm":  "audio/pcm",
	"opus": "audio/opus",
	"flac": "audio/flac",
}

// apiError is the error object every non-2xx response must carry.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// checkError verifies that a non-2xx response is OpenAI-shaped JSON:
// Content-Type application/json and {"error":{"message":string,"type":string}}.
func checkError(h http.Header, body []byte) (apiError, error) {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return apiError{}, fmt.Errorf("error Content-Type %q, want application/json", h.Get("Content-Type"))
	}
	var raw struct {
		Error map[string]json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return apiError{}, fmt.Errorf("error body %q does not parse: %v", body, err)
	}
	for _, f := range []string{"message", "type"} {
		var s string
		if err := json.Unmarshal(raw.Error[f], &s); err != nil || s == "" {
			return apiError{}, fmt.Errorf("error body %q: error.%s is not a non-empty string", body, f)
		}
	}
	var e struct{ Error apiError }
	json.Unmarshal(body, &e)
	return e.Error, nil
}

// sniff names the audio format bytes look like, "" if none.
func sniff(b []byte) string {
	switch {
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		return "wav"
	case len(b) >= 4 && string(b[:4]) == "fLaC":
		return "flac"
	case len(b) >= 36 && string(b[:4]) == "OggS" && bytes.Contains(b[:64], []byte("OpusHead")):
		return "opus"
	case len(b) >= 3 && string(b[:3]) == "ID3", len(b) >= 2 && b[0] == 0xff && b[1]&0xe0 == 0xe0:
		return "mp3"
	}
	return ""
}

// checkAudio verifies that a 2xx speech response's Content-Type is the
// interface specification's for format and that the bytes are of that format (pcm, having
// no header, only needs an even length).
func checkAudio(h http.Header, body []byte, format string) error {
	want := contentTypes[format]
	if got := h.Get("Content-Type"); got != want {
		return fmt.Errorf("Content-Type %q for %s, want %q", got, format, want)
	}
	if format == "pcm" {
		if len(body)%2 != 0 {
			return fmt.Errorf("pcm body of odd length %d", len(body))
		}
		return nil
	}
	if got := sniff(body); got != format {
		return fmt.Errorf("%s response bytes look like %q (% x…)", format, got, body[:min(len(body), 16)])
	}
	return nil
}
