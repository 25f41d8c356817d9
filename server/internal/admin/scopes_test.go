package admin_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server/wire"
)

type keyJSON struct {
	Key    string `json:"key"`
	Prefix string `json:"prefix"`
	Scope  string `json:"scope"`
}

// Keys made through the API are speech keys unless an admin key asks for
// an admin one; a speech key may speak and list voices, and nothing else:
// it can neither mint keys nor revoke the operator's.
func TestScopedKeys(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	var speech, admin keyJSON
	if st := e.Call("POST", "/v1/keys", e.Key, `{"name":"app"}`, &speech); st != 201 || speech.Scope != "speech" {
		t.Fatalf("default key: %d %+v", st, speech)
	}
	if st := e.Call("POST", "/v1/keys", e.Key, `{"name":"ops","scope":"admin"}`, &admin); st != 201 || admin.Scope != "admin" {
		t.Fatalf("admin key: %d %+v", st, admin)
	}
	res := e.Do("POST", "/v1/keys", e.Key, "application/json", strings.NewReader(`{"scope":"root"}`))
	if got := testserver.APIError(t, res, 400, "invalid_value"); got.Param != "scope" {
		t.Errorf("scope root: param %v", got.Param)
	}

	if st, _ := e.Speak(speech.Key, "en-us"); st != 200 {
		t.Errorf("speech key, speech: %d", st)
	}
	if st := e.Call("GET", "/v1/models", speech.Key, "", nil); st != 200 {
		t.Errorf("speech key, models: %d", st)
	}
	// GET /v1/account says which scope the asking key has (a gateway
	// checks its own key this way).
	for key, want := range map[string]string{speech.Key: "speech", admin.Key: "admin"} {
		var a wire.Account
		if st := e.Call("GET", "/v1/account", key, "", &a); st != 200 || a.Scope != want || a.Name != "local" {
			t.Errorf("GET /v1/account with a %s key: %d %+v", want, st, a)
		}
	}
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/v1/keys", `{"scope":"admin"}`},
		{"GET", "/v1/keys", ""},
		{"DELETE", "/v1/keys/" + admin.Prefix, ""},
		{"GET", "/v1/voices", ""},
		{"POST", "/v1/voices", `{"id":"mine","name":"Mine","base_voice":"en-us"}`},
		{"DELETE", "/v1/voices/local-clone", ""},
	} {
		var body io.Reader
		if tc.body != "" {
			body = strings.NewReader(tc.body)
		}
		res := e.Do(tc.method, tc.path, speech.Key, "application/json", body)
		if got := testserver.APIError(t, res, 403, "insufficient_scope"); got.Type != "permission_error" {
			t.Errorf("%s %s: type %q", tc.method, tc.path, got.Type)
		}
	}
	// The admin key made through the API may manage keys.
	if st := e.Call("DELETE", "/v1/keys/"+speech.Prefix, admin.Key, "", nil); st != 200 {
		t.Errorf("admin key revoking: %d", st)
	}
}

// An account holds at most MaxKeysPerAccount live keys, even when the
// creations race.
func TestKeyLimit(t *testing.T) {
	const max = 5
	e := testserver.New(t, testserver.Options{MaxKeys: max})
	live := func() int {
		ks, err := e.Store.Keys(context.Background(), "local")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, k := range ks {
			if k.Revoked.IsZero() {
				n++
			}
		}
		return n
	}
	before := live()
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Go(func() {
			res := e.Do("POST", "/v1/keys", e.Key, "application/json", strings.NewReader(`{"name":"k"}`))
			statuses[i] = res.StatusCode
			if res.StatusCode != 201 {
				testserver.APIError(t, res, 400, "key_limit_reached")
			} else {
				res.Body.Close()
			}
		})
	}
	wg.Wait()
	made := 0
	for _, st := range statuses {
		if st == 201 {
			made++
		}
	}
	if made != max-before || live() != max {
		t.Errorf("%d keys made from %d live, %d live now; want the account to stop at %d", made, before, live(), max)
	}
}

// Names are text: control characters, bidirectional formatting and
// invisible characters, line separators and invalid UTF-8 are refused in
// key, account and voice clone names.
func TestNamesAreText(t *testing.T) {
	e := testserver.New(t, testserver.Options{Signup: true})
	bad := []string{
		`"a\u001b]0;pwned\u0007b"`, // OSC: retitles a terminal
		`"row\r\nsk_fake  local"`,  // a forged table row
		`"abc\u202edcba"`,          // right-to-left override
		`"ad\u200bmin"`,            // zero-width space: looks like "admin"
		`"ad\u200dmin"`,            // zero-width joiner
		`"a\u2028b"`,               // line separator
		`"a\u2029b"`,               // paragraph separator
		`"\ufeffadmin"`,            // byte order mark
		`"admin\udb40\udc41"`,      // tag character U+E0041
		`"tab\there"`,
		`"lone \udc00 surrogate"`,
		"\"raw \xff byte\"",
	}
	for _, name := range bad {
		for _, tc := range []struct{ path, body string }{
			{"/v1/keys", `{"name":` + name + `}`},
			{"/v1/accounts", `{"name":` + name + `}`},
			{"/v1/voices", `{"id":"named","base_voice":"en-us","name":` + name + `}`},
		} {
			res := e.Do("POST", tc.path, e.Key, "application/json", strings.NewReader(tc.body))
			code := "invalid_value"
			if strings.Contains(name, "\xff") {
				code = "invalid_json" // the body is not UTF-8 at all
			}
			testserver.APIError(t, res, 400, code)
		}
	}
	var k keyJSON
	if st := e.Call("POST", "/v1/keys", e.Key, `{"name":"café ☕ 日本"}`, &k); st != 201 {
		t.Errorf("a name in several scripts: %d", st)
	}
	ks, _ := e.Store.Keys(context.Background(), "local")
	for _, k := range ks {
		if strings.ContainsAny(k.Name, "\x1b\r\n\u202e\ufffd") {
			t.Errorf("stored key name %q", k.Name)
		}
	}
	if _, err := e.Store.Account(context.Background(), "named"); err == nil {
		t.Error("an account was made")
	}
}
