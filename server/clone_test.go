package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/onnxtest"
	"github.com/voxkit/voxkit/internal/pgtest"
	"github.com/voxkit/voxkit/internal/pockettest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// pocketVoices is a voices directory with the generated PocketTTS model,
// made once per test binary and shared (engines only read it).
func pocketVoices(t *testing.T) string {
	t.Helper()
	dir, err := pockettest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// pocketEnv is the test server with a pocket engine on voicesDir as the
// engine "pocket"; dbPath, when set, is the SQLite store to open.
func pocketEnv(t *testing.T, voicesDir, dbPath string) *env {
	t.Helper()
	return pocketEnvWith(t, voicesDir, envOptions{dbPath: dbPath})
}

// pocketEnvWith is pocketEnv with the options o (whose synth it sets).
func pocketEnvWith(t *testing.T, voicesDir string, o envOptions) *env {
	t.Helper()
	pk, err := pocket.Load(context.Background(), pocket.Options{LibraryPath: onnxtest.Library(t), VoicesDir: voicesDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pk.Close() })
	o.synth = func(o *tts.Options) {
		o.Engines["pocket"] = pk
		if err := o.Voices.AddEngine(context.Background(), "pocket", pk, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return newEnv(t, o)
}

// upload sends a multipart POST /v1/voices with fields and, unless nil,
// the file audio.
func (e *env) upload(key string, fields map[string]string, audio []byte) *http.Response {
	e.t.Helper()
	return e.uploadTo("/v1/voices", key, fields, audio)
}

// uploadTo is upload to path.
func (e *env) uploadTo(path, key string, fields map[string]string, audio []byte) *http.Response {
	e.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if audio != nil {
		fw, _ := mw.CreateFormFile("audio", "me.wav")
		fw.Write(audio)
	}
	mw.Close()
	return e.do("POST", path, key, mw.FormDataContentType(), &body)
}

// TestCloneFromRecording: a WAV recording uploaded to POST /v1/voices
// becomes the account's voice: it speaks, after a restart too, only for
// its account, and goes when deleted.
func TestCloneFromRecording(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	voicesDir := pocketVoices(t)
	e := pocketEnv(t, voicesDir, "")
	// 48 kHz, 3 s: any rate is resampled.
	r, err := dsp.NewResampler(pockettest.SampleRate, 48000)
	if err != nil {
		t.Fatal(err)
	}
	wav := pockettest.WAV(r.Flush(r.Process(nil, pockettest.Recording(3, 180))), 48000)
	res := e.upload(e.key, map[string]string{"name": "My voice", "temperature": "0", "steps": "3"}, wav)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var v wire.Voice
	if res.StatusCode != 201 || json.Unmarshal(b, &v) != nil || v.Model != pockettest.Model || v.BaseVoice != "" || v.Name != "My voice" || v.ID == "" {
		t.Fatalf("upload: %d %s", res.StatusCode, b)
	}
	st, first := e.speak(e.key, v.ID)
	if st != 200 || len(first) < 2*24000 {
		t.Fatalf("speaking the clone: %d, %d bytes", st, len(first))
	}
	if _, again := e.speak(e.key, v.ID); !bytes.Equal(first, again) {
		t.Error("temperature 0 spoke otherwise the second time")
	}
	// Another account neither lists nor uses it.
	if st, _ := e.speak(e.otherKey, v.ID); st != 404 {
		t.Errorf("the other account speaking it: %d, want 404", st)
	}
	if st := e.call("GET", "/v1/voices/"+v.ID, e.otherKey, "", nil); st != 404 {
		t.Errorf("the other account reading it: %d", st)
	}
	var l wire.VoiceList
	if e.call("GET", "/v1/voices", e.key, "", &l); len(l.Data) != 1 || l.Data[0].ID != v.ID || l.Data[0].Model != pockettest.Model {
		t.Errorf("list: %+v", l)
	}
	var ml wire.ModelList
	if e.call("GET", "/v1/models", e.key, "", &ml); len(ml.CloneModels) != 1 || ml.CloneModels[0] != pockettest.Model {
		t.Errorf("models that clone: %q, want [%s]", ml.CloneModels, pockettest.Model)
	}
	// A derived voice of the clone speaks with it, faster.
	if st := e.call("POST", "/v1/voices", e.key, `{"id":"quick","name":"Quick","base_voice":"`+v.ID+`","speed":1.5}`, nil); st != 201 {
		t.Fatalf("derived voice of the clone: %d", st)
	}
	if st, pcm := e.speak(e.key, "quick"); st != 200 || len(pcm) == 0 || len(pcm) >= len(first) {
		t.Errorf("the derived voice: %d, %d bytes (the clone: %d)", st, len(pcm), len(first))
	}

	// After a restart (a new server and engine on the same database) the
	// clone speaks as before.
	e2 := pocketEnv(t, voicesDir, e.dbPath)
	if st, pcm := e2.speak(e.key, v.ID); st != 200 || !bytes.Equal(pcm, first) {
		t.Errorf("after a restart: %d, %d bytes, same audio %v", st, len(pcm), bytes.Equal(pcm, first))
	}

	if st := e.call("DELETE", "/v1/voices/"+v.ID, e.key, "", nil); st != 200 {
		t.Fatalf("delete: %d", st)
	}
	if st, _ := e.speak(e.key, v.ID); st != 404 {
		t.Errorf("deleted clone: %d", st)
	}
}

// TestCloneRecordingErrors: what cannot be cloned gets a clear 400.
func TestCloneRecordingErrors(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := pocketEnv(t, pocketVoices(t), "")
	good := pockettest.WAV(pockettest.Recording(2, 200), pockettest.SampleRate)
	for _, tc := range []struct {
		name   string
		fields map[string]string
		audio  []byte
		code   string
		param  string
	}{
		{"silence", map[string]string{"name": "x"}, pockettest.WAV(make([]float32, 48000), 24000), wire.CodeAudioSilent, "audio"},
		{"too short", map[string]string{"name": "x"}, pockettest.WAV(pockettest.Recording(0.5, 200), 24000), wire.CodeAudioTooShort, "audio"},
		{"not audio", map[string]string{"name": "x"}, []byte("OggS this is not a WAV file at all"), wire.CodeUnsupportedAudio, "audio"},
		{"no audio", map[string]string{"name": "x"}, nil, "missing_required_parameter", "audio"},
		{"no name", map[string]string{}, good, "missing_required_parameter", "name"},
		{"unknown model", map[string]string{"name": "x", "model": "nope"}, good, wire.CodeInvalidValue, "model"},
		{"bad temperature", map[string]string{"name": "x", "temperature": "hot"}, good, wire.CodeInvalidValue, "temperature"},
		{"temperature NaN", map[string]string{"name": "x", "temperature": "NaN"}, good, wire.CodeInvalidValue, "temperature"},
		{"bad steps", map[string]string{"name": "x", "steps": "0"}, good, wire.CodeInvalidValue, "steps"},
		{"unknown field", map[string]string{"name": "x", "base_voice": "en-us"}, good, wire.CodeUnknownParameter, "base_voice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := apiError(t, e.upload(e.key, tc.fields, tc.audio), 400, tc.code)
			if got.Param != tc.param {
				t.Errorf("param %q, want %q (%s)", got.Param, tc.param, got.Message)
			}
		})
	}
	big := make([]byte, wire.MaxRecording+100)
	res := e.upload(e.key, map[string]string{"name": "x"}, big)
	if res.StatusCode != 400 && res.StatusCode != 413 {
		t.Errorf("an 11 MB upload: %d", res.StatusCode)
	}
	res.Body.Close()
	if vs, _ := e.store.Voices(context.Background(), ""); len(vs) != 0 {
		t.Errorf("failed uploads stored %d voices", len(vs))
	}
	// Without a cloning engine, or with one that has no model (a gateway
	// whose workers clone nothing), an upload is refused with the reason.
	for name, other := range map[string]*env{"no cloner": newEnv(t, envOptions{}), "no model": pocketEnv(t, t.TempDir(), "")} {
		if got := apiError(t, other.upload(other.key, map[string]string{"name": "x"}, good), 400, wire.CodeInvalidValue); !strings.Contains(got.Message, "no model here clones") {
			t.Errorf("%s: %+v", name, got)
		}
	}
}

// TestRecordingCloneAcrossReplicas: a voice cloned from a recording on one
// server of a shared PostgreSQL store speaks on the other, the same way,
// and goes there when deleted.
func TestRecordingCloneAcrossReplicas(t *testing.T) {
	t.Parallel() // a long test, alongside the others that wait on the slow engine
	dsn := pgtest.Start(t)
	voicesDir := pocketVoices(t)
	replicas := make([]*replica, 2)
	for i := range replicas {
		pk, err := pocket.Load(context.Background(), pocket.Options{LibraryPath: onnxtest.Library(t), VoicesDir: voicesDir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pk.Close() })
		replicas[i] = newReplicaWith(t, dsn, store.Limits{}, map[string]engine.Engine{"pocket": pk})
	}
	a, b := replicas[0], replicas[1]
	ctx := context.Background()
	if _, err := a.st.CreateAccount(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	_, key, err := a.st.CreateKey(ctx, store.NewKey{Account: "acme", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("id", "rec")
	mw.WriteField("name", "Recorded")
	mw.WriteField("temperature", "0")
	fw, _ := mw.CreateFormFile("audio", "me.wav")
	fw.Write(pockettest.WAV(pockettest.Recording(2, 160), pockettest.SampleRate))
	mw.Close()
	req, _ := http.NewRequest("POST", a.ts.URL+"/v1/voices", &body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := a.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("upload on A: %d", res.StatusCode)
	}
	speech := `{"model":"tts-1","voice":"rec","input":"Recorded on the other server.","response_format":"pcm"}`
	stA, onA := a.call("POST", "/v1/audio/speech", key, speech)
	if stA != 200 {
		t.Fatalf("on A: %d %s", stA, onA)
	}
	within(t, 5*time.Second, "the clone speaks on B", func() bool {
		st, _ := b.call("POST", "/v1/audio/speech", key, speech)
		return st == 200
	})
	if st, onB := b.call("POST", "/v1/audio/speech", key, speech); st != 200 || !bytes.Equal(onA, onB) {
		t.Errorf("on B: %d, %d bytes, the same as on A: %v", st, len(onB), bytes.Equal(onA, onB))
	}
	if st, body := a.call("DELETE", "/v1/voices/rec", key, ""); st != 200 {
		t.Fatalf("delete on A: %d %s", st, body)
	}
	within(t, 5*time.Second, "the clone gone on B", func() bool {
		st, _ := b.call("POST", "/v1/audio/speech", key, speech)
		return st == 404
	})
}

// TestCloneStreams: a recording's voice streams as SSE with word
// timestamps, as other voices do.
func TestCloneStreams(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := pocketEnv(t, pocketVoices(t), "")
	res := e.upload(e.key, map[string]string{"id": "rec", "name": "Recorded"}, pockettest.WAV(pockettest.Recording(2, 190), pockettest.SampleRate))
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("upload: %d", res.StatusCode)
	}
	res = e.do("POST", "/v1/audio/speech", e.key, "application/json", strings.NewReader(
		`{"voice":"rec","input":"First sentence here. And the second one.","response_format":"pcm","stream_format":"sse","timestamps":"word"}`))
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	body := string(b)
	if res.StatusCode != 200 || !strings.Contains(body, "speech.audio.delta") || !strings.Contains(body, "speech.audio.done") {
		t.Fatalf("SSE: %d %.300s", res.StatusCode, body)
	}
	for _, w := range []string{"First", "sentence", "second", "one."} {
		if !strings.Contains(body, `"`+w+`"`) {
			t.Errorf("no timestamp for %q in %.500s", w, body)
		}
	}
}
