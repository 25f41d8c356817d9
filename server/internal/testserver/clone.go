package testserver

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/onnxtest"
	"github.com/voxkit/voxkit/internal/pockettest"
	"github.com/voxkit/voxkit/tts"
)

// pocketVoices is a voices directory with the generated PocketTTS model,
// made once per test binary and shared (engines only read it).
func PocketVoices(t *testing.T) string {
	t.Helper()
	dir, err := pockettest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// pocketEnv is the test server with a pocket engine on voicesDir as the
// engine "pocket"; dbPath, when set, is the SQLite store to open.
func PocketEnv(t *testing.T, voicesDir, dbPath string) *Env {
	t.Helper()
	return PocketEnvWith(t, voicesDir, Options{DBPath: dbPath})
}

// pocketEnvWith is pocketEnv with the options o (whose synth it sets).
func PocketEnvWith(t *testing.T, voicesDir string, o Options) *Env {
	t.Helper()
	pk, err := pocket.Load(context.Background(), pocket.Options{LibraryPath: onnxtest.Library(t), VoicesDir: voicesDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pk.Close() })
	o.Synth = func(o *tts.Options) {
		o.Engines["pocket"] = pk
		if err := o.Voices.AddEngine(context.Background(), "pocket", pk, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return New(t, o)
}

// upload sends a multipart POST /v1/voices with fields and, unless nil,
// the file audio.
func (e *Env) Upload(key string, fields map[string]string, audio []byte) *http.Response {
	e.T.Helper()
	return e.UploadTo("/v1/voices", key, fields, audio)
}

// uploadTo is upload to path.
func (e *Env) UploadTo(path, key string, fields map[string]string, audio []byte) *http.Response {
	e.T.Helper()
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
	return e.Do("POST", path, key, mw.FormDataContentType(), &body)
}
