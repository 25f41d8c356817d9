package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestVendorSampling: the vendor doors' clones take voxkit's sampling
// settings (temperature, steps, seed), so a clone with a seed says a
// text the same way every time, and ElevenLabs' request seed (and
// voxkit's on POST /v1/audio/speech) does the same for one request; a bad setting is a 400 in the door's shape, a
// seed out of ElevenLabs' range a 422.
func TestVendorSampling(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	rec := recordingToClone()
	const text = "Say it the same way every time."
	eleven, cartesia := testserver.CloneDoors[1], testserver.CloneDoors[2]
	elevenClone := func(fields map[string]string) string {
		t.Helper()
		res := eleven.CloneWith(e, e.Key, fields, rec)
		defer res.Body.Close()
		var v struct {
			ID string `json:"voice_id"`
		}
		if err := json.NewDecoder(res.Body).Decode(&v); err != nil || res.StatusCode != 200 {
			t.Fatalf("voices/add %v: %d %v", fields, res.StatusCode, err)
		}
		return v.ID
	}
	elevenSay := func(voice, extra string) []byte {
		t.Helper()
		res, b := e.ElevenDo("POST", "/v1/text-to-speech/"+voice+"?output_format=pcm_24000", e.Key, `{"text":"`+text+`"`+extra+`}`)
		if res.StatusCode != 200 || len(b) < 24000 {
			t.Fatalf("speaking %s%s: %d %.200s", voice, extra, res.StatusCode, b)
		}
		return b
	}
	seeded := elevenClone(map[string]string{"name": "seeded", "temperature": "0.7", "steps": "3", "seed": "9"})
	if a, b := elevenSay(seeded, ""), elevenSay(seeded, ""); !bytes.Equal(a, b) {
		t.Error("ElevenLabs: a clone with a seed spoke a text two ways")
	}
	free := elevenClone(map[string]string{"name": "free", "steps": "3"})
	a, b := elevenSay(free, `,"seed":5`), elevenSay(free, `,"seed":5`)
	if !bytes.Equal(a, b) {
		t.Error("ElevenLabs: the request seed 5 spoke a text two ways")
	}
	if c := elevenSay(free, `,"seed":6`); bytes.Equal(a, c) {
		t.Error("ElevenLabs: seeds 5 and 6 spoke alike")
	}
	// The seed of POST /v1/audio/speech, a voxkit extension, likewise.
	openaiSay := func(extra string) []byte {
		t.Helper()
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
			strings.NewReader(`{"voice":"`+free+`","input":"`+text+`","response_format":"pcm"`+extra+`}`))
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || len(b) < 24000 {
			t.Fatalf("speaking %s%s: %d %.200s", free, extra, res.StatusCode, b)
		}
		return b
	}
	if a, b := openaiSay(`,"seed":5`), openaiSay(`,"seed":5`); !bytes.Equal(a, b) {
		t.Error("OpenAI: the request seed 5 spoke a text two ways")
	}
	if res, body := e.ElevenDo("POST", "/v1/text-to-speech/"+free, e.Key, `{"text":"Hi.","seed":-1}`); res.StatusCode != 422 || eleven.Code(body) != "invalid_request" {
		t.Errorf("seed -1: %d %s", res.StatusCode, body)
	}

	res := cartesia.CloneWith(e, e.Key, map[string]string{"name": "seeded", "language": "en", "temperature": "0.7", "steps": "3", "seed": "9"}, rec)
	var v struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil || res.StatusCode != 200 {
		t.Fatalf("voices/clone: %d %v", res.StatusCode, err)
	}
	res.Body.Close()
	cartesiaSay := func() []byte {
		t.Helper()
		res, b := e.CartesiaDo("POST", "/tts/bytes", e.Key, `{"transcript":"`+text+`","voice":{"mode":"id","id":"`+v.ID+`"},`+
			`"output_format":{"container":"raw","encoding":"pcm_s16le","sample_rate":24000}}`)
		if res.StatusCode != 200 || len(b) < 24000 {
			t.Fatalf("Cartesia bytes: %d %.200s", res.StatusCode, b)
		}
		return b
	}
	if a, b := cartesiaSay(), cartesiaSay(); !bytes.Equal(a, b) {
		t.Error("Cartesia: a clone with a seed spoke a text two ways")
	}

	for _, d := range []testserver.CloneDoor{eleven, cartesia} {
		d.RefusedClone(t, d.CloneWith(e, e.Key, map[string]string{"name": "x", "temperature": "hot"}, rec), http.StatusBadRequest, "invalid_value")
	}
}
