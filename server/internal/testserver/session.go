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

// setPassword gives account a password through the store.
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

// browserSession is a signed-in browser: its cookie and CSRF token.
type BrowserSession struct {
	Cookie *http.Cookie
	Csrf   string
}

// signIn posts the sign-in form; the response is returned for the
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

// doAs sends a request with the session's cookie, and its CSRF token when
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
