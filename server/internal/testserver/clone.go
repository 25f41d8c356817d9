//go:build cgo

package testserver

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// PocketVoices is a voices directory with the generated PocketTTS model,
// made once per test binary and shared (engines only read it).
func PocketVoices(t *testing.T) string {
	t.Helper()
	dir, err := pockettest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// PocketEnv is the test server with a pocket engine on voicesDir as the
// engine "pocket"; dbPath, when set, is the SQLite store to open.
func PocketEnv(t *testing.T, voicesDir, dbPath string) *Env {
	t.Helper()
	return PocketEnvWith(t, voicesDir, Options{DBPath: dbPath})
}

// PocketEnvWith is pocketEnv with the options o (whose synth it sets).
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

// Upload sends a multipart POST /v1/voices with fields and, unless nil,
// the file audio.
func (e *Env) Upload(key string, fields map[string]string, audio []byte) *http.Response {
	e.T.Helper()
	return e.UploadTo("/v1/voices", key, fields, audio)
}

// UploadTo is upload to path.
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

// CloneDoor is one door's way to clone a voice from a recording.
type CloneDoor struct {
	Name string
	// path and field are the route and the recording's form field;
	// headers gives the headers that carry a key.
	Path, Field string
	Headers     func(key string) []string
	// made is the status of a clone made.
	Made int
	// CodeAt is where the door's error shape has the error code: keys
	// of nested objects.
	CodeAt []string
}

var CloneDoors = []CloneDoor{
	{"openai", "/v1/voices", "audio", func(key string) []string { return []string{"Authorization", "Bearer " + key} },
		http.StatusCreated, []string{"error", "code"}},
	{"elevenlabs", "/elevenlabs/v1/voices/add", "files", func(key string) []string { return []string{"xi-api-key", key} },
		http.StatusOK, []string{"detail", "status"}},
	{"cartesia", "/cartesia/voices/clone", "clip", func(key string) []string {
		return []string{"X-API-Key", key, "Cartesia-Version", "2026-08-14"}
	}, http.StatusOK, []string{"error_code"}},
}

// Code reads the error code from an answer in the door's shape.
func (d CloneDoor) Code(body []byte) string {
	var v any
	json.Unmarshal(body, &v)
	for _, k := range d.CodeAt {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// Clone sends the recording rec with key, named Me.
func (d CloneDoor) Clone(e *Env, key string, rec []byte) *http.Response {
	return d.CloneWith(e, key, map[string]string{"name": "Me"}, rec)
}

// CloneWith sends the recording rec with key and the fields.
func (d CloneDoor) CloneWith(e *Env, key string, fields map[string]string, rec []byte) *http.Response {
	return e.PostForm(d.Path, fields, d.Field, [][]byte{rec}, d.Headers(key)...)
}

// RefusedClone fails t unless res is status with the error code in d's
// shape, and, for a 429, Retry-After.
func (d CloneDoor) RefusedClone(t *testing.T, res *http.Response, status int, code string) {
	t.Helper()
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != status || d.Code(b) != code {
		t.Errorf("%s: %d %s, want %d %s", d.Name, res.StatusCode, b, status, code)
	}
	if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
		t.Errorf("%s: 429 without Retry-After", d.Name)
	}
}

// VendorForm sends a multipart POST to path with fields, each of files
// under fileField, and the headers given as name, value pairs; it
// returns the status and the body.
func (e *Env) VendorForm(path string, fields map[string]string, fileField string, files [][]byte, header ...string) (int, []byte) {
	e.T.Helper()
	res := e.PostForm(path, fields, fileField, files, header...)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// PostForm sends what vendorForm does and returns the response.
func (e *Env) PostForm(path string, fields map[string]string, fileField string, files [][]byte, header ...string) *http.Response {
	e.T.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for _, f := range files {
		fw, _ := mw.CreateFormFile(fileField, "me.wav")
		fw.Write(f)
	}
	mw.Close()
	req, err := http.NewRequest("POST", e.TS.URL+path, &body)
	if err != nil {
		e.T.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := e.TS.Client().Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	return res
}

// SpeechKey is a key of the account "local" with speech scope only.
func (e *Env) SpeechKey() string {
	e.T.Helper()
	_, key, err := e.Store.CreateKey(e.T.Context(), store.NewKey{Account: "local", Name: "speech only", Scope: store.ScopeSpeech})
	if err != nil {
		e.T.Fatal(err)
	}
	return key
}

// CloneFailure is an upload a door refuses: the status and error code it
// answers with.
type CloneFailure struct {
	Name   string
	Key    string
	Files  [][]byte
	Status int
	Code   string
}

// CloneFailures are the uploads every door refuses, good being a
// recording that clones; with one, a second file is refused too.
func (e *Env) CloneFailures(good []byte, one bool) []CloneFailure {
	e.T.Helper()
	c := []CloneFailure{
		{"no recording", e.Key, nil, 400, "missing_required_parameter"},
		{"silence", e.Key, [][]byte{pockettest.WAV(make([]float32, 2*pockettest.SampleRate), pockettest.SampleRate)}, 400, "audio_silent"},
		{"too short", e.Key, [][]byte{pockettest.WAV(pockettest.Recording(0.5, 200), pockettest.SampleRate)}, 400, "audio_too_short"},
		{"not audio", e.Key, [][]byte{[]byte("not audio")}, 400, "unsupported_audio"},
		{"speech scope", e.SpeechKey(), [][]byte{good}, 403, "insufficient_scope"},
	}
	if one {
		c = append(c, CloneFailure{"two recordings", e.Key, [][]byte{good, good}, 400, "invalid_value"})
	}
	return c
}

// wyomingVoices describes over c and returns the voices listed, as name →
// description.
func (w *WyomingClient) Voices() map[string]DescribedVoice {
	w.T.Helper()
	w.Send("describe", nil)
	info := w.Next()
	var programs struct {
		TTS []struct {
			Voices []struct {
				Name string `json:"name"`
				DescribedVoice
			} `json:"voices"`
		} `json:"tts"`
	}
	b, _ := json.Marshal(info.Data)
	if info.Type != "info" || json.Unmarshal(b, &programs) != nil || len(programs.TTS) != 1 {
		w.T.Fatalf("describe: %s %s", info.Type, b)
	}
	m := map[string]DescribedVoice{}
	for _, v := range programs.TTS[0].Voices {
		m[v.Name] = v.DescribedVoice
	}
	return m
}

// DescribedVoice is what Wyoming's describe says of a voice.
type DescribedVoice struct {
	Description string   `json:"description"`
	Languages   []string `json:"languages"`
}

// KeyOf is a new key of account "local" with scope.
func (e *Env) KeyOf(scope store.Scope) string {
	e.T.Helper()
	_, key, err := e.Store.CreateKey(e.T.Context(), store.NewKey{Account: "local", Name: string(scope), Scope: scope})
	if err != nil {
		e.T.Fatal(err)
	}
	return key
}

// EncodeSample asks POST /v1/voice-samples for the sample of a recording.
func (e *Env) EncodeSample(key string, recording []byte) *http.Response {
	e.T.Helper()
	return e.UploadTo("/v1/voice-samples", key, map[string]string{"name": "gateway", "temperature": "0"}, recording)
}

// PCMRMS is the level of s16le samples, from 0 to 1.
func PCMRMS(pcm []byte) float64 {
	var sum float64
	n := len(pcm) / 2
	for i := range n {
		v := float64(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
		sum += v * v
	}
	return math.Sqrt(sum / float64(max(n, 1)))
}
