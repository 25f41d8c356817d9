package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/pockettest"
	"github.com/voxkit/voxkit/internal/wait"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// cloneDoor is one door's way to clone a voice from a recording.
type cloneDoor struct {
	name string
	// path and field are the route and the recording's form field;
	// headers gives the headers that carry a key.
	path, field string
	headers     func(key string) []string
	// made is the status of a clone made.
	made int
	// codeAt is where the door's error shape has the error code: keys
	// of nested objects.
	codeAt []string
}

var cloneDoors = []cloneDoor{
	{"openai", "/v1/voices", "audio", func(key string) []string { return []string{"Authorization", "Bearer " + key} },
		http.StatusCreated, []string{"error", "code"}},
	{"elevenlabs", "/elevenlabs/v1/voices/add", "files", func(key string) []string { return []string{"xi-api-key", key} },
		http.StatusOK, []string{"detail", "status"}},
	{"cartesia", "/cartesia/voices/clone", "clip", func(key string) []string {
		return []string{"X-API-Key", key, "Cartesia-Version", "2026-08-14"}
	}, http.StatusOK, []string{"error_code"}},
}

// code reads the error code from an answer in the door's shape.
func (d cloneDoor) code(body []byte) string {
	var v any
	json.Unmarshal(body, &v)
	for _, k := range d.codeAt {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// clone sends the recording rec with key, named Me.
func (d cloneDoor) clone(e *env, key string, rec []byte) *http.Response {
	return d.cloneWith(e, key, map[string]string{"name": "Me"}, rec)
}

// cloneWith sends the recording rec with key and the fields.
func (d cloneDoor) cloneWith(e *env, key string, fields map[string]string, rec []byte) *http.Response {
	return e.postForm(d.path, fields, d.field, [][]byte{rec}, d.headers(key)...)
}

// refusedClone fails t unless res is status with the error code in d's
// shape, and, for a 429, Retry-After.
func (d cloneDoor) refusedClone(t *testing.T, res *http.Response, status int, code string) {
	t.Helper()
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != status || d.code(b) != code {
		t.Errorf("%s: %d %s, want %d %s", d.name, res.StatusCode, b, status, code)
	}
	if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
		t.Errorf("%s: 429 without Retry-After", d.name)
	}
}

// recordingToClone is a 2 s recording that clones.
func recordingToClone() []byte {
	return pockettest.WAV(pockettest.Recording(2, 200), pockettest.SampleRate)
}

// TestCloneConcurrencyLimit: while the account's one concurrent request
// runs, a clone on every door is a 429 in the door's shape with
// Retry-After; another account's clone is made, and the account's once
// the request ends.
func TestCloneConcurrencyLimit(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := pocketEnvWith(t, pocketVoices(t), envOptions{limits: store.Limits{Concurrent: 1}})
	rec := recordingToClone()
	for _, d := range cloneDoors {
		// Its body unread, the slow request holds the account's slot.
		hold := slowSpeech(t, e, e.key, 250)
		if hold.StatusCode != 200 {
			t.Fatalf("the holding request: %d", hold.StatusCode)
		}
		d.refusedClone(t, d.clone(e, e.key, rec), http.StatusTooManyRequests, wire.CodeRateLimit)
		status(t, d.clone(e, e.otherKey, rec), d.made)
		hold.Body.Close()
		got := 0
		if !wait.For(10*time.Second, func() bool {
			res := d.clone(e, e.key, rec)
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			got = res.StatusCode
			return got == d.made
		}) {
			t.Fatalf("%s: a clone is still %d after the holding request ended", d.name, got)
		}
	}
}

// TestCloneRateLimit: a clone counts against the account's requests per
// minute as speech does, on every door: past the limit it is a 429 in
// the door's shape with Retry-After, and speech after a clone is counted
// after it.
func TestCloneRateLimit(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := pocketEnvWith(t, pocketVoices(t), envOptions{limits: store.Limits{RequestsPerMinute: 1}})
	rec := recordingToClone()
	status(t, cloneDoors[0].clone(e, e.key, rec), cloneDoors[0].made)
	apiError(t, quickSpeech(e, e.key), http.StatusTooManyRequests, wire.CodeRateLimit)
	for _, d := range cloneDoors {
		d.refusedClone(t, d.clone(e, e.key, rec), http.StatusTooManyRequests, wire.CodeRateLimit)
	}
}

// TestCloneVoiceLimit: an account holding MaxVoicesPerAccount clones is
// refused one more on every door with 400 voice_limit_reached in the
// door's shape, before the recording is encoded (the refusals do not
// count against the rate limit); another account is not, and a clone
// deleted makes room.
func TestCloneVoiceLimit(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	// 2 clones, 3 refusals, 1 more clone: 3 counted requests.
	e := pocketEnvWith(t, pocketVoices(t), envOptions{maxVoices: 2, limits: store.Limits{RequestsPerMinute: 3}})
	rec := recordingToClone()
	var first struct {
		ID string `json:"id"`
	}
	res := cloneDoors[0].clone(e, e.key, rec)
	if err := json.NewDecoder(res.Body).Decode(&first); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("the first clone: %d %v", res.StatusCode, err)
	}
	res.Body.Close()
	status(t, cloneDoors[1].clone(e, e.key, rec), cloneDoors[1].made)
	for _, d := range cloneDoors {
		d.refusedClone(t, d.clone(e, e.key, rec), http.StatusBadRequest, wire.CodeVoiceLimit)
	}
	status(t, cloneDoors[2].clone(e, e.otherKey, rec), cloneDoors[2].made)
	status(t, e.do("DELETE", "/v1/voices/"+first.ID, e.key, "", nil), http.StatusOK)
	status(t, cloneDoors[2].clone(e, e.key, rec), cloneDoors[2].made)
}
