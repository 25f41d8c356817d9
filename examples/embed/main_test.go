package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/server/servertest"
)

func TestMountedUnderPrefix(t *testing.T) {
	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api, key := servertest.New(t, "espeak", es, nil)
	ts := httptest.NewServer(newMux(api))
	defer ts.Close()
	for _, tc := range []struct {
		method, path, body string
		auth               bool
		status             int
		contains           string
	}{
		{"GET", "/healthz", "", false, 200, "ok"},
		{"GET", "/", "", false, 200, "my application"},
		{"GET", "/tts/", "", false, 200, "voxkit playground"},
		{"GET", "/tts/v1/models", "", true, 200, `"id":"en-us"`},
		{"GET", "/tts/v1/models", "", false, 401, "Bearer"},
		{"POST", "/tts/v1/audio/speech", `{"voice":"en-us","input":"Mounted."}`, true, 200, "RIFF"},
		{"GET", "/tts/v1/nothing", "", true, 404, "not_found"},
	} {
		req, _ := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader(tc.body))
		if tc.auth {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		if tc.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status || !strings.Contains(string(b), tc.contains) {
			t.Errorf("%s %s: %d %.100q", tc.method, tc.path, res.StatusCode, b)
		}
	}
}
