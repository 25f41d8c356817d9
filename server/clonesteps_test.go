package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// TestCloneStepsBounded: a clone's flow steps, which set the cost of all
// its speech, are at most wire.MaxCloneSteps (10) on every door that
// clones: 11 or 100 is a 400 invalid_value naming steps in the door's
// shape; 10 is made.
func TestCloneStepsBounded(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	gateway := e.KeyOf(store.ScopeGateway)
	rec := recordingToClone()
	for _, d := range append(testserver.CloneDoors, sampleDoor) {
		key := e.Key
		if d.Path == sampleDoor.Path {
			key = gateway
		}
		for _, steps := range []string{"11", "100"} {
			res := d.CloneWith(e, key, map[string]string{"name": "Costly", "steps": steps}, rec)
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest || d.Code(b) != wire.CodeInvalidValue || !strings.Contains(string(b), "steps") {
				t.Errorf("%s: steps %s is %d %.200q, want 400 %s naming steps", d.Name, steps, res.StatusCode, b, wire.CodeInvalidValue)
			}
		}
	}
	testserver.Status(t, testserver.CloneDoors[0].CloneWith(e, e.Key, map[string]string{"name": "Ten", "steps": "10"}, rec), testserver.CloneDoors[0].Made)
}
