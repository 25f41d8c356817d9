package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestVendorDoorsOwnErrors: each vendor door answers in its vendor's
// shape — ElevenLabs' 401 without a key names xi-api-key, and a path
// under /elevenlabs or /cartesia that does not exist is a 404 in that
// vendor's shape, not OpenAI's.
func TestVendorDoorsOwnErrors(t *testing.T) {
	e := newEnv(t, envOptions{})
	res, b := e.elevenDo("GET", "/v1/voices", "", "")
	var eleven struct {
		Detail struct{ Status, Message string } `json:"detail"`
	}
	json.Unmarshal(b, &eleven)
	if res.StatusCode != 401 || eleven.Detail.Status != "needs_authorization" || !strings.Contains(eleven.Detail.Message, "xi-api-key") {
		t.Errorf("ElevenLabs without a key: %d %s; want 401 needs_authorization naming xi-api-key", res.StatusCode, b)
	}
	for _, path := range []string{"/v1/nothing", "/v2/voices", "", "/"} {
		res, b := e.elevenDo("GET", path, e.key, "")
		eleven.Detail.Status = ""
		json.Unmarshal(b, &eleven)
		if res.StatusCode != 404 || eleven.Detail.Status != "not_found" || strings.Contains(string(b), `"error"`) {
			t.Errorf("GET /elevenlabs%s: %d %s; want 404 in ElevenLabs' shape", path, res.StatusCode, b)
		}
	}
	for _, path := range []string{"/nothing", "/tts/nothing", "", "/"} {
		res, b := e.cartesiaDo("POST", path, e.key, "{}")
		var cartesia struct {
			Type       string
			ErrorCode  string `json:"error_code"`
			StatusCode int    `json:"status_code"`
		}
		json.Unmarshal(b, &cartesia)
		if res.StatusCode != 404 || cartesia.Type != "error" || cartesia.ErrorCode != "not_found" || cartesia.StatusCode != 404 || strings.Contains(string(b), `"error":`) {
			t.Errorf("POST /cartesia%s: %d %s; want 404 in Cartesia's shape", path, res.StatusCode, b)
		}
	}
}

// TestCartesiaVoicesCreated: a Cartesia voice's created_at is when the
// voice was added to the catalog (the test catalog's time), not the zero
// time.
func TestCartesiaVoicesCreated(t *testing.T) {
	e := newEnv(t, envOptions{})
	want := time.Unix(1700000000, 0).UTC().Format(time.RFC3339) // newEnv's
	res, b := e.cartesiaDo("GET", "/voices/en-us", e.key, "")
	var v struct {
		CreatedAt string `json:"created_at"`
	}
	json.Unmarshal(b, &v)
	if res.StatusCode != 200 || v.CreatedAt != want {
		t.Errorf("GET /cartesia/voices/en-us: %d, created_at %q; want %q", res.StatusCode, v.CreatedAt, want)
	}
}
