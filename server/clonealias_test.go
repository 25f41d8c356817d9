package server_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/servertest"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// TestAliasOfAClone: an alias may name a clone id, which no clone has at
// start: it is kept (Server.Aliases lists it) and resolved at each request
// to the caller's clone of that id, so a front end that wants a typeable
// name gets one; an account without that clone gets the alias's 404. An
// alias of a voice nobody can have (no Store, so no clones) is dropped.
func TestAliasOfAClone(t *testing.T) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	se := servertest.Start(t, servertest.Options{Synthesizer: synth, Accounts: []string{"local", "other"},
		Server: server.Options{Aliases: map[string]string{"narrator": "my-book", "alloy": "en-us"}}})
	if got := se.Server.Aliases(); got["narrator"] != "my-book" || got["alloy"] != "en-us" {
		t.Fatalf("aliases kept: %v", got)
	}
	ts := httptest.NewServer(se.Server)
	defer ts.Close()
	do := func(key, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	speech := `{"voice":"narrator","input":"Hello.","response_format":"wav"}`
	if status, b := do(se.Keys["local"], "/v1/audio/speech", speech); status != 404 || !strings.Contains(b, "narrator") {
		t.Errorf("the alias before the clone exists: %d %.200s", status, b)
	}
	if status, b := do(se.Keys["local"], "/v1/voices", `{"id":"my-book","name":"My book","base_voice":"en-gb","speed":0.9}`); status/100 != 2 {
		t.Fatalf("clone: %d %s", status, b)
	}
	if status, b := do(se.Keys["local"], "/v1/audio/speech", speech); status != 200 || !strings.HasPrefix(b, "RIFF") {
		t.Errorf("the alias of local's clone: %d %.200s", status, b)
	}
	if status, b := do(se.Keys["other"], "/v1/audio/speech", speech); status != 404 {
		t.Errorf("another account, without the clone: %d %.200s", status, b)
	}

	hostOnly, err := server.New(server.Options{Synthesizer: synth, Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(*http.Request) (string, error) { return "app", nil },
		Aliases:      map[string]string{"narrator": "my-book", "alloy": "en-us"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hostOnly.Aliases(); len(got) != 1 || got["alloy"] != "en-us" {
		t.Errorf("without a store, aliases kept: %v", got)
	}
}
