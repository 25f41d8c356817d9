package admin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

func TestSignInSession(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	e.SetPassword("local", testserver.TestPassword)

	// Not signed in: the page learns so, and whether it may offer sign-up.
	res := e.Do("GET", "/v1/session", "", "", nil)
	var s wire.Session
	json.NewDecoder(res.Body).Decode(&s)
	res.Body.Close()
	if res.StatusCode != 200 || s.SignedIn || s.Signup || s.CSRFToken != "" {
		t.Fatalf("anonymous session: %d %+v", res.StatusCode, s)
	}

	// Wrong password and unknown account get the same answer.
	res, _ = e.SignIn("local", "wrong password")
	wrong := testserver.APIError(t, res, 401, wire.CodeInvalidCredentials)
	res, _ = e.SignIn("nobody", testserver.TestPassword)
	if unknown := testserver.APIError(t, res, 401, wire.CodeInvalidCredentials); unknown.Message != wrong.Message {
		t.Errorf("unknown account says %q, wrong password %q", unknown.Message, wrong.Message)
	}

	res, bs := e.SignIn("local", testserver.TestPassword)
	if res.StatusCode != 200 || bs.Cookie == nil {
		t.Fatalf("sign-in: %d", res.StatusCode)
	}
	if c := bs.Cookie; !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, Path=/, not Secure over plain HTTP", c)
	}

	// The cookie reads and, with the CSRF token, writes.
	testserver.Status(t, e.DoAs(bs, false, "GET", "/v1/keys", ""), 200)
	testserver.Status(t, e.DoAs(bs, false, "GET", "/v1/session", ""), 200)
	testserver.APIError(t, e.DoAs(bs, false, "POST", "/v1/keys", `{"name":"x"}`), 403, wire.CodeBadCSRFToken)
	bad := bs
	bad.Csrf = csrfOfOther(t, e)
	testserver.APIError(t, e.DoAs(bad, true, "POST", "/v1/keys", `{"name":"x"}`), 403, wire.CodeBadCSRFToken)
	testserver.APIError(t, e.DoAs(bs, false, "DELETE", "/v1/session", ""), 403, wire.CodeBadCSRFToken)
	res = e.DoAs(bs, true, "POST", "/v1/keys", `{"name":"from the page","scope":"speech"}`)
	var k wire.APIKey
	json.NewDecoder(res.Body).Decode(&k)
	res.Body.Close()
	if res.StatusCode != 201 || !store.WellFormed(k.Key) || k.Scope != "speech" || k.Account != "local" {
		t.Fatalf("key from the session: %d %+v", res.StatusCode, k)
	}
	testserver.Status(t, e.Do("POST", "/v1/audio/speech", k.Key, "application/json",
		strings.NewReader(`{"model":"tts-1","voice":"en-us","input":"Hi."}`)), 200)
	testserver.Status(t, e.DoAs(bs, true, "POST", "/v1/audio/speech", `{"model":"tts-1","voice":"en-us","input":"Hi."}`), 200)

	// A session is never a bearer key.
	testserver.APIError(t, e.Do("GET", "/v1/models", bs.Cookie.Value, "", nil), 401, wire.CodeInvalidAPIKey)

	// Sign-out ends the session on the server: the old cookie is refused.
	testserver.Status(t, e.DoAs(bs, true, "DELETE", "/v1/session", ""), 204)
	testserver.APIError(t, e.DoAs(bs, false, "GET", "/v1/keys", ""), 401, wire.CodeSessionExpired)
	res = e.DoAs(bs, false, "GET", "/v1/session", "")
	json.NewDecoder(res.Body).Decode(&s)
	res.Body.Close()
	if s.SignedIn {
		t.Errorf("signed in after sign-out: %+v", s)
	}
}

// csrfOfOther returns the CSRF token of another session of local.
func csrfOfOther(t *testing.T, e *testserver.Env) string {
	t.Helper()
	_, other := e.SignIn("local", testserver.TestPassword)
	return other.Csrf
}

func TestPasswordChangeEndsSessions(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	e.SetPassword("local", testserver.TestPassword)
	_, a := e.SignIn("local", testserver.TestPassword)
	_, b := e.SignIn("local", testserver.TestPassword)

	testserver.APIError(t, e.DoAs(a, true, "POST", "/v1/account/password", `{"current_password":"nope nope nope","new_password":"another long one"}`),
		400, wire.CodeInvalidCredentials)
	testserver.APIError(t, e.DoAs(a, true, "POST", "/v1/account/password", `{"current_password":"`+testserver.TestPassword+`","new_password":"short"}`),
		400, wire.CodeStringTooShort)
	res := e.DoAs(a, true, "POST", "/v1/account/password", `{"current_password":"`+testserver.TestPassword+`","new_password":"another long one"}`)
	var s wire.Session
	json.NewDecoder(res.Body).Decode(&s)
	res.Body.Close()
	if res.StatusCode != 200 || !s.SignedIn {
		t.Fatalf("change: %d %+v", res.StatusCode, s)
	}
	// Both old sessions are over; the browser that changed it got a new one.
	testserver.APIError(t, e.DoAs(a, false, "GET", "/v1/keys", ""), 401, wire.CodeSessionExpired)
	testserver.APIError(t, e.DoAs(b, false, "GET", "/v1/keys", ""), 401, wire.CodeSessionExpired)
	var renewed testserver.BrowserSession
	for _, c := range res.Cookies() {
		if c.Name == server.SessionCookie {
			renewed = testserver.BrowserSession{Cookie: c, Csrf: s.CSRFToken}
		}
	}
	if renewed.Cookie == nil {
		t.Fatal("no new cookie after the change")
	}
	testserver.Status(t, e.DoAs(renewed, false, "GET", "/v1/keys", ""), 200)
	res, _ = e.SignIn("local", testserver.TestPassword)
	testserver.APIError(t, res, 401, wire.CodeInvalidCredentials)
	res, _ = e.SignIn("local", "another long one")
	testserver.Status(t, res, 200)
}

func TestSignInThrottled(t *testing.T) {
	testserver.Long(t)
	e := testserver.New(t, testserver.Options{})
	e.SetPassword("local", testserver.TestPassword)
	e.SetPassword("other", testserver.TestPassword)
	for i := range 10 {
		res, _ := e.SignIn("local", "guess "+strconv.Itoa(i))
		testserver.APIError(t, res, 401, wire.CodeInvalidCredentials)
	}
	// The account is throttled, even for its right password, and says for
	// how long; the answer does not depend on whether the password is right.
	res, _ := e.SignIn("local", testserver.TestPassword)
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	testserver.APIError(t, res, 429, wire.CodeTooManyAttempts)
	// Another account from the same address is not.
	res, _ = e.SignIn("other", testserver.TestPassword)
	testserver.Status(t, res, 200)
	// Nor does one address exhaust every account: the address has its own,
	// larger budget (30 at once, one more every 2 s), spent here by guesses
	// at many names, each a fresh account. On a busy machine the guesses
	// take long enough for the budget to grow meanwhile: the address is
	// refused within 30 guesses and what the clock gave back.
	start := time.Now()
	for i := 0; ; i++ {
		res, _ := e.SignIn("guess-"+strconv.Itoa(i), testserver.TestPassword)
		if res.StatusCode == http.StatusTooManyRequests {
			testserver.APIError(t, res, 429, wire.CodeTooManyAttempts)
			break
		}
		res.Body.Close()
		if allowed := 30 + int(time.Since(start)/(2*time.Second)) + 1; i > allowed {
			t.Fatalf("the address made %d sign-ins in %v, more than its budget allows (%d)", i+1, time.Since(start), allowed)
		}
	}
}

func TestSignupWithPassword(t *testing.T) {
	e := testserver.New(t, testserver.Options{Signup: true})
	testserver.APIError(t, e.Do("POST", "/v1/accounts", "", "application/json", strings.NewReader(`{"name":"dora","password":"short"}`)),
		400, wire.CodeStringTooShort)
	testserver.APIError(t, e.Do("POST", "/v1/accounts", "", "application/json", strings.NewReader(`{"name":"dora"}`)),
		400, wire.CodeMissingParameter)
	res := e.Do("POST", "/v1/accounts", "", "application/json", strings.NewReader(`{"name":"dora","password":"`+testserver.TestPassword+`"}`))
	var su wire.Signup
	json.NewDecoder(res.Body).Decode(&su)
	res.Body.Close()
	if res.StatusCode != 201 || su.Account.Name != "dora" || su.Session == nil || !su.Session.SignedIn || su.Key != nil {
		t.Fatalf("signup: %d %+v", res.StatusCode, su)
	}
	var bs testserver.BrowserSession
	for _, c := range res.Cookies() {
		if c.Name == server.SessionCookie {
			bs = testserver.BrowserSession{Cookie: c, Csrf: su.Session.CSRFToken}
		}
	}
	if bs.Cookie == nil {
		t.Fatal("signup set no cookie")
	}
	testserver.Status(t, e.DoAs(bs, true, "POST", "/v1/keys", `{"name":"first"}`), 201)
	res, _ = e.SignIn("dora", testserver.TestPassword)
	testserver.Status(t, res, 200)
}

func TestWebSocketWithSessionCookie(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	e.SetPassword("local", testserver.TestPassword)
	_, bs := e.SignIn("local", testserver.TestPassword)
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+"/v1/audio/speech/ws",
		&websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: http.Header{"Cookie": {bs.Cookie.Name + "=" + bs.Cookie.Value}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(16 << 20)
	if m := testserver.Next(t, c); m.Type != "ready" || m.Account != "local" {
		t.Fatalf("ready: %+v", m)
	}
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "1", "voice": "en-us", "input": "Hi."})
	for m := testserver.Next(t, c); m.Type != "speech.done"; m = testserver.Next(t, c) {
		if m.Type == "error" {
			t.Fatalf("speech: %+v", m)
		}
	}
	// Signed out elsewhere: the session's next request is refused.
	testserver.Status(t, e.DoAs(bs, true, "DELETE", "/v1/session", ""), 204)
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "2", "voice": "en-us", "input": "Hi."})
	if m := testserver.Next(t, c); m.Type != "error" || m.Error["code"] != wire.CodeSessionExpired {
		t.Fatalf("after sign-out: %+v", m)
	}
	// An ended session's cookie cannot open a WebSocket.
	_, res, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+"/v1/audio/speech/ws",
		&websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: http.Header{"Cookie": {bs.Cookie.Name + "=" + bs.Cookie.Value}}})
	if err == nil || res == nil || res.StatusCode != 401 {
		t.Fatalf("dial with an ended session: %v %v", res, err)
	}
}

func TestTagsListed(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	res := e.Do("GET", "/v1/tags", "", "", nil)
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
