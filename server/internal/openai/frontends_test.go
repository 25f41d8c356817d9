package openai_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/wire"
)

// TestAudioVoicesAsFrontEndsRead: GET /v1/audio/voices is {"voices": [...]}
// of objects with id and name (Open WebUI maps id to name), language and
// engine: the global voices, the caller's clones and not another's, and
// the aliases that speak.
func TestAudioVoicesAsFrontEndsRead(t *testing.T) {
	t.Parallel()
	e := testserver.New(t, testserver.Options{})
	var body struct {
		Voices []map[string]string `json:"voices"`
	}
	if code := e.GetJSON(t, "/v1/audio/voices", e.Key, &body); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	names := map[string]string{} // as Open WebUI reads them: id → name
	byID := map[string]map[string]string{}
	for _, v := range body.Voices {
		names[v["id"]] = v["name"]
		byID[v["id"]] = v
	}
	for _, id := range []string{"en-us", "en-gb", "local-clone", "alloy", "marin"} {
		if names[id] == "" {
			t.Errorf("%s missing from %v", id, names)
		}
	}
	if _, ok := names["other-clone"]; ok {
		t.Error("another account's clone is listed")
	}
	if v := byID["local-clone"]; v["engine"] != "fake" {
		t.Errorf("local-clone: %v", v)
	}
	if v := byID["alloy"]; v["alias_of"] != "en-us" || v["engine"] != "espeak" {
		t.Errorf("alloy: %v", v)
	}
	var other struct{ Voices []wire.AudioVoice }
	e.GetJSON(t, "/v1/audio/voices", e.OtherKey, &other)
	if !slices.ContainsFunc(other.Voices, func(v wire.AudioVoice) bool { return v.ID == "other-clone" }) ||
		slices.ContainsFunc(other.Voices, func(v wire.AudioVoice) bool { return v.ID == "local-clone" }) {
		t.Errorf("other account's voices: %v", other.Voices)
	}
	// Open WebUI lists voices and models without its key: the global
	// voices and aliases, no account's clones. A key that fails is 401.
	for _, path := range []string{"/v1/audio/voices", "/v1/audio/models"} {
		var anonymous struct {
			Voices []wire.AudioVoice `json:"voices"`
		}
		if code := e.GetJSON(t, path, "", &anonymous); code != http.StatusOK {
			t.Errorf("%s without a key: %d, want 200", path, code)
		}
		if slices.ContainsFunc(anonymous.Voices, func(v wire.AudioVoice) bool { return strings.HasSuffix(v.ID, "-clone") }) {
			t.Errorf("%s without a key lists a clone: %v", path, anonymous.Voices)
		}
		if path == "/v1/audio/voices" && !slices.ContainsFunc(anonymous.Voices, func(v wire.AudioVoice) bool { return v.ID == "alloy" }) {
			t.Errorf("%s without a key: no alias alloy in %v", path, anonymous.Voices)
		}
		if res := e.Do("GET", path, "sk_not_a_key", "", nil); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with a wrong key: %d, want 401", path, res.StatusCode)
		}
	}
}

// TestAudioModelsAsFrontEndsRead: GET /v1/audio/models is an OpenAI list
// whose entries are also under "models" (Open WebUI's key): OpenAI's
// speech models, then the engines.
func TestAudioModelsAsFrontEndsRead(t *testing.T) {
	t.Parallel()
	e := testserver.New(t, testserver.Options{})
	var body struct {
		Object string
		Data   []struct{ ID, Object, OwnedBy string }
		Models []struct{ ID string }
	}
	if code := e.GetJSON(t, "/v1/audio/models", e.Key, &body); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	var ids []string
	for _, m := range body.Models {
		ids = append(ids, m.ID)
	}
	if body.Object != "list" || len(body.Data) != len(body.Models) || !slices.Equal(ids[:3], []string{"tts-1", "tts-1-hd", "gpt-4o-mini-tts"}) ||
		!slices.Contains(ids, "espeak") {
		t.Errorf("models %v, %+v", ids, body)
	}
}

// TestModelsAgreeWithSpeech: every OpenAI voice name and model name
// speaks, and GET /v1/models/{id} answers for what speaks (an alias
// under its own id) and 404 for what does not.
func TestModelsAgreeWithSpeech(t *testing.T) {
	t.Parallel()
	e := testserver.New(t, testserver.Options{})
	for _, model := range []string{"tts-1", "tts-1-hd", "gpt-4o-mini-tts"} {
		for _, voice := range server.OpenAIVoiceNames() {
			res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
				strings.NewReader(`{"model":"`+model+`","voice":"`+voice+`","input":"Hi.","response_format":"pcm"}`))
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Errorf("%s %s: %d", model, voice, res.StatusCode)
			}
		}
		var m wire.Model
		if code := e.GetJSON(t, "/v1/models/"+model, e.Key, &m); code != http.StatusOK || m.ID != model {
			t.Errorf("/v1/models/%s: %d %+v", model, code, m)
		}
	}
	for _, c := range []struct {
		id, key string
		status  int
		engine  string
	}{{"alloy", e.Key, 200, "espeak"}, {"marin", e.Key, 200, "espeak"}, {"en-us", e.Key, 200, "espeak"}, {"local-clone", e.Key, 200, "fake"},
		{"other-clone", e.Key, 404, ""}, {"nobody", e.Key, 404, ""}} {
		var m wire.Model
		code := e.GetJSON(t, "/v1/models/"+c.id, c.key, &m)
		if code != c.status || c.status == 200 && (m.ID != c.id || m.Engine != c.engine || m.Object != "model") {
			t.Errorf("/v1/models/%s: %d %+v", c.id, code, m)
		}
	}
}

// TestDefaultFormat: Options.DefaultFormat is what a request without
// response_format gets; one that names a format still gets it; wav stays
// the default; a format the server cannot encode is refused by New.
func TestDefaultFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ def, body, want string }{
		{"", `{"voice":"alloy","input":"Hi."}`, "audio/wav"},
		{"mp3", `{"voice":"alloy","input":"Hi."}`, "audio/mpeg"},
		{"mp3", `{"voice":"alloy","input":"Hi.","response_format":"flac"}`, "audio/flac"},
	} {
		e := testserver.New(t, testserver.Options{DefaultFormat: c.def})
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(c.body))
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != c.want {
			t.Errorf("default %q, %s: %d %s, want %s", c.def, c.body, res.StatusCode, res.Header.Get("Content-Type"), c.want)
		}
	}
	e := testserver.New(t, testserver.Options{})
	if _, err := server.New(server.Options{Synthesizer: e.Synth, Store: e.Store, DefaultFormat: "xyz"}); err == nil {
		t.Error(`DefaultFormat "xyz": no error`)
	}
}
