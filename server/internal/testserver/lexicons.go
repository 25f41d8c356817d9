package testserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/wire"
)

// whoPLS aliases WHO to the organization's name.
const WhoPLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>
</lexicon>`

// near reports whether two audio lengths are within 5% of each other.
func Near(a, b int) bool { return a*100 >= b*95 && a*100 <= b*105 }

// ErrorBody is an OpenAI-shaped error answer.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Param   string `json:"param"`
	} `json:"error"`
}

// CreateLexicon uploads pls as key's account and returns its object.
func CreateLexicon(t *testing.T, e *Env, key, name, pls string) wire.Lexicon {
	t.Helper()
	res := e.Do("POST", "/v1/lexicons?name="+name, key, "application/pls+xml", strings.NewReader(pls))
	defer res.Body.Close()
	var l wire.Lexicon
	if res.StatusCode != http.StatusCreated || json.NewDecoder(res.Body).Decode(&l) != nil || l.ID == "" {
		t.Fatalf("POST /v1/lexicons: %d %+v", res.StatusCode, l)
	}
	return l
}

// SpeechOf is the answer to a speech request body as key.
func SpeechOf(t *testing.T, e *Env, key, body string) (status int, audio []byte, werr ErrorBody) {
	t.Helper()
	res := e.Do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(body))
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		json.Unmarshal(data, &werr)
	}
	return res.StatusCode, data, werr
}
