package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

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
	e := testserver.PocketEnvWith(t, testserver.PocketVoices(t), testserver.Options{Limits: store.Limits{Concurrent: 1}})
	rec := recordingToClone()
	for _, d := range testserver.CloneDoors {
		// Its body unread, the slow request holds the account's slot.
		hold := slowSpeech(t, e, e.Key, 250)
		if hold.StatusCode != 200 {
			t.Fatalf("the holding request: %d", hold.StatusCode)
		}
		d.RefusedClone(t, d.Clone(e, e.Key, rec), http.StatusTooManyRequests, wire.CodeRateLimit)
		testserver.Status(t, d.Clone(e, e.OtherKey, rec), d.Made)
		hold.Body.Close()
		got := 0
		if !wait.For(10*time.Second, func() bool {
			res := d.Clone(e, e.Key, rec)
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			got = res.StatusCode
			return got == d.Made
		}) {
			t.Fatalf("%s: a clone is still %d after the holding request ended", d.Name, got)
		}
	}
}

// TestCloneRateLimit: a clone counts against the account's requests per
// minute as speech does, on every door: past the limit it is a 429 in
// the door's shape with Retry-After, and speech after a clone is counted
// after it.
func TestCloneRateLimit(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnvWith(t, testserver.PocketVoices(t), testserver.Options{Limits: store.Limits{RequestsPerMinute: 1}})
	rec := recordingToClone()
	testserver.Status(t, testserver.CloneDoors[0].Clone(e, e.Key, rec), testserver.CloneDoors[0].Made)
	testserver.APIError(t, quickSpeech(e, e.Key), http.StatusTooManyRequests, wire.CodeRateLimit)
	for _, d := range testserver.CloneDoors {
		d.RefusedClone(t, d.Clone(e, e.Key, rec), http.StatusTooManyRequests, wire.CodeRateLimit)
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
	e := testserver.PocketEnvWith(t, testserver.PocketVoices(t), testserver.Options{MaxVoices: 2, Limits: store.Limits{RequestsPerMinute: 3}})
	rec := recordingToClone()
	var first struct {
		ID string `json:"id"`
	}
	res := testserver.CloneDoors[0].Clone(e, e.Key, rec)
	if err := json.NewDecoder(res.Body).Decode(&first); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("the first clone: %d %v", res.StatusCode, err)
	}
	res.Body.Close()
	testserver.Status(t, testserver.CloneDoors[1].Clone(e, e.Key, rec), testserver.CloneDoors[1].Made)
	for _, d := range testserver.CloneDoors {
		d.RefusedClone(t, d.Clone(e, e.Key, rec), http.StatusBadRequest, wire.CodeVoiceLimit)
	}
	testserver.Status(t, testserver.CloneDoors[2].Clone(e, e.OtherKey, rec), testserver.CloneDoors[2].Made)
	testserver.Status(t, e.Do("DELETE", "/v1/voices/"+first.ID, e.Key, "", nil), http.StatusOK)
	testserver.Status(t, testserver.CloneDoors[2].Clone(e, e.Key, rec), testserver.CloneDoors[2].Made)
}
