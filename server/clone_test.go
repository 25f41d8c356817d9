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

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// TestCloneFromRecording: a WAV recording uploaded to POST /v1/voices
// becomes the account's voice: it speaks, after a restart too, only for
// its account, and goes when deleted.
func TestCloneFromRecording(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	voicesDir := testserver.PocketVoices(t)
	e := testserver.PocketEnv(t, voicesDir, "")
	// 48 kHz, 3 s: any rate is resampled.
	r, err := dsp.NewResampler(pockettest.SampleRate, 48000)
	if err != nil {
		t.Fatal(err)
	}
	wav := pockettest.WAV(r.Flush(r.Process(nil, pockettest.Recording(3, 180))), 48000)
	res := e.Upload(e.Key, map[string]string{"name": "My voice", "temperature": "0", "steps": "3"}, wav)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var v wire.Voice
	if res.StatusCode != 201 || json.Unmarshal(b, &v) != nil || v.Model != pockettest.Model || v.BaseVoice != "" || v.Name != "My voice" || v.ID == "" {
		t.Fatalf("upload: %d %s", res.StatusCode, b)
	}
	st, first := e.Speak(e.Key, v.ID)
	if st != 200 || len(first) < 2*24000 {
		t.Fatalf("speaking the clone: %d, %d bytes", st, len(first))
	}
	if _, again := e.Speak(e.Key, v.ID); !bytes.Equal(first, again) {
		t.Error("temperature 0 spoke otherwise the second time")
	}
	// Another account neither lists nor uses it.
	if st, _ := e.Speak(e.OtherKey, v.ID); st != 404 {
		t.Errorf("the other account speaking it: %d, want 404", st)
	}
	if st := e.Call("GET", "/v1/voices/"+v.ID, e.OtherKey, "", nil); st != 404 {
		t.Errorf("the other account reading it: %d", st)
	}
	var l wire.VoiceList
	if e.Call("GET", "/v1/voices", e.Key, "", &l); len(l.Data) != 1 || l.Data[0].ID != v.ID || l.Data[0].Model != pockettest.Model {
		t.Errorf("list: %+v", l)
	}
	var ml wire.ModelList
	if e.Call("GET", "/v1/models", e.Key, "", &ml); len(ml.CloneModels) != 1 || ml.CloneModels[0] != pockettest.Model {
		t.Errorf("models that clone: %q, want [%s]", ml.CloneModels, pockettest.Model)
	}
	// A derived voice of the clone speaks with it, faster.
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"quick","name":"Quick","base_voice":"`+v.ID+`","speed":1.5}`, nil); st != 201 {
		t.Fatalf("derived voice of the clone: %d", st)
	}
	if st, pcm := e.Speak(e.Key, "quick"); st != 200 || len(pcm) == 0 || len(pcm) >= len(first) {
		t.Errorf("the derived voice: %d, %d bytes (the clone: %d)", st, len(pcm), len(first))
	}

	// After a restart (a new server and engine on the same database) the
	// clone speaks as before.
	e2 := testserver.PocketEnv(t, voicesDir, e.DBPath)
	if st, pcm := e2.Speak(e.Key, v.ID); st != 200 || !bytes.Equal(pcm, first) {
		t.Errorf("after a restart: %d, %d bytes, same audio %v", st, len(pcm), bytes.Equal(pcm, first))
	}

	if st := e.Call("DELETE", "/v1/voices/"+v.ID, e.Key, "", nil); st != 200 {
		t.Fatalf("delete: %d", st)
	}
	if st, _ := e.Speak(e.Key, v.ID); st != 404 {
		t.Errorf("deleted clone: %d", st)
	}
}

// TestCloneRecordingErrors: what cannot be cloned gets a clear 400.
func TestCloneRecordingErrors(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
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
			got := testserver.APIError(t, e.Upload(e.Key, tc.fields, tc.audio), 400, tc.code)
			if got.Param != tc.param {
				t.Errorf("param %q, want %q (%s)", got.Param, tc.param, got.Message)
			}
		})
	}
	big := make([]byte, wire.MaxRecording+100)
	res := e.Upload(e.Key, map[string]string{"name": "x"}, big)
	if res.StatusCode != 400 && res.StatusCode != 413 {
		t.Errorf("an 11 MB upload: %d", res.StatusCode)
	}
	res.Body.Close()
	if vs, _ := e.Store.Voices(context.Background(), ""); len(vs) != 0 {
		t.Errorf("failed uploads stored %d voices", len(vs))
	}
	// Without a cloning engine, or with one that has no model (a gateway
	// whose workers clone nothing), an upload is refused with the reason.
	for name, other := range map[string]*testserver.Env{"no cloner": testserver.New(t, testserver.Options{}), "no model": testserver.PocketEnv(t, t.TempDir(), "")} {
		if got := testserver.APIError(t, other.Upload(other.Key, map[string]string{"name": "x"}, good), 400, wire.CodeInvalidValue); !strings.Contains(got.Message, "no model here clones") {
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
	voicesDir := testserver.PocketVoices(t)
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
	e := testserver.PocketEnv(t, testserver.PocketVoices(t), "")
	res := e.Upload(e.Key, map[string]string{"id": "rec", "name": "Recorded"}, pockettest.WAV(pockettest.Recording(2, 190), pockettest.SampleRate))
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("upload: %d", res.StatusCode)
	}
	res = e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(
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
