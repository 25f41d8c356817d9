package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestVendorDoorsOwnErrors: each vendor door answers in its vendor's
// shape — ElevenLabs' 401 without a key names xi-api-key, and a path
// under /elevenlabs or /cartesia that does not exist is a 404 (a wrong
// method a 405) in that vendor's shape, not OpenAI's.
func TestVendorDoorsOwnErrors(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	res, b := e.ElevenDo("GET", "/v1/voices", "", "")
	var eleven struct {
		Detail struct{ Status, Message string } `json:"detail"`
	}
	json.Unmarshal(b, &eleven)
	if res.StatusCode != 401 || eleven.Detail.Status != "needs_authorization" || !strings.Contains(eleven.Detail.Message, "xi-api-key") {
		t.Errorf("ElevenLabs without a key: %d %s; want 401 needs_authorization naming xi-api-key", res.StatusCode, b)
	}
	for _, tc := range []struct {
		method, path, status string
		code                 int
	}{
		{"GET", "/v1/nothing", "not_found", 404}, {"GET", "/v2/nothing", "not_found", 404}, {"GET", "", "not_found", 404},
		{"GET", "/", "not_found", 404}, {"GET", "/v1/text-to-speech/en-us", "method_not_allowed", 405},
	} {
		res, b := e.ElevenDo(tc.method, tc.path, e.Key, "")
		eleven.Detail.Status = ""
		json.Unmarshal(b, &eleven)
		if res.StatusCode != tc.code || eleven.Detail.Status != tc.status || strings.Contains(string(b), `"error"`) {
			t.Errorf("%s /elevenlabs%s: %d %s; want %d %s in ElevenLabs' shape", tc.method, tc.path, res.StatusCode, b, tc.code, tc.status)
		}
	}
	for _, tc := range []struct {
		path, code string
		status     int
	}{{"/nothing", "not_found", 404}, {"/tts/nothing", "not_found", 404}, {"", "not_found", 404}, {"/", "not_found", 404},
		{"/voices", "method_not_allowed", 405}} {
		res, b := e.CartesiaDo("POST", tc.path, e.Key, "{}")
		var cartesia struct {
			Type       string
			ErrorCode  string `json:"error_code"`
			StatusCode int    `json:"status_code"`
		}
		json.Unmarshal(b, &cartesia)
		if res.StatusCode != tc.status || cartesia.Type != "error" || cartesia.ErrorCode != tc.code || cartesia.StatusCode != tc.status || strings.Contains(string(b), `"error":`) {
			t.Errorf("POST /cartesia%s: %d %s; want %d %s in Cartesia's shape", tc.path, res.StatusCode, b, tc.status, tc.code)
		}
	}
}

// TestVendorJSONFaultsInTheirWords: a body of the wrong JSON types is
// refused in the client's own field names, never Go's type names.
func TestVendorJSONFaultsInTheirWords(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, tc := range []struct {
		name string
		do   func() (*http.Response, []byte)
		want string
	}{
		{"ElevenLabs speech", func() (*http.Response, []byte) {
			return e.ElevenDo("POST", "/v1/text-to-speech/en-us", e.Key, `{"text":1}`)
		}, "text cannot be a JSON number."},
		{"ElevenLabs rules", func() (*http.Response, []byte) {
			return e.ElevenDo("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.Key, `{"name":"d","rules":"x"}`)
		}, "rules cannot be a JSON string."},
		{"Cartesia bytes", func() (*http.Response, []byte) {
			return e.CartesiaDo("POST", "/tts/bytes", e.Key, `{"transcript":["a"]}`)
		}, "transcript cannot be a JSON array."},
	} {
		res, b := tc.do()
		if res.StatusCode/100 != 4 || !strings.Contains(string(b), tc.want) || strings.Contains(string(b), "Go ") || strings.Contains(string(b), "unmarshal") {
			t.Errorf("%s: %d %s; want a 4xx saying %q", tc.name, res.StatusCode, b, tc.want)
		}
	}
}

// TestCartesiaVoicesCreated: a Cartesia voice's created_at is when the
// voice was added to the catalog (the test catalog's time), not the zero
// time.
func TestCartesiaVoicesCreated(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	want := time.Unix(1700000000, 0).UTC().Format(time.RFC3339) // newEnv's
	res, b := e.CartesiaDo("GET", "/voices/en-us", e.Key, "")
	var v struct {
		CreatedAt string `json:"created_at"`
	}
	json.Unmarshal(b, &v)
	if res.StatusCode != 200 || v.CreatedAt != want {
		t.Errorf("GET /cartesia/voices/en-us: %d, created_at %q; want %q", res.StatusCode, v.CreatedAt, want)
	}
}
