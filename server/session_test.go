package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

const testPassword = "correct horse battery"

// setPassword gives account a password through the store.
func (e *env) setPassword(account, password string) {
	e.t.Helper()
	hash, err := store.HashPassword(password)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.SetPassword(context.Background(), account, hash); err != nil {
		e.t.Fatal(err)
	}
}

// browserSession is a signed-in browser: its cookie and CSRF token.
type browserSession struct {
	cookie *http.Cookie
	csrf   string
}

// signIn posts the sign-in form; the response is returned for the
// caller to judge, with the session it started (if any).
func (e *env) signIn(account, password string) (*http.Response, browserSession) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]string{"account": account, "password": password})
	res := e.do("POST", "/v1/session", "", "application/json", strings.NewReader(string(body)))
	var bs browserSession
	for _, c := range res.Cookies() {
		if c.Name == server.SessionCookie {
			bs.cookie = c
		}
	}
	if res.StatusCode == 200 {
		var s wire.Session
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if err := json.Unmarshal(b, &s); err != nil || !s.SignedIn || s.Account != account || s.CSRFToken == "" {
			e.t.Fatalf("sign-in answer %s (%v)", b, err)
		}
		bs.csrf = s.CSRFToken
	}
	return res, bs
}

// doAs sends a request with the session's cookie, and its CSRF token when
// withCSRF.
func (e *env) doAs(bs browserSession, withCSRF bool, method, path, body string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: bs.cookie.Name, Value: bs.cookie.Value})
	if withCSRF {
		req.Header.Set("X-CSRF-Token", bs.csrf)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func status(t *testing.T, res *http.Response, want int) {
	t.Helper()
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != want {
		t.Errorf("status %d, want %d: %s", res.StatusCode, want, b)
	}
}

func TestSignInSession(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.setPassword("local", testPassword)

	// Not signed in: the page learns so, and whether it may offer sign-up.
	res := e.do("GET", "/v1/session", "", "", nil)
	var s wire.Session
	json.NewDecoder(res.Body).Decode(&s)
	res.Body.Close()
	if res.StatusCode != 200 || s.SignedIn || s.Signup || s.CSRFToken != "" {
		t.Fatalf("anonymous session: %d %+v", res.StatusCode, s)
	}

	// Wrong password and unknown account get the same answer.
	res, _ = e.signIn("local", "wrong password")
	wrong := apiError(t, res, 401, wire.CodeInvalidCredentials)
	res, _ = e.signIn("nobody", testPassword)
	if unknown := apiError(t, res, 401, wire.CodeInvalidCredentials); unknown.Message != wrong.Message {
		t.Errorf("unknown account says %q, wrong password %q", unknown.Message, wrong.Message)
	}

	res, bs := e.signIn("local", testPassword)
	if res.StatusCode != 200 || bs.cookie == nil {
		t.Fatalf("sign-in: %d", res.StatusCode)
	}
	if c := bs.cookie; !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, Path=/, not Secure over plain HTTP", c)
	}

	// The cookie reads and, with the CSRF token, writes.
	status(t, e.doAs(bs, false, "GET", "/v1/keys", ""), 200)
	status(t, e.doAs(bs, false, "GET", "/v1/session", ""), 200)
	apiError(t, e.doAs(bs, false, "POST", "/v1/keys", `{"name":"x"}`), 403, wire.CodeBadCSRFToken)
	bad := bs
	bad.csrf = csrfOfOther(t, e)
	apiError(t, e.doAs(bad, true, "POST", "/v1/keys", `{"name":"x"}`), 403, wire.CodeBadCSRFToken)
	apiError(t, e.doAs(bs, false, "DELETE", "/v1/session", ""), 403, wire.CodeBadCSRFToken)
	res = e.doAs(bs, true, "POST", "/v1/keys", `{"name":"from the page","scope":"speech"}`)
	var k wire.APIKey
	json.NewDecoder(res.Body).Decode(&k)
	res.Body.Close()
	if res.StatusCode != 201 || !store.WellFormed(k.Key) || k.Scope != "speech" || k.Account != "local" {
		t.Fatalf("key from the session: %d %+v", res.StatusCode, k)
	}
	status(t, e.do("POST", "/v1/audio/speech", k.Key, "application/json",
		strings.NewReader(`{"model":"tts-1","voice":"en-us","input":"Hi."}`)), 200)
	status(t, e.doAs(bs, true, "POST", "/v1/audio/speech", `{"model":"tts-1","voice":"en-us","input":"Hi."}`), 200)

	// A session is never a bearer key.
	apiError(t, e.do("GET", "/v1/models", bs.cookie.Value, "", nil), 401, wire.CodeInvalidAPIKey)

	// Sign-out ends the session on the server: the old cookie is refused.
	status(t, e.doAs(bs, true, "DELETE", "/v1/session", ""), 204)
	apiError(t, e.doAs(bs, false, "GET", "/v1/keys", ""), 401, wire.CodeSessionExpired)
	res = e.doAs(bs, false, "GET", "/v1/session", "")
	json.NewDecoder(res.Body).Decode(&s)
	res.Body.Close()
	if s.SignedIn {
		t.Errorf("signed in after sign-out: %+v", s)
	}
}

// csrfOfOther returns the CSRF token of another session of local.
func csrfOfOther(t *testing.T, e *env) string {
	t.Helper()
	_, other := e.signIn("local", testPassword)
	return other.csrf
}

func TestPasswordChangeEndsSessions(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.setPassword("local", testPassword)
	_, a := e.signIn("local", testPassword)
	_, b := e.signIn("local", testPassword)

	apiError(t, e.doAs(a, true, "POST", "/v1/account/password", `{"current_password":"nope nope nope","new_password":"another long one"}`),
		400, wire.CodeInvalidCredentials)
	apiError(t, e.doAs(a, true, "POST", "/v1/account/password", `{"current_password":"`+testPassword+`","new_password":"short"}`),
		400, wire.CodeStringTooShort)
	res := e.doAs(a, true, "POST", "/v1/account/password", `{"current_password":"`+testPassword+`","new_password":"another long one"}`)
	var s wire.Session
	json.NewDecoder(res.Body).Decode(&s)
	res.Body.Close()
	if res.StatusCode != 200 || !s.SignedIn {
		t.Fatalf("change: %d %+v", res.StatusCode, s)
	}
	// Both old sessions are over; the browser that changed it got a new one.
	apiError(t, e.doAs(a, false, "GET", "/v1/keys", ""), 401, wire.CodeSessionExpired)
	apiError(t, e.doAs(b, false, "GET", "/v1/keys", ""), 401, wire.CodeSessionExpired)
	var renewed browserSession
	for _, c := range res.Cookies() {
		if c.Name == server.SessionCookie {
			renewed = browserSession{cookie: c, csrf: s.CSRFToken}
		}
	}
	if renewed.cookie == nil {
		t.Fatal("no new cookie after the change")
	}
	status(t, e.doAs(renewed, false, "GET", "/v1/keys", ""), 200)
	res, _ = e.signIn("local", testPassword)
	apiError(t, res, 401, wire.CodeInvalidCredentials)
	res, _ = e.signIn("local", "another long one")
	status(t, res, 200)
}

func TestSignInThrottled(t *testing.T) {
	long(t)
	e := newEnv(t, envOptions{})
	e.setPassword("local", testPassword)
	e.setPassword("other", testPassword)
	for i := range 10 {
		res, _ := e.signIn("local", "guess "+strconv.Itoa(i))
		apiError(t, res, 401, wire.CodeInvalidCredentials)
	}
	// The account is throttled, even for its right password, and says for
	// how long; the answer does not depend on whether the password is right.
	res, _ := e.signIn("local", testPassword)
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	apiError(t, res, 429, wire.CodeTooManyAttempts)
	// Another account from the same address is not.
	res, _ = e.signIn("other", testPassword)
	status(t, res, 200)
	// Nor does one address exhaust every account: the address has its own,
	// larger budget, spent here by guesses at many names.
	for i := range 30 {
		res, _ := e.signIn("guess-"+strconv.Itoa(i), testPassword)
		res.Body.Close()
	}
	res, _ = e.signIn("other", testPassword)
	apiError(t, res, 429, wire.CodeTooManyAttempts)
}

func TestSignupWithPassword(t *testing.T) {
	e := newEnv(t, envOptions{signup: true})
	apiError(t, e.do("POST", "/v1/accounts", "", "application/json", strings.NewReader(`{"name":"dora","password":"short"}`)),
		400, wire.CodeStringTooShort)
	apiError(t, e.do("POST", "/v1/accounts", "", "application/json", strings.NewReader(`{"name":"dora"}`)),
		400, wire.CodeMissingParameter)
	res := e.do("POST", "/v1/accounts", "", "application/json", strings.NewReader(`{"name":"dora","password":"`+testPassword+`"}`))
	var su wire.Signup
	json.NewDecoder(res.Body).Decode(&su)
	res.Body.Close()
	if res.StatusCode != 201 || su.Account.Name != "dora" || su.Session == nil || !su.Session.SignedIn || su.Key != nil {
		t.Fatalf("signup: %d %+v", res.StatusCode, su)
	}
	var bs browserSession
	for _, c := range res.Cookies() {
		if c.Name == server.SessionCookie {
			bs = browserSession{cookie: c, csrf: su.Session.CSRFToken}
		}
	}
	if bs.cookie == nil {
		t.Fatal("signup set no cookie")
	}
	status(t, e.doAs(bs, true, "POST", "/v1/keys", `{"name":"first"}`), 201)
	res, _ = e.signIn("dora", testPassword)
	status(t, res, 200)
}

func TestWebSocketWithSessionCookie(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.setPassword("local", testPassword)
	_, bs := e.signIn("local", testPassword)
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.ts.URL, "http")+"/v1/audio/speech/ws",
		&websocket.DialOptions{HTTPClient: e.ts.Client(), HTTPHeader: http.Header{"Cookie": {bs.cookie.Name + "=" + bs.cookie.Value}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(16 << 20)
	if m := next(t, c); m.Type != "ready" || m.Account != "local" {
		t.Fatalf("ready: %+v", m)
	}
	sendWS(t, c, map[string]any{"type": "speech.create", "id": "1", "voice": "en-us", "input": "Hi."})
	for m := next(t, c); m.Type != "speech.done"; m = next(t, c) {
		if m.Type == "error" {
			t.Fatalf("speech: %+v", m)
		}
	}
	// Signed out elsewhere: the session's next request is refused.
	status(t, e.doAs(bs, true, "DELETE", "/v1/session", ""), 204)
	sendWS(t, c, map[string]any{"type": "speech.create", "id": "2", "voice": "en-us", "input": "Hi."})
	if m := next(t, c); m.Type != "error" || m.Error["code"] != wire.CodeSessionExpired {
		t.Fatalf("after sign-out: %+v", m)
	}
	// An ended session's cookie cannot open a WebSocket.
	_, res, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.ts.URL, "http")+"/v1/audio/speech/ws",
		&websocket.DialOptions{HTTPClient: e.ts.Client(), HTTPHeader: http.Header{"Cookie": {bs.cookie.Name + "=" + bs.cookie.Value}}})
	if err == nil || res == nil || res.StatusCode != 401 {
		t.Fatalf("dial with an ended session: %v %v", res, err)
	}
}

func TestTagsListed(t *testing.T) {
	e := newEnv(t, envOptions{})
	res := e.do("GET", "/v1/tags", "", "", nil)
	var l wire.TagList
	json.NewDecoder(res.Body).Decode(&l)
	res.Body.Close()
	found := false
	for _, tg := range l.Data {
		if tg.Name == "pause" && strings.HasPrefix(tg.Example, "<|pause") && tg.Description != "" {
			found = true
		}
	}
	if res.StatusCode != 200 || !found {
		t.Fatalf("tags: %d %+v", res.StatusCode, l)
	}
}
