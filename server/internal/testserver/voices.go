package testserver

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/voxkit/voxkit/server/wire"
)

// call sends a JSON request and decodes the answer into out (if not nil);
// it returns the status.
func (e *Env) Call(method, path, key, body string, out any) int {
	e.T.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	res := e.Do(method, path, key, "application/json", r)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.T.Fatalf("%s %s: %d %s: %v", method, path, res.StatusCode, b, err)
		}
	}
	return res.StatusCode
}

// speak returns the status and the pcm bytes of voice saying the sample.
func (e *Env) Speak(key, voice string) (int, []byte) {
	e.T.Helper()
	res := e.Do("POST", "/v1/audio/speech", key, "application/json",
		strings.NewReader(`{"voice":"`+voice+`","input":"Hello there, how are you today?","response_format":"pcm"}`))
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// models returns the model list of key as id → owned_by.
func (e *Env) Models(key string) map[string]string {
	e.T.Helper()
	var l wire.ModelList
	if st := e.Call("GET", "/v1/models", key, "", &l); st != 200 {
		e.T.Fatalf("models: %d", st)
	}
	m := map[string]string{}
	for _, x := range l.Data {
		m[x.ID] = x.OwnedBy
	}
	return m
}
