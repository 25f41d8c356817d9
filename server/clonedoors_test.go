package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/audiotest"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/pockettest"
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

// TestCloneFromFLAC: a FLAC recording clones the voice the WAV of the
// same samples does (at temperature 0 they speak alike, sample for
// sample); a FLAC cut short is a 400 unsupported_audio.
func TestCloneFromFLAC(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	samples := pockettest.Recording(2, 170)
	flac := audiotest.Encoded(t, encode.Format{Name: "flac", SampleRate: pockettest.SampleRate}, dsp.AppendInt16(nil, samples))
	clone := func(id string, audio []byte) (int, []byte) {
		res := e.Upload(e.Key, map[string]string{"id": id, "name": id, "temperature": "0", "steps": "3"}, audio)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	if st, b := clone("from-wav", pockettest.WAV(samples, pockettest.SampleRate)); st != 201 {
		t.Fatalf("from a WAV: %d %s", st, b)
	}
	if st, b := clone("from-flac", flac); st != 201 {
		t.Fatalf("from a FLAC: %d %s", st, b)
	}
	_, fromWAV := e.Speak(e.Key, "from-wav")
	st, fromFLAC := e.Speak(e.Key, "from-flac")
	if st != 200 || len(fromFLAC) == 0 || !bytes.Equal(fromFLAC, fromWAV) {
		t.Errorf("the FLAC's clone: %d, %d bytes, the same as the WAV's %d bytes: %v", st, len(fromFLAC), len(fromWAV), bytes.Equal(fromFLAC, fromWAV))
	}
	if st, b := clone("cut", flac[:len(flac)/2]); st != 400 || !bytes.Contains(b, []byte(`"unsupported_audio"`)) {
		t.Errorf("a FLAC cut short: %d %s", st, b)
	}
}
