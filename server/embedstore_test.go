package server_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/servertest"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// An application with its own users and a Store: the accounts its
// Authenticate hook names are made in the store on their first request,
// so a user the store has never seen clones a voice and adds a lexicon
// (before, the clone was a 500 and the lexicon a 404 naming lexicon "").
// A name the store cannot take is refused with a message that says why.
func TestEmbeddedAccountsMadeOnFirstUse(t *testing.T) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	se := servertest.Start(t, servertest.Options{Synthesizer: synth, Server: server.Options{
		Authenticate: func(r *http.Request) (string, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return u, nil
			}
			return "", errors.New("Sign in first.")
		}}})
	ts := httptest.NewServer(se.Server)
	defer ts.Close()
	do := func(user, method, path, contentType, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("X-User", user)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if status, b := do("bob", "POST", "/v1/voices", "application/json", `{"id":"narrator","name":"Narrator","base_voice":"en-us"}`); status != 201 && status != 200 {
		t.Fatalf("bob's first clone: %d %s", status, b)
	}
	if status, b := do("bob", "GET", "/v1/voices", "", ""); status != 200 || !strings.Contains(b, `"narrator"`) {
		t.Errorf("bob's voices: %d %s", status, b)
	}
	if status, b := do("carol", "POST", "/v1/lexicons", "application/pls+xml", testserver.WhoPLS); status != 201 && status != 200 {
		t.Errorf("carol's first lexicon: %d %s", status, b)
	}
	if status, b := do("carol", "GET", "/v1/voices", "", ""); status != 200 || strings.Contains(b, `"narrator"`) {
		t.Errorf("carol sees bob's clone: %d %s", status, b)
	}
	status, b := do("Not A Name!", "POST", "/v1/voices", "application/json", `{"id":"x","name":"x","base_voice":"en-us"}`)
	if status/100 != 4 && status/100 != 5 || !strings.Contains(b, "Authenticate") || !strings.Contains(b, "Not A Name!") {
		t.Errorf("an account name the store cannot take: %d %s", status, b)
	}
}
