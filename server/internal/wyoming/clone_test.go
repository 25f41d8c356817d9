package wyoming_test

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"testing"

	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestWyomingRecordingClone: the Wyoming account's clone from a recording
// is listed by describe with its name and speaks over Wyoming as over
// HTTP; another account's Wyoming neither lists nor speaks it, and a
// deleted clone is gone from describe.
func TestWyomingRecordingClone(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	res := e.Upload(e.Key, map[string]string{"name": "My voice", "temperature": "0", "steps": "3"},
		pockettest.WAV(pockettest.Recording(2, 200), pockettest.SampleRate))
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var v struct {
		ID string `json:"id"`
	}
	if res.StatusCode != 201 || json.Unmarshal(b, &v) != nil {
		t.Fatalf("upload: %d %s", res.StatusCode, b)
	}
	st, httpPCM := e.Speak(e.Key, v.ID)
	if st != 200 {
		t.Fatalf("speaking over HTTP: %d", st)
	}

	c := testserver.DialWyoming(t, testserver.StartWyomingAs(t, e, "local"))
	// Home Assistant offers a voice under the languages describe gives it:
	// the clone speaks its model's.
	if got, ok := c.Voices()[v.ID]; !ok || got.Description != "My voice" || !slices.Equal(got.Languages, []string{pocket.Language}) {
		t.Errorf("describe lists the clone as %+v (listed %v), want My voice in %s", got, ok, pocket.Language)
	}
	c.Send("synthesize", map[string]any{"text": "Hello there, how are you today?", "voice": map[string]any{"name": v.ID}})
	pcm, rate, _ := c.Audio()
	if rate != 24000 || !bytes.Equal(pcm, httpPCM) {
		t.Errorf("over Wyoming: %d bytes at %d Hz, the same as HTTP's %d bytes: %v", len(pcm), rate, len(httpPCM), bytes.Equal(pcm, httpPCM))
	}

	other := testserver.DialWyoming(t, testserver.StartWyomingAs(t, e, "other"))
	if _, ok := other.Voices()[v.ID]; ok {
		t.Error("the other account's Wyoming lists the clone")
	}
	other.Send("synthesize", map[string]any{"text": "Hello.", "voice": map[string]any{"name": v.ID}})
	if ev := other.Next(); ev.Type != "error" {
		t.Errorf("the other account's Wyoming speaking the clone: %s %v", ev.Type, ev.Data)
	}

	if st := e.Call("DELETE", "/v1/voices/"+v.ID, e.Key, "", nil); st != 200 {
		t.Fatalf("delete: %d", st)
	}
	if _, ok := c.Voices()[v.ID]; ok {
		t.Error("describe lists the deleted clone")
	}
}
