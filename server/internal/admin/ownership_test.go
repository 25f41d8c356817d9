package admin_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/voices"
)

// A clone can never shadow or remove a global voice. An account's clone
// "later" exists when a rescan brings a global voice "later": everyone,
// the owner included, gets the global voice, and the owner's DELETE
// removes only the clone.
func TestCloneCannotShadowGlobal(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"later","name":"mine","base_voice":"en-gb"}`, nil); st != 201 {
		t.Fatalf("clone: %d", st)
	}
	// What a rescan does when a Piper voice of that name appears.
	if err := e.Catalog.Add(voices.Voice{ID: "later", Engine: "fake", EngineVoice: "fake"}); err != nil {
		t.Fatalf("the global voice could not be added: %v", err)
	}
	for _, key := range []string{e.Key, e.OtherKey} {
		if owner := e.Models(key)["later"]; owner != wire.OwnedByService {
			t.Errorf("models: later is owned by %q, want the global voice", owner)
		}
	}
	if st := e.Call("DELETE", "/v1/voices/later", e.Key, "", nil); st != 200 {
		t.Errorf("the owner deleting its clone: %d", st)
	}
	for _, key := range []string{e.Key, e.OtherKey} {
		if st, _ := e.Speak(key, "later"); st != 200 {
			t.Errorf("speech with the global voice after the delete: %d", st)
		}
		if _, ok := e.Models(key)["later"]; !ok {
			t.Error("the global voice went with the clone")
		}
	}
	// A global id cannot be taken, and another account's id is free.
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"later","name":"again","base_voice":"en-gb"}`, nil); st != 400 {
		t.Errorf("a clone of the global id: %d, want 400", st)
	}
}

// Clone ids are per account: two accounts each own a clone "shared",
// each hears its own, and one's DELETE leaves the other's. A POST of an id
// another account owns answers as for a free id.
func TestCloneIDsPerAccount(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, c := range []struct{ key, base string }{{e.OtherKey, "en-us"}, {e.Key, "en-gb"}} {
		if st := e.Call("POST", "/v1/voices", c.key, `{"id":"shared","name":"s","base_voice":"`+c.base+`"}`, nil); st != 201 {
			t.Fatalf("clone shared on %s: %d", c.base, st)
		}
	}
	var v struct {
		BaseVoice string `json:"base_voice"`
	}
	if st := e.Call("GET", "/v1/voices/shared", e.Key, "", &v); st != 200 || v.BaseVoice != "en-gb" {
		t.Errorf("local's clone: %d %+v", st, v)
	}
	if st := e.Call("DELETE", "/v1/voices/shared", e.Key, "", nil); st != 200 {
		t.Fatalf("delete: %d", st)
	}
	if st := e.Call("GET", "/v1/voices/shared", e.OtherKey, "", &v); st != 200 || v.BaseVoice != "en-us" {
		t.Errorf("other's clone after local's delete: %d %+v", st, v)
	}
	if st, _ := e.Speak(e.OtherKey, "shared"); st != 200 {
		t.Errorf("other's speech: %d", st)
	}
	if st, _ := e.Speak(e.Key, "shared"); st != 404 {
		t.Errorf("local's deleted clone still speaks: %d", st)
	}
}

// Parallel creations and deletions of one id leave the store and the
// catalog agreeing: after every round, the clone is in the store exactly
// when /v1/models lists it, GET finds it and speech uses it.
func TestCloneStoreAndCatalogAgree(t *testing.T) {
	testserver.Long(t)
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.New(t, testserver.Options{})
	ctx := context.Background()
	for round := range 300 {
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				if i%2 == 0 {
					e.Call("POST", "/v1/voices", e.Key, `{"id":"flicker","name":"f","base_voice":"en-us"}`, nil)
				} else {
					e.Call("DELETE", "/v1/voices/flicker", e.Key, "", nil)
				}
			})
		}
		wg.Wait()
		_, err := e.Store.Voice(ctx, "local", "flicker")
		stored := err == nil
		_, listed := e.Models(e.Key)["flicker"]
		get := e.Call("GET", "/v1/voices/flicker", e.Key, "", nil) == 200
		_, lerr := e.Catalog.Lookup("local", "flicker")
		if stored != listed || stored != get || stored != (lerr == nil) {
			t.Fatalf("round %d: in the store %v, listed %v, GET %v, catalog %v", round, stored, listed, get, lerr == nil)
		}
	}
}

// An account holds at most MaxVoicesPerAccount clones, even when the
// creations race.
func TestVoiceLimit(t *testing.T) {
	const max = 3
	e := testserver.New(t, testserver.Options{MaxVoices: max})
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for i := range 10 {
		wg.Go(func() {
			res := e.Do("POST", "/v1/voices", e.Key, "application/json",
				strings.NewReader(fmt.Sprintf(`{"id":"v%d","name":"v","base_voice":"en-us"}`, i)))
			mu.Lock()
			codes[res.StatusCode]++
			mu.Unlock()
			if res.StatusCode != 201 {
				testserver.APIError(t, res, 400, "voice_limit_reached")
			} else {
				res.Body.Close()
			}
		})
	}
	wg.Wait()
	vs, _ := e.Store.Voices(context.Background(), "local")
	if codes[201] != max || len(vs) != max {
		t.Errorf("statuses %v, %d stored; want %d made", codes, len(vs), max)
	}
}
