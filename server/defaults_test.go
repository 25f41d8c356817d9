package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/servertest"

	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// server.New with nothing but a Synthesizer and a Store answers the
// OpenAI voice names and takes the input limit of the Synthesizer.
func TestServerDefaults(t *testing.T) {
	e, key, synth := defaultServer(t)
	for _, voice := range server.OpenAIVoiceNames() {
		res := e.Do("POST", "/v1/audio/speech", key, "application/json",
			strings.NewReader(`{"model":"tts-1","voice":"`+voice+`","input":"Hi.","response_format":"wav"}`))
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("voice %s: %d", voice, res.StatusCode)
		}
	}
	long := strings.Repeat("a", synth.MaxInput()+1)
	res := e.Do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(`{"voice":"alloy","input":"`+long+`"}`))
	testserver.APIError(t, res, 400, "string_above_max_length")
}

// defaultServer is server.New with nothing but espeaktts.New and a
// store with one admin key.
func defaultServer(t *testing.T) (*testserver.Env, string, *tts.Synthesizer) {
	t.Helper()
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { synth.Close() })
	se := servertest.Start(t, servertest.Options{Synthesizer: synth, Accounts: []string{"a"}})
	ts := httptest.NewServer(se.Server)
	t.Cleanup(ts.Close)
	return &testserver.Env{T: t, TS: ts}, se.Keys["a"], synth
}

// Voice ids are found as people write them: BCP 47 tags in any case
// ("en-US", "en"), espeak-ng variants ("en-us+f3", also in a voice tag);
// an unknown voice's error suggests the closest ids.
func TestVoiceLookupAsWritten(t *testing.T) {
	e, key, _ := defaultServer(t)
	speak := func(voice, input string) *http.Response {
		return e.Do("POST", "/v1/audio/speech", key, "application/json",
			strings.NewReader(`{"voice":"`+voice+`","input":"`+input+`","response_format":"pcm"}`))
	}
	for _, voice := range []string{"en-US", "EN-us", "en", "en-GB", "fr", "en-us+f3", "en-gb+m3"} {
		res := speak(voice, "Hello.")
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("voice %s: %d", voice, res.StatusCode)
		}
	}
	res := speak("en-us", "Hello <|voice:en-us+f3|>there.")
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("x-ignored-tags") != "" {
		t.Errorf("<|voice:en-us+f3|>: %d, ignored %q", res.StatusCode, res.Header.Get("x-ignored-tags"))
	}
	got := testserver.APIError(t, speak("en-uss", "Hello."), 404, "voice_not_found")
	if !strings.Contains(got.Message, `Did you mean "en-us"`) {
		t.Errorf("unknown voice: %q, want a suggestion", got.Message)
	}
}
