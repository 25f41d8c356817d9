//go:build cgo

package testserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

const TestPassword = "correct horse battery"

// SetPassword gives account a password through the store.
func (e *Env) SetPassword(account, password string) {
	e.T.Helper()
	hash, err := store.HashPassword(password)
	if err != nil {
		e.T.Fatal(err)
	}
	if err := e.Store.SetPassword(context.Background(), account, hash); err != nil {
		e.T.Fatal(err)
	}
}

// BrowserSession is a signed-in browser: its cookie and CSRF token.
type BrowserSession struct {
	Cookie *http.Cookie
	Csrf   string
}

// SignIn posts the sign-in form; the response is returned for the
// caller to judge, with the session it started (if any).
func (e *Env) SignIn(account, password string) (*http.Response, BrowserSession) {
	e.T.Helper()
	body, _ := json.Marshal(map[string]string{"account": account, "password": password})
	res := e.Do("POST", "/v1/session", "", "application/json", strings.NewReader(string(body)))
	var bs BrowserSession
	for _, c := range res.Cookies() {
		if c.Name == server.SessionCookie {
			bs.Cookie = c
		}
	}
	if res.StatusCode == 200 {
		var s wire.Session
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if err := json.Unmarshal(b, &s); err != nil || !s.SignedIn || s.Account != account || s.CSRFToken == "" {
			e.T.Fatalf("sign-in answer %s (%v)", b, err)
		}
		bs.Csrf = s.CSRFToken
	}
	return res, bs
}

// DoAs sends a request with the session's cookie, and its CSRF token when
// withCSRF.
func (e *Env) DoAs(bs BrowserSession, withCSRF bool, method, path, body string) *http.Response {
	e.T.Helper()
	req, err := http.NewRequest(method, e.TS.URL+path, strings.NewReader(body))
	if err != nil {
		e.T.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: bs.Cookie.Name, Value: bs.Cookie.Value})
	if withCSRF {
		req.Header.Set("X-CSRF-Token", bs.Csrf)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.TS.Client().Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	return res
}

func Status(t *testing.T, res *http.Response, want int) {
	t.Helper()
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != want {
		t.Errorf("status %d, want %d: %s", res.StatusCode, want, b)
	}
}

// Call sends a JSON request and decodes the answer into out (if not nil);
// it returns the status.
func (e *Env) Call(method, path, key, body string, out any) int {
	e.T.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	res := e.Do(method, path, key, "application/json", r)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.T.Fatalf("%s %s: %d %s: %v", method, path, res.StatusCode, b, err)
		}
	}
	return res.StatusCode
}

// Speak returns the status and the pcm bytes of voice saying the sample.
func (e *Env) Speak(key, voice string) (int, []byte) {
	e.T.Helper()
	res := e.Do("POST", "/v1/audio/speech", key, "application/json",
		strings.NewReader(`{"voice":"`+voice+`","input":"Hello there, how are you today?","response_format":"pcm"}`))
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// Models returns the model list of key as id → owned_by.
func (e *Env) Models(key string) map[string]string {
	e.T.Helper()
	var l wire.ModelList
	if st := e.Call("GET", "/v1/models", key, "", &l); st != 200 {
		e.T.Fatalf("models: %d", st)
	}
	m := map[string]string{}
	for _, x := range l.Data {
		m[x.ID] = x.OwnedBy
	}
	return m
}

// WhoPLS aliases WHO to the organization's name.
const WhoPLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>
</lexicon>`

// Near reports whether two audio lengths are within 5% of each other.
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
