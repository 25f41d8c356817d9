package openai_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/internal/testkit/wait"
)

func TestBadRequests(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	baseline := runtime.NumGoroutine()
	bodies := map[string]string{}
	defer testserver.CheckGolden(t, "testdata/bad_requests.json", bodies)
	const speech = "/v1/audio/speech"
	const json_ = "application/json"
	ok := `"voice":"en-us","input":"Hi."`
	big := `{"voice":"en-us","input":"` + strings.Repeat("a", 1<<20) + `"}`
	wellFormedWrong := "sk_" + strings.Repeat("A", 43)
	for _, tc := range []struct {
		name                  string
		method, path, key, ct string
		body                  string
		status                int
		typ, code, param      string
		allow                 string
	}{
		{"malformed json", "POST", speech, e.Key, json_, `{"voice":`, 400, "invalid_request_error", "invalid_json", "", ""},
		{"truncated json", "POST", speech, e.Key, json_, `{"voice":"en-us","input":"Hi`, 400, "invalid_request_error", "invalid_json", "", ""},
		{"empty body", "POST", speech, e.Key, json_, ``, 400, "invalid_request_error", "invalid_json", "", ""},
		{"null body", "POST", speech, e.Key, json_, `null`, 400, "invalid_request_error", "invalid_json", "", ""},
		{"array body", "POST", speech, e.Key, json_, `[1,2]`, 400, "invalid_request_error", "invalid_json", "", ""},
		{"string body", "POST", speech, e.Key, json_, `"speak"`, 400, "invalid_request_error", "invalid_json", "", ""},
		{"stray brace", "POST", speech, e.Key, json_, `{` + ok + `}}`, 400, "invalid_request_error", "invalid_json", "", ""},
		{"stray bracket", "POST", speech, e.Key, json_, `{` + ok + `}] {"a":1}`, 400, "invalid_request_error", "invalid_json", "", ""},
		{"trailing data", "POST", speech, e.Key, json_, `{` + ok + `} {}`, 400, "invalid_request_error", "invalid_json", "", ""},
		{"invalid utf-8", "POST", speech, e.Key, json_, "{\"voice\":\"en-us\",\"input\":\"Hi \xff\xfe.\"}", 400, "invalid_request_error", "invalid_json", "", ""},
		{"voice number", "POST", speech, e.Key, json_, `{"voice":5,"input":"Hi."}`, 400, "invalid_request_error", "invalid_type", "voice", ""},
		{"voice array", "POST", speech, e.Key, json_, `{"voice":["en-us"],"input":"Hi."}`, 400, "invalid_request_error", "invalid_type", "voice", ""},
		{"voice object without id", "POST", speech, e.Key, json_, `{"voice":{},"input":"Hi."}`, 400, "invalid_request_error", "missing_required_parameter", "voice.id", ""},
		{"voice id number", "POST", speech, e.Key, json_, `{"voice":{"id":1},"input":"Hi."}`, 400, "invalid_request_error", "invalid_type", "voice.id", ""},
		{"voice empty", "POST", speech, e.Key, json_, `{"voice":"","input":"Hi."}`, 400, "invalid_request_error", "string_below_min_length", "voice", ""},
		{"voice missing", "POST", speech, e.Key, json_, `{"input":"Hi."}`, 400, "invalid_request_error", "missing_required_parameter", "voice", ""},
		{"input missing", "POST", speech, e.Key, json_, `{"voice":"en-us"}`, 400, "invalid_request_error", "missing_required_parameter", "input", ""},
		{"input null", "POST", speech, e.Key, json_, `{"voice":"en-us","input":null}`, 400, "invalid_request_error", "missing_required_parameter", "input", ""},
		{"input number", "POST", speech, e.Key, json_, `{"voice":"en-us","input":42}`, 400, "invalid_request_error", "invalid_type", "input", ""},
		{"input blank", "POST", speech, e.Key, json_, `{"voice":"en-us","input":"  \n "}`, 400, "invalid_request_error", "string_below_min_length", "input", ""},
		{"input 4097 chars", "POST", speech, e.Key, json_, `{"voice":"en-us","input":"` + strings.Repeat("a", 4097) + `"}`, 400, "invalid_request_error", "string_above_max_length", "input", ""},
		{"input 4097 runes", "POST", speech, e.Key, json_, `{"voice":"en-us","input":"` + strings.Repeat("é", 4097) + `"}`, 400, "invalid_request_error", "string_above_max_length", "input", ""},
		{"format aac", "POST", speech, e.Key, json_, `{` + ok + `,"response_format":"aac"}`, 400, "invalid_request_error", "invalid_value", "response_format", ""},
		{"format number", "POST", speech, e.Key, json_, `{` + ok + `,"response_format":3}`, 400, "invalid_request_error", "invalid_type", "response_format", ""},
		{"speed string", "POST", speech, e.Key, json_, `{` + ok + `,"speed":"fast"}`, 400, "invalid_request_error", "invalid_type", "speed", ""},
		{"speed 0.2", "POST", speech, e.Key, json_, `{` + ok + `,"speed":0.2}`, 400, "invalid_request_error", "decimal_below_min_value", "speed", ""},
		{"speed 0", "POST", speech, e.Key, json_, `{` + ok + `,"speed":0}`, 400, "invalid_request_error", "decimal_below_min_value", "speed", ""},
		{"speed 4.01", "POST", speech, e.Key, json_, `{` + ok + `,"speed":4.01}`, 400, "invalid_request_error", "decimal_above_max_value", "speed", ""},
		{"speed huge", "POST", speech, e.Key, json_, `{` + ok + `,"speed":1e400}`, 400, "invalid_request_error", "decimal_above_max_value", "speed", ""},
		{"stream format", "POST", speech, e.Key, json_, `{` + ok + `,"stream_format":"video"}`, 400, "invalid_request_error", "invalid_value", "stream_format", ""},
		{"model number", "POST", speech, e.Key, json_, `{` + ok + `,"model":7}`, 400, "invalid_request_error", "invalid_type", "model", ""},
		{"instructions object", "POST", speech, e.Key, json_, `{` + ok + `,"instructions":{}}`, 400, "invalid_request_error", "invalid_type", "instructions", ""},
		{"strict_tags string", "POST", speech, e.Key, json_, `{` + ok + `,"strict_tags":"yes"}`, 400, "invalid_request_error", "invalid_type", "strict_tags", ""},
		{"strict bad tag", "POST", speech, e.Key, json_, `{"voice":"en-us","input":"<|frobnicate|> Hi.","strict_tags":true}`, 400, "invalid_request_error", "invalid_tags", "input", ""},
		{"body over 1 MiB", "POST", speech, e.Key, json_, big, 413, "invalid_request_error", "request_too_large", "", ""},
		{"text/plain", "POST", speech, e.Key, "text/plain", `{` + ok + `}`, 415, "invalid_request_error", "unsupported_media_type", "", ""},
		{"form content type", "POST", speech, e.Key, "application/x-www-form-urlencoded", `voice=en-us`, 415, "invalid_request_error", "unsupported_media_type", "", ""},
		{"no key", "POST", speech, "", json_, `{` + ok + `}`, 401, "invalid_request_error", "missing_api_key", "", ""},
		{"wrong key", "POST", speech, wellFormedWrong, json_, `{` + ok + `}`, 401, "invalid_request_error", "invalid_api_key", "", ""},
		{"garbage key", "POST", speech, "sk_<script>ü", json_, `{` + ok + `}`, 401, "invalid_request_error", "invalid_api_key", "", ""},
		{"revoked key", "POST", speech, e.Revoked, json_, `{` + ok + `}`, 401, "invalid_request_error", "invalid_api_key", "", ""},
		{"no key on models", "GET", "/v1/models", "", "", ``, 401, "invalid_request_error", "missing_api_key", "", ""},
		{"unknown voice", "POST", speech, e.Key, json_, `{"voice":"nobody","input":"Hi."}`, 404, "proxy_error", "voice_not_found", "voice", ""},
		{"another account's voice", "POST", speech, e.Key, json_, `{"voice":"other-clone","input":"Hi."}`, 404, "proxy_error", "voice_not_found", "voice", ""},
		{"another account's voice object", "POST", speech, e.OtherKey, json_, `{"voice":{"id":"local-clone"},"input":"Hi."}`, 404, "proxy_error", "voice_not_found", "voice", ""},
		{"another account's model", "GET", "/v1/models/other-clone", e.Key, "", ``, 404, "invalid_request_error", "model_not_found", "model", ""},
		{"unknown model", "GET", "/v1/models/tts-9", e.Key, "", ``, 404, "invalid_request_error", "model_not_found", "model", ""},
		{"GET speech", "GET", speech, e.Key, "", ``, 405, "invalid_request_error", "method_not_allowed", "", "POST"},
		{"PUT speech", "PUT", speech, e.Key, json_, `{` + ok + `}`, 405, "invalid_request_error", "method_not_allowed", "", "POST"},
		{"DELETE models", "DELETE", "/v1/models", e.Key, "", ``, 405, "invalid_request_error", "method_not_allowed", "", "GET, HEAD"},
		{"PATCH keys", "PATCH", "/v1/keys", e.Key, "", ``, 405, "invalid_request_error", "method_not_allowed", "", "GET, HEAD, POST"},
		{"unknown path", "GET", "/v1/nothing", e.Key, "", ``, 404, "invalid_request_error", "not_found", "", ""},
		{"signup disabled", "POST", "/v1/accounts", "", json_, `{"name":"eve"}`, 403, "invalid_request_error", "signup_disabled", "", ""},
		{"revoke unknown key", "DELETE", "/v1/keys/sk_zzzzzzzz", e.Key, "", ``, 404, "invalid_request_error", "key_not_found", "prefix", ""},
		{"key name too long", "POST", "/v1/keys", e.Key, json_, `{"name":"` + strings.Repeat("n", 101) + `"}`, 400, "invalid_request_error", "string_above_max_length", "name", ""},
		{"engine failure", "POST", speech, e.Key, json_, `{"voice":"faulty","input":"Please FAIL now."}`, 502, "proxy_error", "engine_error", "", ""},
		{"engine panic", "POST", speech, e.Key, json_, `{"voice":"faulty","input":"Please PANIC now."}`, 500, "server_error", "internal_error", "", ""},
		{"audio too long", "POST", speech, e.Key, json_, `{"voice":"en-us","input":"Hi.` + strings.Repeat("<|pause:5s|>", 130) + `"}`, 400, "invalid_request_error", "audio_too_long", "input", ""},
		{"key scope", "POST", "/v1/keys", e.Key, json_, `{"name":"k","scope":"root"}`, 400, "invalid_request_error", "invalid_value", "scope", ""},
		{"key name bidi", "POST", "/v1/keys", e.Key, json_, `{"name":"a\u202eb"}`, 400, "invalid_request_error", "invalid_value", "name", ""},
		{"clone over a global voice", "POST", "/v1/voices", e.Key, json_, `{"id":"en-us","name":"x","base_voice":"en-us"}`, 400, "invalid_request_error", "invalid_value", "id", ""},
		{"clone of an unknown voice", "POST", "/v1/voices", e.Key, json_, `{"id":"mine","name":"x","base_voice":"nobody"}`, 400, "invalid_request_error", "invalid_value", "base_voice", ""},
		{"clone unknown field", "POST", "/v1/voices", e.Key, json_, `{"id":"mine","name":"x","base_voice":"en-us","colour":"blue"}`, 400, "invalid_request_error", "unknown_parameter", "colour", ""},
		{"clone speed", "POST", "/v1/voices", e.Key, json_, `{"id":"mine","name":"x","base_voice":"en-us","speed":9}`, 400, "invalid_request_error", "decimal_above_max_value", "speed", ""},
		{"clone range", "POST", "/v1/voices", e.Key, json_, `{"id":"mine","name":"x","base_voice":"en-us","range":0.1}`, 400, "invalid_request_error", "decimal_below_min_value", "range", ""},
		{"unknown clone", "GET", "/v1/voices/nobody", e.Key, "", ``, 404, "invalid_request_error", "voice_not_found", "id", ""},
		{"ws without upgrade", "GET", "/v1/audio/speech/ws", e.Key, "", ``, 426, "invalid_request_error", "upgrade_required", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.Do(tc.method, tc.path, tc.key, tc.ct, strings.NewReader(tc.body))
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			bodies[tc.name] = testserver.Varying.ReplaceAllString(string(body), "ID")
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if res.Header.Get("x-request-id") == "" {
				t.Error("no x-request-id")
			}
			if got := res.Header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
			var ej testserver.ErrorJSON
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&ej); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			var raw map[string]map[string]any
			json.Unmarshal(body, &raw)
			if len(raw["error"]) != 4 {
				t.Errorf("error object has fields %v, want message, type, param, code", raw["error"])
			}
			er := ej.Error
			str := func(p *string) string {
				if p == nil {
					return ""
				}
				return *p
			}
			if er.Message == nil || *er.Message == "" || str(er.Type) != tc.typ || str(er.Code) != tc.code || str(er.Param) != tc.param {
				t.Errorf("got type=%q code=%q param=%q message=%q; want %q %q %q",
					str(er.Type), str(er.Code), str(er.Param), str(er.Message), tc.typ, tc.code, tc.param)
			}
			if tc.param == "" && er.Param != nil || tc.code == "" && er.Code != nil {
				t.Errorf("empty param/code must be null: %s", body)
			}
			if tc.status == 401 && strings.Contains(tc.code, "missing") && !strings.Contains(*er.Message, "Authorization: Bearer") {
				t.Errorf("401 does not say how to send the key: %s", *er.Message)
			}
			if tc.status == 404 && tc.typ == "proxy_error" && !strings.Contains(*er.Message, "unknown") {
				t.Errorf("unknown voice message does not say so: %s", *er.Message)
			}
		})
	}
	// The server still serves, and no goroutine is left behind.
	res := e.Do("GET", "/v1/models", e.Key, "", nil)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("after the bad requests: %d", res.StatusCode)
	}
	e.TS.Client().CloseIdleConnections()
	if !wait.For(5*time.Second, func() bool { return runtime.NumGoroutine() <= baseline }) {
		n := runtime.NumGoroutine()
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines, baseline %d:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
	}
}
