package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/wire"
)

// apiError reads an error response and checks its shape.
func apiError(t *testing.T, res *http.Response, status int, code string) wire.Error {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var e wire.Error
	if err := json.Unmarshal(b, &e); err != nil || res.StatusCode != status || e.Code != code ||
		res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("got %d %s %q (%v); want %d JSON with code %q", res.StatusCode, res.Header.Get("Content-Type"), b, err, status, code)
	}
	return e
}

func TestEncodedSeparatorsAreNotRoutes(t *testing.T) {
	e := newEnv(t, envOptions{})
	before, _ := e.store.Keys(t.Context(), "local")
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/v1/audio/speech%2F..%2F..%2Fkeys", `{"name":"sneaky"}`},
		{"POST", "/v1/audio/speech%2f..%2f..%2fkeys", `{"name":"sneaky"}`},
		{"POST", "/v1/audio/speech/%2E%2E/%2e%2e/keys", `{"name":"sneaky"}`},
		{"POST", "/v1/audio/speech%5C..%5C..%5Ckeys", `{"name":"sneaky"}`},
		{"GET", "/v1/models/x%2F..%2F..%2Fkeys", ""},
		{"GET", "/v1/models/en-us%2F", ""},
		{"DELETE", "/v1/voices/x%2F..%2F..%2Fkeys%2Fsk_abcd", ""},
		{"POST", "/v1/audio/speech/../../keys", `{"name":"sneaky"}`},
		{"POST", "/v1/audio/speech/./../../v1/keys", `{"name":"sneaky"}`},
		{"GET", "/v1/./models", ""},
		{"GET", "/v1/audio/../models", ""},
		{"GET", "/v1/models/..", ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			res := e.do(tc.method, tc.path, e.key, "application/json", strings.NewReader(tc.body))
			apiError(t, res, 404, wire.CodeNotFound)
		})
	}
	after, _ := e.store.Keys(t.Context(), "local")
	if len(after) != len(before) {
		t.Errorf("a key was created through an encoded path: %d keys, then %d", len(before), len(after))
	}
	// The clean forms still route.
	if res := e.do("GET", "/v1/models/en-us", e.key, "", nil); res.StatusCode != 200 {
		t.Errorf("GET /v1/models/en-us: %d", res.StatusCode)
	}
}

func TestErrorsEchoBoundedStrings(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := newEnv(t, envOptions{})
	long := strings.Repeat("v", 500<<10)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"voice", "POST", "/v1/audio/speech", `{"voice":"` + long + `","input":"hi"}`, 404, wire.CodeVoiceNotFound},
		{"voice object", "POST", "/v1/audio/speech", `{"voice":{"id":"` + long + `"},"input":"hi"}`, 404, wire.CodeVoiceNotFound},
		{"response_format", "POST", "/v1/audio/speech", `{"voice":"en-us","input":"hi","response_format":"` + long + `"}`, 400, wire.CodeInvalidValue},
		{"stream_format", "POST", "/v1/audio/speech", `{"voice":"en-us","input":"hi","stream_format":"` + long + `"}`, 400, wire.CodeInvalidValue},
		{"strict tag", "POST", "/v1/audio/speech", `{"voice":"en-us","input":"hi <|x:` + long[:3000] + `|>","strict_tags":true}`, 400, wire.CodeInvalidTags},
		{"model path", "GET", "/v1/models/" + long[:60000], "", 404, wire.CodeModelNotFound},
		{"unknown path", "GET", "/v1/" + long[:60000], "", 404, wire.CodeNotFound},
		{"control characters", "POST", "/v1/audio/speech", `{"voice":"a\u001b]0;pwned\u0007\r\nb","input":"hi"}`, 404, wire.CodeVoiceNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.do(tc.method, tc.path, e.key, "application/json", strings.NewReader(tc.body))
			got := apiError(t, res, tc.status, tc.code)
			if len(got.Message) > 1100 || strings.Contains(got.Message, strings.Repeat("v", 100)) {
				t.Errorf("message of %d bytes echoes the client's string: %.200q…", len(got.Message), got.Message)
			}
			if strings.ContainsAny(got.Message, "\x1b\x07\r\n") {
				t.Errorf("message holds control characters: %q", got.Message)
			}
		})
	}
}

func TestOutOfRangeNumbers(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, tc := range []struct {
		path, body, code, param string
	}{
		{"/v1/audio/speech", `{"voice":"en-us","input":"hi","speed":1e309}`, wire.CodeDecimalTooLarge, "speed"},
		{"/v1/audio/speech", `{"voice":"en-us","input":"hi","speed":-1e309}`, wire.CodeDecimalTooSmall, "speed"},
		{"/v1/voices", `{"name":"n","base_voice":"en-us","pitch":1e400}`, wire.CodeDecimalTooLarge, "pitch"},
	} {
		res := e.do("POST", tc.path, e.key, "application/json", strings.NewReader(tc.body))
		got := apiError(t, res, 400, tc.code)
		if got.Param != tc.param || strings.Contains(got.Message, "must be a number") {
			t.Errorf("%s: param %q message %q", tc.body, got.Param, got.Message)
		}
	}
}

// syncBuffer is a log destination the server writes while a test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// requestLine waits for the access-log line of the request id and
// returns it.
func (s *syncBuffer) requestLine(t *testing.T, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		sc := bufio.NewScanner(bytes.NewReader(s.b.Bytes()))
		s.mu.Unlock()
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "request" && m["request_id"] == id {
				return m
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no access-log line for request %s", id)
	return nil
}

func TestAccessLogTellsAborted(t *testing.T) {
	t.Parallel() // a long test, alongside the others that wait on the slow engine
	var log syncBuffer
	e := newEnv(t, envOptions{log: &log, writeTimeout: 300 * time.Millisecond})
	speech := func(ctx context.Context, id, voice, format string, sentences int) (*http.Response, error) {
		body := `{"voice":"` + voice + `","input":"` + strings.Repeat("One more sentence is spoken here. ", sentences) +
			`","response_format":"` + format + `"}`
		req, _ := http.NewRequestWithContext(ctx, "POST", e.ts.URL+"/v1/audio/speech", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.key)
		req.Header.Set("X-Request-Id", id)
		return e.ts.Client().Do(req)
	}
	check := func(t *testing.T, id string, status float64) {
		t.Helper()
		line := log.requestLine(t, id)
		if line["aborted"] != true || line["status"] != status || line["abort_reason"] == nil {
			t.Errorf("access log: %v; want status %v aborted=true with an abort_reason", line, status)
		}
	}

	t.Run("client leaves a stream", func(t *testing.T) {
		res, err := speech(t.Context(), "leaves-stream", "slow", "pcm", 60)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(res.Body, make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
		res.Body.Close() // the rest of the stream is never read
		check(t, "leaves-stream", 200)
	})
	t.Run("client leaves before any audio", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(100*time.Millisecond, cancel)
		if _, err := speech(ctx, "leaves-early", "slow", "wav", 60); err == nil {
			t.Fatal("the request finished before it was cancelled")
		}
		check(t, "leaves-early", 499)
	})
	t.Run("client stops reading a clip", func(t *testing.T) {
		res, err := speech(t.Context(), "stops-reading", "en-us", "wav", 110) // about 12 MB
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		line := log.requestLine(t, "stops-reading") // logged while the body is unread
		if line["aborted"] != true || line["status"] != float64(200) || line["bytes"] == res.ContentLength {
			t.Errorf("access log: %v; want status 200 aborted=true and fewer bytes than %d", line, res.ContentLength)
		}
	})
}

func TestClampedTagsAreReported(t *testing.T) {
	e := newEnv(t, envOptions{})
	input := `Hello <|pause:6s|> there. <|rate:9|>Fast now. <|wink|> Done.`
	for _, format := range []string{"wav", "pcm"} {
		t.Run(format, func(t *testing.T) {
			res := e.do("POST", "/v1/audio/speech", e.key, "application/json",
				strings.NewReader(`{"voice":"fake","input":"`+input+`","response_format":"`+format+`"}`))
			defer res.Body.Close()
			io.Copy(io.Discard, res.Body) // trailers arrive after the body
			h := res.Header
			if format == "pcm" {
				h = res.Trailer
			}
			if res.StatusCode != 200 || h.Get("x-clamped-tags") != "pause:6s,rate:9" || h.Get("x-ignored-tags") != "wink" {
				t.Errorf("%d x-clamped-tags=%q x-ignored-tags=%q; want pause:6s,rate:9 and wink",
					res.StatusCode, h.Get("x-clamped-tags"), h.Get("x-ignored-tags"))
			}
		})
	}
}
