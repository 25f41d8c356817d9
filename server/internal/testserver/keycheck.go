package testserver

import (
	"io"
	"net/http"
	"strings"
)

// speechRequest sends a speech request with body and returns the status,
// headers and the whole body (or what arrived of it).
func (e *Env) SpeechRequest(key, body string) (*http.Response, []byte) {
	e.T.Helper()
	res := e.Do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(body))
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, data
}
