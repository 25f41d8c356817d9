package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

var limits = SpeechLimits{Formats: []string{"pcm", "wav"}, MaxInput: 10, MinSpeed: 0.25, MaxSpeed: 4}

func TestParseSpeech(t *testing.T) {
	for _, tc := range []struct {
		body string
		want Speech
	}{
		{`{"voice":"a","input":"hi"}`, Speech{Voice: "a", Input: "hi", Format: "wav", Speed: 1, StreamFormat: "audio"}},
		{`{"voice":{"id":"a"},"input":"hi","response_format":"pcm","speed":2,"model":"tts-1","instructions":"x","stream_format":"sse","extra":[1]}`,
			Speech{Voice: "a", Input: "hi", Format: "pcm", Speed: 2, Model: "tts-1", Instructions: "x", StreamFormat: "sse"}},
		{`{"voice":"a","input":"hi","speed":null,"response_format":null,"strict_tags":true}`,
			Speech{Voice: "a", Input: "hi", Format: "wav", Speed: 1, StreamFormat: "audio", StrictTags: true}},
		{` {"voice":"a","input":"éééééééééé"} `, Speech{Voice: "a", Input: "éééééééééé", Format: "wav", Speed: 1, StreamFormat: "audio"}},
	} {
		got, err := ParseSpeech([]byte(tc.body), limits)
		if err != nil || got != tc.want {
			t.Errorf("ParseSpeech(%s) = %+v, %v; want %+v", tc.body, got, err, tc.want)
		}
	}
	got, _ := ParseSpeech([]byte(`{"voice":"a","input":"hi"}`), SpeechLimits{DefaultFormat: "pcm"})
	if got.Format != "pcm" {
		t.Errorf("DefaultFormat not applied: %q", got.Format)
	}
}

func TestParseSpeechErrors(t *testing.T) {
	for _, tc := range []struct {
		body, code, param string
	}{
		{`{`, CodeInvalidJSON, ""},
		{``, CodeInvalidJSON, ""},
		{`null`, CodeInvalidJSON, ""},
		{`{} {}`, CodeInvalidJSON, ""},
		{`{"voice":"a","input":"hi"}}`, CodeInvalidJSON, ""},
		{`{"voice":"a","input":"hi"}]`, CodeInvalidJSON, ""},
		{`{"voice":"a","input":"hi"} } ]`, CodeInvalidJSON, ""},
		{`{"voice":"a","input":"hi"}}0`, CodeInvalidJSON, ""},
		{"{\"voice\":\"a\",\"input\":\"\xff\"}", CodeInvalidJSON, ""},
		{`{"input":"hi"}`, CodeMissingParameter, "voice"},
		{`{"voice":true,"input":"hi"}`, CodeInvalidType, "voice"},
		{`{"voice":{"name":"a"},"input":"hi"}`, CodeMissingParameter, "voice.id"},
		{`{"voice":"a"}`, CodeMissingParameter, "input"},
		{`{"voice":"a","input":""}`, CodeStringTooShort, "input"},
		{`{"voice":"a","input":"12345678901"}`, CodeStringTooLong, "input"},
		{`{"voice":"a","input":"hi","response_format":"mp3"}`, CodeInvalidValue, "response_format"},
		{`{"voice":"a","input":"hi","speed":0.24}`, CodeDecimalTooSmall, "speed"},
		{`{"voice":"a","input":"hi","speed":4.5}`, CodeDecimalTooLarge, "speed"},
		{`{"voice":"a","input":"hi","speed":[1]}`, CodeInvalidType, "speed"},
		{`{"voice":"a","input":"hi","stream_format":"x"}`, CodeInvalidValue, "stream_format"},
		{`{"voice":"a","input":"hi","strict_tags":1}`, CodeInvalidType, "strict_tags"},
	} {
		_, err := ParseSpeech([]byte(tc.body), limits)
		var we *Error
		if !errors.As(err, &we) || we.Status != 400 || we.Code != tc.code || we.Param != tc.param || we.Type != TypeInvalidRequest {
			t.Errorf("ParseSpeech(%q) error %+v; want code %q param %q", tc.body, we, tc.code, tc.param)
		}
	}
}

func TestToError(t *testing.T) {
	for _, tc := range []struct {
		err       error
		status    int
		typ, code string
		param     string
	}{
		{fmt.Errorf("%w %q", tts.ErrUnknownVoice, "x"), 404, TypeProxy, CodeVoiceNotFound, "voice"},
		{tts.ErrEmptyInput, 400, TypeInvalidRequest, CodeStringTooShort, "input"},
		{fmt.Errorf("%w: 5000", tts.ErrInputTooLong), 400, TypeInvalidRequest, CodeStringTooLong, "input"},
		{&tts.SpeedError{Speed: 5}, 400, TypeInvalidRequest, CodeDecimalTooLarge, "speed"},
		{&tts.SpeedError{Speed: 0.1}, 400, TypeInvalidRequest, CodeDecimalTooSmall, "speed"},
		{tts.ErrBadSpeed, 400, TypeInvalidRequest, CodeInvalidValue, "speed"},
		{tts.ErrUnsupportedFormat, 400, TypeInvalidRequest, CodeUnsupportedFormat, "response_format"},
		{tts.ErrBadTags, 400, TypeInvalidRequest, CodeInvalidTags, "input"},
		{errors.New("engine exploded"), 502, TypeProxy, CodeEngineError, ""},
		{BodyTooLarge(5), 413, TypeInvalidRequest, CodeBodyTooLarge, ""},
	} {
		got := ToError(tc.err, "x")
		if got.Status != tc.status || got.Type != tc.typ || got.Code != tc.code || got.Param != tc.param {
			t.Errorf("ToError(%v) = %+v", tc.err, got)
		}
	}
}

func TestErrorJSON(t *testing.T) {
	for _, tc := range []struct {
		e    *Error
		want string
	}{
		{UnknownVoice("zz"), `{"error":{"message":"The voice \"zz\" is unknown. GET /v1/models lists the voices this key may use.","type":"proxy_error","param":"voice","code":"voice_not_found"}}`},
		{&Error{Status: 500, Message: "m", Type: TypeServer}, `{"error":{"message":"m","type":"server_error","param":null,"code":null}}`},
	} {
		b, err := json.Marshal(tc.e)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal = %s, %v; want %s", b, err, tc.want)
		}
		var back Error
		if err := json.Unmarshal(b, &back); err != nil || back.Message != tc.e.Message || back.Code != tc.e.Code || back.Param != tc.e.Param {
			t.Errorf("round trip: %+v %v", back, err)
		}
	}
}

func TestModels(t *testing.T) {
	created := time.Unix(1700000000, 0)
	l := FromVoices([]voices.Voice{{ID: "g", Created: created}, {ID: "c", Owner: "acct", Created: created}})
	b, _ := json.Marshal(l)
	want := `{"object":"list","data":[{"id":"g","object":"model","created":1700000000,"owned_by":"service"},` +
		`{"id":"c","object":"model","created":1700000000,"owned_by":"user"}]}`
	if string(b) != want {
		t.Errorf("got %s", b)
	}
	if b, _ := json.Marshal(FromVoices(nil)); string(b) != `{"object":"list","data":[]}` {
		t.Errorf("empty list %s", b)
	}
}

func TestSSE(t *testing.T) {
	if got := string(SSEDelta([]byte{0, 1, 2})); got != "data: {\"type\":\"speech.audio.delta\",\"audio\":\"AAEC\"}\n\n" {
		t.Errorf("delta %q", got)
	}
	u := NewUsage("héllo", 1001*time.Millisecond)
	want := "data: {\"type\":\"speech.audio.done\",\"usage\":{\"input_tokens\":5,\"output_tokens\":51,\"total_tokens\":56}}\n\ndata: [DONE]\n\n"
	if got := string(SSEDone(u)); got != want {
		t.Errorf("done %q", got)
	}
	if got := string(SSEError(Internal("r1"))); !strings.HasPrefix(got, `data: {"error":{`) {
		t.Errorf("error event %q", got)
	}
}
