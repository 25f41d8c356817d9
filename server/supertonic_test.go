package server_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/supertonictest"
	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestSupertonicOnEveryDoor: a Supertonic voice, in its model's first
// language and in another, is listed in /v1/models and speaks on every
// door. With a seed (/v1, voxkit's socket, ElevenLabs) each door gives
// /v1's samples; Cartesia and Wyoming, which take no seed, speak as long
// (the duration comes from the text, the noise from the seed). Wyoming's
// describe lists the model with its voices as speakers in its first
// language, and each voice in each other language on its own.
func TestSupertonicOnEveryDoor(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.SupertonicEnv(t)
	const text = "Hello there, how are you today?"
	m := supertonictest.Model
	models := e.Models(e.Key)
	ws := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, ws) // ready
	wyoming := testserver.DialWyoming(t, testserver.StartWyoming(t, e))
	for _, voice := range []string{m + ":F1", m + ":M2:de", m + ":F3:ko"} {
		if _, ok := models[voice]; !ok {
			t.Errorf("/v1/models has no %s", voice)
		}
		body, _ := json.Marshal(map[string]any{"voice": voice, "input": text, "response_format": "pcm", "seed": 7})
		res, want := e.SpeechRequest(e.Key, string(body))
		if res.StatusCode != 200 || len(want) < 24000 || bytes.Count(want, []byte{0}) > len(want)/2 {
			t.Fatalf("%s over /v1: %d, %d bytes %.80q", voice, res.StatusCode, len(want), want)
		}
		seeded := map[string][]byte{}
		_, seeded["/v1 again"] = e.SpeechRequest(e.Key, string(body))
		_, seeded["ElevenLabs"] = e.ElevenDo("POST", "/v1/text-to-speech/"+voice+"?output_format=pcm_24000", e.Key, `{"text":"`+text+`","seed":7}`)
		testserver.SendWS(t, ws, map[string]any{"type": "speech.create", "id": voice, "voice": voice, "input": text, "response_format": "pcm", "seed": 7})
		for _, ev := range testserver.ReadContext(t, ws) {
			seeded["voxkit's socket"] = append(seeded["voxkit's socket"], ev.Audio...)
		}
		for door, got := range seeded {
			if !bytes.Equal(got, want) {
				t.Errorf("%s over %s: %d bytes, not /v1's %d", voice, door, len(got), len(want))
			}
		}
		cartesia, _ := json.Marshal(map[string]any{"model_id": "sonic-3", "transcript": text, "voice": map[string]any{"mode": "id", "id": voice},
			"output_format": map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 24000}})
		if res, got := e.CartesiaDo("POST", "/tts/bytes", e.Key, string(cartesia)); res.StatusCode != 200 || len(got) != len(want) {
			t.Errorf("%s over Cartesia: %d, %d bytes, /v1 %d", voice, res.StatusCode, len(got), len(want))
		}
		wyoming.Send("synthesize", map[string]any{"text": text, "voice": map[string]any{"name": voice}})
		if pcm, rate, _ := wyoming.Audio(); !testserver.SameLength(pcm, rate, want) {
			t.Errorf("%s over Wyoming: %d bytes at %d Hz, not as long as /v1's", voice, len(pcm), rate)
		}
	}
	wyoming.Send("describe", nil)
	info := wyoming.Next()
	var tts []struct {
		Voices []struct {
			Name      string
			Languages []string
			Speakers  []struct{ Name string }
		}
	}
	json.Unmarshal(info.Data["tts"], &tts)
	langs := map[string][]string{}
	speakers := map[string]int{}
	for _, p := range tts {
		for _, v := range p.Voices {
			langs[v.Name], speakers[v.Name] = v.Languages, len(v.Speakers)
		}
	}
	if !slices.Equal(langs[m], []string{"en"}) || speakers[m] != 10 {
		t.Errorf("describe: %s in %v with %d speakers, want en and 10", m, langs[m], speakers[m])
	}
	for _, lang := range []string{"de", "ko", "ja", "vi"} {
		if v := m + ":F1:" + lang; !slices.Equal(langs[v], []string{lang}) {
			t.Errorf("describe: %s in %v", v, langs[v])
		}
	}
}
