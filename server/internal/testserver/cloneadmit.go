package testserver

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// cloneDoor is one door's way to clone a voice from a recording.
type CloneDoor struct {
	Name string
	// path and field are the route and the recording's form field;
	// headers gives the headers that carry a key.
	Path, Field string
	Headers     func(key string) []string
	// made is the status of a clone made.
	Made int
	// CodeAt is where the door's error shape has the error code: keys
	// of nested objects.
	CodeAt []string
}

var CloneDoors = []CloneDoor{
	{"openai", "/v1/voices", "audio", func(key string) []string { return []string{"Authorization", "Bearer " + key} },
		http.StatusCreated, []string{"error", "code"}},
	{"elevenlabs", "/elevenlabs/v1/voices/add", "files", func(key string) []string { return []string{"xi-api-key", key} },
		http.StatusOK, []string{"detail", "status"}},
	{"cartesia", "/cartesia/voices/clone", "clip", func(key string) []string {
		return []string{"X-API-Key", key, "Cartesia-Version", "2026-08-14"}
	}, http.StatusOK, []string{"error_code"}},
}

// code reads the error code from an answer in the door's shape.
func (d CloneDoor) Code(body []byte) string {
	var v any
	json.Unmarshal(body, &v)
	for _, k := range d.CodeAt {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// clone sends the recording rec with key, named Me.
func (d CloneDoor) Clone(e *Env, key string, rec []byte) *http.Response {
	return d.CloneWith(e, key, map[string]string{"name": "Me"}, rec)
}

// cloneWith sends the recording rec with key and the fields.
func (d CloneDoor) CloneWith(e *Env, key string, fields map[string]string, rec []byte) *http.Response {
	return e.PostForm(d.Path, fields, d.Field, [][]byte{rec}, d.Headers(key)...)
}

// refusedClone fails t unless res is status with the error code in d's
// shape, and, for a 429, Retry-After.
func (d CloneDoor) RefusedClone(t *testing.T, res *http.Response, status int, code string) {
	t.Helper()
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != status || d.Code(b) != code {
		t.Errorf("%s: %d %s, want %d %s", d.Name, res.StatusCode, b, status, code)
	}
	if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
		t.Errorf("%s: 429 without Retry-After", d.Name)
	}
}
