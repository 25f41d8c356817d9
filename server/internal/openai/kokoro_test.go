package openai_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/tts"
)

// kokoroEnv is the test server with the generated Kokoro fixtures as the
// engine "onnx" (packs af_heart, bf_emma, ff_siwis and the Japanese
// jf_alpha, among others).
func kokoroEnv(t *testing.T) *testserver.Env {
	t.Helper()
	k := onnxtest.Load(t, onnx.Options{Strict: true, VoicesDir: filepath.Join(testserver.Root(), "engine", "onnx", "testdata", "kokoro")})
	return testserver.New(t, testserver.Options{Synth: func(o *tts.Options) {
		o.Engines["onnx"] = k
		if err := o.Voices.AddEngine(context.Background(), "onnx", k, time.Now()); err != nil {
			t.Fatal(err)
		}
	}})
}

// A blend of Kokoro packs is a voice id everywhere one is taken: the
// request's voice, a <|voice:…|> tag and a clone's base_voice. A Japanese
// pack is refused with a 400 that says why.
func TestKokoroBlendsOverHTTP(t *testing.T) {
	t.Parallel() // its own server, no timing bound
	e := kokoroEnv(t)
	const blend = "af_heart(2)+bf_emma(1)"
	st, mixed := e.Speak(e.Key, blend)
	_, heart := e.Speak(e.Key, "af_heart")
	if st != 200 || len(mixed) == 0 || bytes.Equal(mixed, heart) {
		t.Errorf("voice %s: %d, %d bytes (af_heart alone: %d)", blend, st, len(mixed), len(heart))
	}

	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
		strings.NewReader(`{"voice":"en-us","input":"Hello. <|voice:`+blend+`|>And now the blend.","response_format":"pcm"}`))
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("x-ignored-tags") != "" {
		t.Errorf("<|voice:%s|>: %d, ignored %q", blend, res.StatusCode, res.Header.Get("x-ignored-tags"))
	}

	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"warm","name":"Warm","base_voice":"`+blend+`","speed":1.5}`, nil); st != 201 {
		t.Fatalf("clone of the blend: %d", st)
	}
	if st, pcm := e.Speak(e.Key, "warm"); st != 200 || len(pcm) == 0 || len(pcm) >= len(mixed) {
		t.Errorf("the clone at speed 1.5: %d, %d bytes against the blend's %d", st, len(pcm), len(mixed))
	}

	res = e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
		strings.NewReader(`{"voice":"jf_alpha","input":"Hello.","response_format":"pcm"}`))
	if got := testserver.APIError(t, res, 400, "invalid_value"); got.Param != "voice" || !strings.Contains(got.Message, "Japanese") {
		t.Errorf("jf_alpha: %+v", got)
	}
}
