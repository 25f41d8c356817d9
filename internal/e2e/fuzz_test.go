package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
)

// tagText matches a well-formed audio tag (docs/tags.md): one must never
// reach an engine, that is, never be read aloud.
var tagText = regexp.MustCompile(`<\|/?[a-z0-9_-]+(:[^|<>\s]*)?\|>`)

// spoken collects what engines were asked to say that they must not.
type spoken struct {
	mu  sync.Mutex
	bad []string
}

func (s *spoken) check(req engine.Request) {
	if tagText.MatchString(req.Text) {
		s.mu.Lock()
		s.bad = append(s.bad, req.Text)
		s.mu.Unlock()
	}
}

func (s *spoken) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bad
	s.bad = nil
	return b
}

// speechInvariants checks one response to a POST /v1/audio/speech body:
// no 5xx (the fake engine does not fail), every error OpenAI-shaped JSON,
// every success audio whose Content-Type and bytes match the format asked
// for (or an SSE stream when asked for one).
func speechInvariants(body []byte, status int, h http.Header, resp []byte) error {
	if status >= 500 {
		return fmt.Errorf("status %d: %s", status, resp)
	}
	if status < 200 || status > 299 {
		_, err := checkError(h, resp)
		return err
	}
	var req map[string]json.RawMessage
	// A leading byte order mark is skipped, as RFC 8259 lets a parser do
	// (docs/server.md).
	if err := json.Unmarshal(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), &req); err != nil {
		return fmt.Errorf("status %d for a body that is not a JSON object", status)
	}
	var stream string
	json.Unmarshal(req["stream_format"], &stream)
	if stream == "sse" {
		if ct := h.Get("Content-Type"); ct != "text/event-stream" {
			return fmt.Errorf("sse Content-Type %q", ct)
		}
		if !bytes.HasSuffix(resp, []byte("data: [DONE]\n\n")) {
			return fmt.Errorf("sse stream does not end with [DONE]: …%q", resp[max(0, len(resp)-80):])
		}
		return nil
	}
	format := "wav"
	json.Unmarshal(req["response_format"], &format)
	return checkAudio(h, resp, format)
}

// FuzzSpeechBody posts arbitrary bodies to POST /v1/audio/speech on the
// real handler (SQLite store, real encoders, the fake engine) and checks
// speechInvariants and that no well-formed tag is ever read aloud.
func FuzzSpeechBody(f *testing.F) {
	for _, s := range []string{
		`{"model":"tts-1","voice":"alloy","input":"Hello there.","response_format":"mp3"}`,
		`{"voice":"fake","input":"<|slow|>Hi <|pause|> there<|/slow|>.","response_format":"opus","speed":1.5}`,
		`{"voice":{"id":"fake"},"input":"a <| b |> c","response_format":"flac"}`,
		`{"voice":"fake","input":"One. Two! Three?","response_format":"pcm","stream_format":"sse"}`,
		`{"voice":"fake","input":"x","response_format":"wav","speed":0.25,"instructions":"Speak cheerfully"}`,
		`{"voice":"fake","input":"x","voice":"alloy","input":"<|whisper|>y","extra":[1,{"a":null}]}`,
		`{"voice":"other-clone","input":"x"}`,
		`{"voice":"fake","input":"<|voice:other-clone|>x<|sl<|x|>ow|>odd","strict_tags":false}`,
		`{"voice":"fake","input":"x","strict_tags":true,"response_format":"pcm"}`,
		`{"voice":"fake","input":"\u00e9\u0301 \ud83d\ude00 \u05e9\u05dc\u05d5\u05dd","speed":1e309}`,
		`{"voice":"fake","input":null,"speed":"NaN"}`,
		"\xef\xbb\xbf{\"voice\":\"fake\",\"input\":\"bom\"}",
		`[1,2,3]`, `null`, ``, `{"voice":"fake","input":"x"} {}`,
	} {
		f.Add([]byte(s))
	}
	var said spoken
	e := newEnv(f, envOptions{noListen: true, letter: time.Millisecond, guard: said.check})
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/v1/audio/speech", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.key)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, req)
		if testing.Verbose() {
			t.Logf("%d %s %d bytes", rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
		}
		if err := speechInvariants(body, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
			t.Fatalf("body %q: %v", body, err)
		}
		if bad := said.take(); len(bad) > 0 {
			t.Fatalf("body %q: engine asked to say tag text %q", body, bad)
		}
	})
}
