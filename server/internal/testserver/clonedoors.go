package testserver

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"

	"github.com/voxkit/voxkit/internal/pockettest"
	"github.com/voxkit/voxkit/server/store"
)

// vendorForm sends a multipart POST to path with fields, each of files
// under fileField, and the headers given as name, value pairs; it
// returns the status and the body.
func (e *Env) VendorForm(path string, fields map[string]string, fileField string, files [][]byte, header ...string) (int, []byte) {
	e.T.Helper()
	res := e.PostForm(path, fields, fileField, files, header...)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// postForm sends what vendorForm does and returns the response.
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

// speechKey is a key of the account "local" with speech scope only.
func (e *Env) SpeechKey() string {
	e.T.Helper()
	_, key, err := e.Store.CreateKey(e.T.Context(), store.NewKey{Account: "local", Name: "speech only", Scope: store.ScopeSpeech})
	if err != nil {
		e.T.Fatal(err)
	}
	return key
}

// cloneFailure is an upload a door refuses: the status and error code it
// answers with.
type CloneFailure struct {
	Name   string
	Key    string
	Files  [][]byte
	Status int
	Code   string
}

// cloneFailures are the uploads every door refuses, good being a
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
