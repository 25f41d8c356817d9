package admin_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/server/wire"
)

func TestVoiceCloneLifecycle(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	var v wire.Voice
	if st := e.Call("POST", "/v1/voices", e.Key, `{"name":"Quick","base_voice":"fake","speed":2}`, &v); st != 201 {
		t.Fatalf("create: %d %+v", st, v)
	}
	if !strings.HasPrefix(v.ID, "voice_") || v.Object != "voice" || v.Name != "Quick" || v.BaseVoice != "fake" ||
		v.OwnedBy != "user" || v.Speed != 2 || v.Pitch != 0 || v.Range != 1 || v.Volume != 1 || v.Whisper || v.Created == 0 {
		t.Errorf("created %+v", v)
	}

	// Listed as the owner's own model, to the owner only.
	if got := e.Models(e.Key); got[v.ID] != "user" || got["en-us"] != "service" {
		t.Errorf("owner's models: %v", got)
	}
	if got := e.Models(e.OtherKey); got[v.ID] != "" {
		t.Errorf("another account sees the clone: %v", got)
	}
	var m wire.Model
	if st := e.Call("GET", "/v1/models/"+v.ID, e.Key, "", &m); st != 200 || m.OwnedBy != "user" {
		t.Errorf("get model: %d %+v", st, m)
	}
	if st := e.Call("GET", "/v1/models/"+v.ID, e.OtherKey, "", nil); st != 404 {
		t.Errorf("another account gets the model: %d", st)
	}

	// It speaks with its base voice at twice the speed.
	st, base := e.Speak(e.Key, "fake")
	st2, quick := e.Speak(e.Key, v.ID)
	if st != 200 || st2 != 200 {
		t.Fatalf("speech: %d, %d", st, st2)
	}
	if r := float64(len(quick)) / float64(len(base)); r < 0.45 || r > 0.55 {
		t.Errorf("speed 2 clone: duration ×%.3f of its base, want ×0.5", r)
	}
	var apiErr wire.Error
	res := e.Do("POST", "/v1/audio/speech", e.OtherKey, "application/json",
		strings.NewReader(`{"voice":"`+v.ID+`","input":"hi","response_format":"pcm"}`))
	json.NewDecoder(res.Body).Decode(&apiErr)
	res.Body.Close()
	if res.StatusCode != 404 || apiErr.Type != wire.TypeProxy || !strings.Contains(apiErr.Message, "unknown") {
		t.Errorf("another account's speech: %d %+v", res.StatusCode, apiErr)
	}

	// The voices endpoints are scoped too.
	var list wire.VoiceList
	if st := e.Call("GET", "/v1/voices", e.Key, "", &list); st != 200 || len(list.Data) != 1 || list.Data[0] != v {
		t.Errorf("list: %d %+v", st, list)
	}
	if st := e.Call("GET", "/v1/voices", e.OtherKey, "", &list); st != 200 || len(list.Data) != 0 {
		t.Errorf("other's list: %d %+v", st, list)
	}
	var got wire.Voice
	if st := e.Call("GET", "/v1/voices/"+v.ID, e.Key, "", &got); st != 200 || got != v {
		t.Errorf("get: %d %+v", st, got)
	}
	for _, method := range []string{"GET", "DELETE"} {
		var we wire.Error
		if st := e.Call(method, "/v1/voices/"+v.ID, e.OtherKey, "", &we); st != 404 || we.Code != wire.CodeVoiceNotFound {
			t.Errorf("%s by another account: %d %+v", method, st, we)
		}
	}

	// Deleted, it is gone everywhere.
	var del wire.VoiceDeleted
	if st := e.Call("DELETE", "/v1/voices/"+v.ID, e.Key, "", &del); st != 200 || !del.Deleted || del.ID != v.ID {
		t.Errorf("delete: %d %+v", st, del)
	}
	if st, _ := e.Speak(e.Key, v.ID); st != 404 {
		t.Errorf("speech after delete: %d", st)
	}
	if got := e.Models(e.Key); got[v.ID] != "" {
		t.Errorf("models after delete: %v", got)
	}
	if st := e.Call("GET", "/v1/voices/"+v.ID, e.Key, "", nil); st != 404 {
		t.Errorf("get after delete: %d", st)
	}
	if st := e.Call("DELETE", "/v1/voices/"+v.ID, e.Key, "", nil); st != 404 {
		t.Errorf("second delete: %d", st)
	}
}

func TestVoiceCloneErrors(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"mine","name":"x","base_voice":"en-us"}`, nil); st != 201 {
		t.Fatalf("create: %d", st)
	}
	tests := []struct {
		name, body  string
		status      int
		code, param string
	}{
		{"unknown base", `{"name":"x","base_voice":"nope"}`, 400, wire.CodeInvalidValue, "base_voice"},
		{"another account's clone as base", `{"name":"x","base_voice":"other-clone"}`, 400, wire.CodeInvalidValue, "base_voice"},
		{"own id taken", `{"id":"mine","name":"x","base_voice":"en-us"}`, 409, wire.CodeVoiceExists, "id"},
		{"global id reserved", `{"id":"en-gb","name":"x","base_voice":"en-us"}`, 400, wire.CodeInvalidValue, "id"},
		{"alias reserved", `{"id":"alloy","name":"x","base_voice":"en-us"}`, 400, wire.CodeInvalidValue, "id"},
		{"bad setting", `{"name":"x","base_voice":"en-us","pitch":20}`, 400, wire.CodeDecimalTooLarge, "pitch"},
		{"audio", `{"name":"x","base_voice":"en-us","audio":"UklGRiQAAABXQVZF"}`, 400, wire.CodeInvalidValue, "audio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var we wire.Error
			if st := e.Call("POST", "/v1/voices", e.Key, tt.body, &we); st != tt.status || we.Code != tt.code || we.Param != tt.param {
				t.Errorf("%d %+v; want %d %s %s", st, we, tt.status, tt.code, tt.param)
			}
		})
	}
	// The clash found only in the catalog left nothing in the store.
	if vs, _ := e.Store.Voices(context.Background(), ""); len(vs) != 1 || vs[0].ID != "mine" {
		t.Errorf("store after failed creations: %+v", vs)
	}
	// An upload gets the same answer as audio in JSON.
	res := e.Do("POST", "/v1/voices", e.Key, "multipart/form-data; boundary=x", strings.NewReader("--x--\r\n"))
	var we wire.Error
	json.NewDecoder(res.Body).Decode(&we)
	res.Body.Close()
	if res.StatusCode != 400 || !strings.Contains(we.Message, "Cloning from audio is not supported") {
		t.Errorf("multipart upload: %d %+v", res.StatusCode, we)
	}
	if st := e.Call("POST", "/v1/voices", "", `{"name":"x","base_voice":"en-us"}`, nil); st != 401 {
		t.Errorf("no key: %d", st)
	}
}

// TestVoiceCloneOfClone: a clone made from another takes its base and
// the settings it does not give, and outlives it.
func TestVoiceCloneOfClone(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	var a, b wire.Voice
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"a","name":"A","base_voice":"fake","speed":2,"pitch":3,"whisper":true}`, &a); st != 201 {
		t.Fatalf("create a: %d", st)
	}
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"b","name":"B","base_voice":"a","pitch":-2}`, &b); st != 201 {
		t.Fatalf("create b: %d", st)
	}
	if b.BaseVoice != "fake" || b.Speed != 2 || b.Pitch != -2 || !b.Whisper {
		t.Errorf("clone of a clone: %+v", b)
	}
	if st := e.Call("DELETE", "/v1/voices/a", e.Key, "", nil); st != 200 {
		t.Fatalf("delete a: %d", st)
	}
	if st, _ := e.Speak(e.Key, "b"); st != 200 {
		t.Errorf("b after a was deleted: %d", st)
	}
}

// TestVoiceClonesSurviveRestart: a new Server on the same database serves
// the clones, to their owners only.
func TestVoiceClonesSurviveRestart(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), sqlite.FileName)
	e := testserver.New(t, testserver.Options{DBPath: dbPath})
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"kept","name":"Kept","base_voice":"fake","speed":2}`, nil); st != 201 {
		t.Fatalf("create: %d", st)
	}
	_, before := e.Speak(e.Key, "kept")
	e.TS.Close()
	e.Store.Close()

	e2 := testserver.New(t, testserver.Options{DBPath: dbPath})
	if got := e2.Models(e.Key); got["kept"] != "user" {
		t.Errorf("after restart: %v", got)
	}
	if got := e2.Models(e.OtherKey); got["kept"] != "" {
		t.Errorf("after restart another account sees it: %v", got)
	}
	st, after := e2.Speak(e.Key, "kept")
	if st != 200 || len(after) != len(before) {
		t.Errorf("speech after restart: %d, %d bytes, before %d", st, len(after), len(before))
	}
}

// TestVoiceCloneBaseRemoved: while its base voice is gone (a rescan
// removed it), a clone is unknown; it comes back with the base.
func TestVoiceCloneBaseRemoved(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"brit","name":"Brit","base_voice":"en-gb","pitch":-2}`, nil); st != 201 {
		t.Fatalf("create: %d", st)
	}
	gb, err := e.Catalog.Lookup("", "en-gb")
	if err != nil {
		t.Fatal(err)
	}
	e.Catalog.Remove("", "en-gb")
	if st, _ := e.Speak(e.Key, "brit"); st != 404 {
		t.Errorf("speech without the base: %d", st)
	}
	if got := e.Models(e.Key); got["brit"] != "" {
		t.Errorf("listed without the base: %v", got)
	}
	if err := e.Catalog.Add(gb); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.Speak(e.Key, "brit"); st != 200 {
		t.Errorf("speech with the base back: %d", st)
	}
}
