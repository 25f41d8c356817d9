package elevenlabs_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestElevenLabsCloneFromRecording: ElevenLabs' instant voice cloning
// (POST /v1/voices/add) makes the account's voice of the first of its
// files; it is listed as cloned, speaks, is the account's alone, and goes
// with DELETE; what cannot be cloned is a 400 in ElevenLabs' shape.
func TestElevenLabsCloneFromRecording(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	good := pockettest.WAV(pockettest.Recording(2, 200), pockettest.SampleRate)
	add := func(key string, files ...[]byte) (int, []byte) {
		return e.VendorForm("/elevenlabs/v1/voices/add", map[string]string{"name": "My voice", "description": "me, reading",
			"labels": `{"accent":"none"}`}, "files", files, "xi-api-key", key)
	}
	// The second file is not a recording: only the first is used.
	st, b := add(e.Key, good, []byte("not audio"))
	var made struct {
		VoiceID              string `json:"voice_id"`
		RequiresVerification *bool  `json:"requires_verification"`
	}
	if st != 200 || json.Unmarshal(b, &made) != nil || made.VoiceID == "" || made.RequiresVerification == nil || *made.RequiresVerification {
		t.Fatalf("voices/add: %d %s", st, b)
	}

	listed := func(key string) map[string]string {
		res, b := e.ElevenDo("GET", "/v1/voices", key, "")
		var l struct {
			Voices []struct {
				ID       string `json:"voice_id"`
				Name     string `json:"name"`
				Category string `json:"category"`
			} `json:"voices"`
		}
		if res.StatusCode != 200 || json.Unmarshal(b, &l) != nil {
			t.Fatalf("voices: %d %s", res.StatusCode, b)
		}
		m := map[string]string{}
		for _, v := range l.Voices {
			m[v.ID] = v.Category + " " + v.Name
		}
		return m
	}
	if got := listed(e.Key)[made.VoiceID]; got != "cloned My voice" {
		t.Errorf("listed as %q, want cloned My voice", got)
	}
	speak := func(key string) (int, []byte) {
		res, b := e.ElevenDo("POST", "/v1/text-to-speech/"+made.VoiceID+"?output_format=pcm_24000", key, `{"text":"Hello there, how are you today?"}`)
		return res.StatusCode, b
	}
	if st, pcm := speak(e.Key); st != 200 || len(pcm) < 24000 {
		t.Fatalf("speaking the clone: %d, %d bytes", st, len(pcm))
	}

	// Another account neither lists, uses nor deletes it.
	if _, ok := listed(e.OtherKey)[made.VoiceID]; ok {
		t.Error("the other account lists the clone")
	}
	if st, b := speak(e.OtherKey); st != 404 || !bytes.Contains(b, []byte(`"voice_not_found"`)) {
		t.Errorf("the other account speaking it: %d %s", st, b)
	}
	if res, b := e.ElevenDo("DELETE", "/v1/voices/"+made.VoiceID, e.OtherKey, ""); res.StatusCode != 404 || !bytes.Contains(b, []byte(`"voice_not_found"`)) {
		t.Errorf("the other account deleting it: %d %s", res.StatusCode, b)
	}

	// Errors, in ElevenLabs' shape.
	for _, c := range e.CloneFailures(good, false) {
		t.Run(c.Name, func(t *testing.T) {
			st, b := add(c.Key, c.Files...)
			var body struct {
				Detail struct {
					Status  string `json:"status"`
					Message string `json:"message"`
				} `json:"detail"`
			}
			if st != c.Status || json.Unmarshal(b, &body) != nil || body.Detail.Status != c.Code || body.Detail.Message == "" {
				t.Errorf("%d %s, want %d with status %s", st, b, c.Status, c.Code)
			}
		})
	}

	if res, b := e.ElevenDo("DELETE", "/v1/voices/"+made.VoiceID, e.Key, ""); res.StatusCode != 200 {
		t.Fatalf("delete: %d %s", res.StatusCode, b)
	}
	if st, _ := speak(e.Key); st != 404 {
		t.Errorf("the deleted clone: %d", st)
	}
	if _, ok := listed(e.Key)[made.VoiceID]; ok {
		t.Error("the deleted clone is listed")
	}
}
