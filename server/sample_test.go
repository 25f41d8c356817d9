package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// sampleSpeech is a speech request in the voice of sample, carrying it
// unless bare.
func sampleSpeech(voice string, sample []byte) string {
	b, _ := json.Marshal(wire.Speech{Voice: voice, Input: "Hello there, how are you today?", Format: "pcm", Normalize: true, VoiceSample: sample})
	return string(b)
}

// TestSamplesFromGateway: what a worker does with the samples of voices
// cloned from recordings that a gateway sends. Only a gateway key may
// have a recording encoded or send a sample; a sample speaks as the clone
// of the same recording does, and is held for the next requests; one the
// worker does not hold is asked for (409); a malformed one, or one of a
// shape the model does not take, is a 400.
func TestSamplesFromGateway(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	gateway, speech := e.KeyOf(store.ScopeGateway), e.KeyOf(store.ScopeSpeech)
	recording := pockettest.WAV(pockettest.Recording(2, 150), pockettest.SampleRate)

	testserver.APIError(t, e.EncodeSample(e.Key, recording), 403, wire.CodeInsufficientScope)
	res := e.EncodeSample(gateway, recording)
	sample, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("encoding: %d %s %.200q", res.StatusCode, res.Header.Get("Content-Type"), sample)
	}
	if vs, _ := e.Store.Voices(t.Context(), ""); len(vs) != 0 {
		t.Errorf("encoding stored %d voices", len(vs))
	}
	// The clone of the same recording, for comparison.
	up := e.Upload(e.Key, map[string]string{"id": "rec", "name": "Rec", "temperature": "0"}, recording)
	up.Body.Close()
	st, want := e.Speak(e.Key, "rec")
	if up.StatusCode != 201 || st != 200 {
		t.Fatalf("the clone: %d, speaking it %d", up.StatusCode, st)
	}

	voice := wire.SampleVoice(sample)
	speak := func(key, body string) (*http.Response, []byte) {
		t.Helper()
		res := e.Do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(body))
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(b))
		return res, b
	}
	testserver.APIError(t, e.Do("POST", "/v1/audio/speech", gateway, "application/json", strings.NewReader(sampleSpeech(voice, nil))), 409, wire.CodeSampleNeeded)
	if res, got := speak(gateway, sampleSpeech(voice, sample)); res.StatusCode != 200 || !bytes.Equal(got, want) {
		t.Errorf("with the sample: %d, %d bytes, the clone's audio %v", res.StatusCode, len(got), bytes.Equal(got, want))
	}
	if res, got := speak(gateway, sampleSpeech(voice, nil)); res.StatusCode != 200 || !bytes.Equal(got, want) {
		t.Errorf("held, without the sample: %d, %d bytes, the clone's audio %v", res.StatusCode, len(got), bytes.Equal(got, want))
	}
	// Other keys: a speech or admin key may not send a sample, and a
	// sample's voice is unknown to them.
	for _, key := range []string{speech, e.Key} {
		testserver.APIError(t, e.Do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(sampleSpeech(voice, sample))), 403, wire.CodeInsufficientScope)
		testserver.APIError(t, e.Do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(sampleSpeech(voice, nil))), 404, wire.CodeVoiceNotFound)
	}

	// Samples that cannot be spoken.
	var v pocket.Voice
	if err := v.UnmarshalBinary(sample); err != nil {
		t.Fatal(err)
	}
	marshal := func(v pocket.Voice) []byte {
		b, err := v.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	wrongDim, otherModel := v, v
	notNumbers := slices.Clone(sample) // its last latent NaN
	binary.LittleEndian.PutUint32(notNumbers[len(notNumbers)-4:], math.Float32bits(float32(math.NaN())))
	wrongDim.Dim, wrongDim.Frames, wrongDim.Latents = 7, 3, make([]float32, 21)
	otherModel.Model = "no-such-model"
	for name, bad := range map[string][]byte{
		"not a sample":          []byte("these bytes are no voice"),
		"latents cut short":     sample[:len(sample)-4],
		"a dimension it lacks":  marshal(wrongDim),
		"latents not numbers":   notNumbers,
		"an empty header":       []byte("voxkit-pocket-voice 1\n{}\n"),
		"frames but no latents": []byte(`voxkit-pocket-voice 1` + "\n" + `{"model":"` + pockettest.Model + `","frames":1000000000,"dim":1024}` + "\n"),
	} {
		t.Run(name, func(t *testing.T) {
			testserver.APIError(t, e.Do("POST", "/v1/audio/speech", gateway, "application/json", strings.NewReader(sampleSpeech(wire.SampleVoice(bad), bad))), 400, wire.CodeBadSample)
		})
	}
	// A sample of a model the worker lacks is held, as a stored clone of
	// a model gone is kept (engine/pocket), and refused as it is spoken.
	lacking := marshal(otherModel)
	if refused := testserver.APIError(t, e.Do("POST", "/v1/audio/speech", gateway, "application/json", strings.NewReader(sampleSpeech(wire.SampleVoice(lacking), lacking))),
		400, wire.CodeInvalidValue); !strings.Contains(refused.Message, "no-such-model is not loaded") {
		t.Errorf("a sample of a model the worker lacks: %q", refused.Message)
	}
	other := base64.StdEncoding.EncodeToString([]byte("another sample"))
	mismatch := `{"voice":"` + voice + `","input":"Hi.","voice_sample":"` + other + `"}`
	testserver.APIError(t, e.Do("POST", "/v1/audio/speech", gateway, "application/json", strings.NewReader(mismatch)), 400, wire.CodeBadSample)
	notSample := `{"voice":"rec","input":"Hi.","voice_sample":"` + other + `"}`
	testserver.APIError(t, e.Do("POST", "/v1/audio/speech", gateway, "application/json", strings.NewReader(notSample)), 400, wire.CodeInvalidValue)
}
