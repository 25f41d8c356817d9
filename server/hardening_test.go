package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/server/wire"
)

func TestEncodedSeparatorsAreNotRoutes(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	before, _ := e.Store.Keys(t.Context(), "local")
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
			res := e.Do(tc.method, tc.path, e.Key, "application/json", strings.NewReader(tc.body))
			testserver.APIError(t, res, 404, wire.CodeNotFound)
		})
	}
	after, _ := e.Store.Keys(t.Context(), "local")
	if len(after) != len(before) {
		t.Errorf("a key was created through an encoded path: %d keys, then %d", len(before), len(after))
	}
	// The clean forms still route.
	if res := e.Do("GET", "/v1/models/en-us", e.Key, "", nil); res.StatusCode != 200 {
		t.Errorf("GET /v1/models/en-us: %d", res.StatusCode)
	}
}

func TestErrorsEchoBoundedStrings(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.New(t, testserver.Options{})
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
			res := e.Do(tc.method, tc.path, e.Key, "application/json", strings.NewReader(tc.body))
			got := testserver.APIError(t, res, tc.status, tc.code)
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
	e := testserver.New(t, testserver.Options{})
	for _, tc := range []struct {
		path, body, code, param string
	}{
		{"/v1/audio/speech", `{"voice":"en-us","input":"hi","speed":1e309}`, wire.CodeDecimalTooLarge, "speed"},
		{"/v1/audio/speech", `{"voice":"en-us","input":"hi","speed":-1e309}`, wire.CodeDecimalTooSmall, "speed"},
		{"/v1/voices", `{"name":"n","base_voice":"en-us","pitch":1e400}`, wire.CodeDecimalTooLarge, "pitch"},
	} {
		res := e.Do("POST", tc.path, e.Key, "application/json", strings.NewReader(tc.body))
		got := testserver.APIError(t, res, 400, tc.code)
		if got.Param != tc.param || strings.Contains(got.Message, "must be a number") {
			t.Errorf("%s: param %q message %q", tc.body, got.Param, got.Message)
		}
	}
}

func TestAccessLogTellsAborted(t *testing.T) {
	t.Parallel() // a long test, alongside the others that wait on the slow engine
	var log testserver.SyncBuffer
	e := testserver.New(t, testserver.Options{Log: &log, WriteTimeout: 300 * time.Millisecond})
	const sentence = "One more sentence is spoken here. "
	speech := func(ctx context.Context, id, voice, format, input string) (*http.Response, error) {
		body := `{"voice":"` + voice + `","input":"` + input + `","response_format":"` + format + `"}`
		req, _ := http.NewRequestWithContext(ctx, "POST", e.TS.URL+"/v1/audio/speech", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.Key)
		req.Header.Set("X-Request-Id", id)
		return e.TS.Client().Do(req)
	}
	check := func(t *testing.T, id string, status float64) {
		t.Helper()
		line := log.RequestLine(t, id)
		if line["aborted"] != true || line["status"] != status || line["abort_reason"] == nil {
			t.Errorf("access log: %v; want status %v aborted=true with an abort_reason", line, status)
		}
	}

	t.Run("client leaves a stream", func(t *testing.T) {
		res, err := speech(t.Context(), "leaves-stream", "slow", "pcm", strings.Repeat(sentence, 60))
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
		if _, err := speech(ctx, "leaves-early", "slow", "wav", strings.Repeat(sentence, 60)); err == nil {
			t.Fatal("the request finished before it was cancelled")
		}
		check(t, "leaves-early", 499)
	})
	t.Run("client stops reading a clip", func(t *testing.T) {
		// About 12 MB: 50 short tones and 5 s pauses of the fake voice,
		// which cost little to make.
		res, err := speech(t.Context(), "stops-reading", "fake", "wav", strings.Repeat("Hi. <|pause:5s|> ", 50))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		line := log.RequestLine(t, "stops-reading") // logged while the body is unread
		if line["aborted"] != true || line["status"] != float64(200) || line["bytes"] == res.ContentLength {
			t.Errorf("access log: %v; want status 200 aborted=true and fewer bytes than %d", line, res.ContentLength)
		}
	})
}

func TestClampedTagsAreReported(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	input := `Hello <|pause:6s|> there. <|rate:9|>Fast now. <|wink|> Done.`
	for _, format := range []string{"wav", "pcm"} {
		t.Run(format, func(t *testing.T) {
			res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
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
