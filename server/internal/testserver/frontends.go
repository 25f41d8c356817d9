package testserver

import (
	"encoding/json"
	"testing"
)

// getJSON GETs path with key and decodes the body into v.
func (e *Env) GetJSON(t *testing.T, path, key string, v any) int {
	t.Helper()
	res := e.Do("GET", path, key, "", nil)
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("%s: %d, %v", path, res.StatusCode, err)
	}
	return res.StatusCode
}
