package cartesia_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestCartesiaCloneFromRecording: Cartesia's POST /voices/clone makes the
// account's voice of the clip and answers with it; it is listed as the
// caller's, speaks, is the account's alone, and goes with DELETE; errors
// are in Cartesia's shape.
func TestCartesiaCloneFromRecording(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	good := pockettest.WAV(pockettest.Recording(2, 200), pockettest.SampleRate)
	clone := func(key string, clips ...[]byte) (int, []byte) {
		return e.VendorForm("/cartesia/voices/clone", map[string]string{"name": "My voice", "language": "en", "description": "me, reading", "accent": "american"},
			"clip", clips, "X-API-Key", key, "Cartesia-Version", "2026-08-14")
	}
	st, b := clone(e.Key, good)
	var v struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		IsOwner bool   `json:"is_owner"`
	}
	if st != 200 || json.Unmarshal(b, &v) != nil || v.ID == "" || v.Name != "My voice" || !v.IsOwner {
		t.Fatalf("voices/clone: %d %s", st, b)
	}

	owned := func(key string) []string {
		res, b := e.CartesiaDo("GET", "/voices?limit=100", key, "")
		var l struct {
			Data []struct {
				ID      string `json:"id"`
				IsOwner bool   `json:"is_owner"`
			} `json:"data"`
		}
		if res.StatusCode != 200 || json.Unmarshal(b, &l) != nil {
			t.Fatalf("voices: %d %s", res.StatusCode, b)
		}
		var ids []string
		for _, x := range l.Data {
			if x.IsOwner {
				ids = append(ids, x.ID)
			}
		}
		return ids
	}
	if got := owned(e.Key); !slices.Contains(got, v.ID) {
		t.Errorf("owned voices: %v, without %s", got, v.ID)
	}
	speak := func(key string) (int, []byte) {
		body, _ := json.Marshal(map[string]any{"model_id": "sonic-3", "transcript": "Hello there, how are you today?",
			"voice": map[string]any{"mode": "id", "id": v.ID}, "output_format": map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 24000}})
		res, b := e.CartesiaDo("POST", "/tts/bytes", key, string(body))
		return res.StatusCode, b
	}
	if st, pcm := speak(e.Key); st != 200 || len(pcm) < 24000 {
		t.Fatalf("speaking the clone: %d, %d bytes", st, len(pcm))
	}

	// Another account neither lists, uses nor deletes it.
	if got := owned(e.OtherKey); slices.Contains(got, v.ID) {
		t.Errorf("the other account owns %v", got)
	}
	if st, b := speak(e.OtherKey); st != 404 {
		t.Errorf("the other account speaking it: %d %s", st, b)
	}
	if res, b := e.CartesiaDo("DELETE", "/voices/"+v.ID, e.OtherKey, ""); res.StatusCode != 404 || !bytes.Contains(b, []byte(`"error_code":"voice_not_found"`)) {
		t.Errorf("the other account deleting it: %d %s", res.StatusCode, b)
	}

	for _, c := range e.CloneFailures(good, true) {
		t.Run(c.Name, func(t *testing.T) {
			st, b := clone(c.Key, c.Files...)
			var body struct {
				Status  int    `json:"status_code"`
				Code    string `json:"error_code"`
				Message string `json:"message"`
			}
			if st != c.Status || json.Unmarshal(b, &body) != nil || body.Status != c.Status || body.Code != c.Code || body.Message == "" {
				t.Errorf("%d %s, want %d with error_code %s", st, b, c.Status, c.Code)
			}
		})
	}

	if res, b := e.CartesiaDo("DELETE", "/voices/"+v.ID, e.Key, ""); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, b)
	}
	if st, _ := speak(e.Key); st != 404 {
		t.Errorf("the deleted clone: %d", st)
	}
	if got := owned(e.Key); slices.Contains(got, v.ID) {
		t.Errorf("owned after the delete: %v", got)
	}
}
