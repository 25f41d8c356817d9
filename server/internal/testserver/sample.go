package testserver

import (
	"net/http"

	"github.com/voxkit/voxkit/server/store"
)

// keyOf is a new key of account "local" with scope.
func (e *Env) KeyOf(scope store.Scope) string {
	e.T.Helper()
	_, key, err := e.Store.CreateKey(e.T.Context(), store.NewKey{Account: "local", Name: string(scope), Scope: scope})
	if err != nil {
		e.T.Fatal(err)
	}
	return key
}

// encodeSample asks POST /v1/voice-samples for the sample of a recording.
func (e *Env) EncodeSample(key string, recording []byte) *http.Response {
	e.T.Helper()
	return e.UploadTo("/v1/voice-samples", key, map[string]string{"name": "gateway", "temperature": "0"}, recording)
}
