package testserver

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
)

// addDictionaryFile uploads pls as ElevenLabs' add-from-file does (a
// multipart form of name and file; no file for "") and returns the
// answer.
func (e *Env) AddDictionaryFile(key, name, pls string) (*http.Response, []byte) {
	e.T.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("name", name)
	mw.WriteField("description", "acronyms we say in full")
	if pls != "" {
		fw, _ := mw.CreateFormFile("file", "dictionary.pls")
		io.WriteString(fw, pls)
	}
	mw.Close()
	return e.VendorDo("POST", "/elevenlabs/v1/pronunciation-dictionaries/add-from-file", body.String(),
		"xi-api-key", key, "Content-Type", mw.FormDataContentType())
}

// elevenJSON sends an ElevenLabs request and decodes its JSON answer
// into out, failing unless the status is want.
func (e *Env) ElevenJSON(method, path, key, body string, want int, out any) {
	e.T.Helper()
	res, b := e.ElevenDo(method, path, key, body)
	if res.StatusCode != want {
		e.T.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, b, want)
	}
	if err := json.Unmarshal(b, out); err != nil {
		e.T.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
}

// elevenPCM is the pcm_24000 of text in en-us over ElevenLabs' HTTP API,
// with the locators given (JSON, "" for none).
func (e *Env) ElevenPCM(key, text, locators string) (int, []byte) {
	e.T.Helper()
	body := map[string]any{"text": text}
	if locators != "" {
		body["pronunciation_dictionary_locators"] = json.RawMessage(locators)
	}
	js, _ := json.Marshal(body)
	res, b := e.ElevenDo("POST", "/v1/text-to-speech/en-us?output_format=pcm_24000", key, string(js))
	return res.StatusCode, b
}
