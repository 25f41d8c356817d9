package testserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// speak posts a speech request for pcm audio and returns the samples'
// bytes and the ignored tags (a trailer of a pcm stream).
func (e *Env) SpeakPCM(t *testing.T, input, instructions string) ([]byte, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"voice": "en-us", "input": input, "response_format": "pcm", "instructions": instructions})
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(string(body)))
	defer res.Body.Close()
	pcm, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("instructions %q: %d %v %s", instructions, res.StatusCode, err, pcm)
	}
	return pcm, res.Trailer.Get("X-Ignored-Tags")
}
