package wire

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

func TestParseSpeech(t *testing.T) {
	for _, tc := range []struct {
		body string
		want Speech
	}{
		{`{"voice":"a","input":"hi"}`, Speech{Voice: "a", Input: "hi", Format: "wav", Speed: 1, StreamFormat: "audio", Normalize: true}},
		{`{"voice":{"id":"a"},"input":"hi","response_format":"pcm","speed":2,"model":"tts-1","instructions":"x","stream_format":"sse","extra":[1]}`,
			Speech{Voice: "a", Input: "hi", Format: "pcm", Speed: 2, Model: "tts-1", Instructions: "x", StreamFormat: "sse", Normalize: true}},
		{`{"voice":"a","input":"hi","speed":null,"response_format":null,"strict_tags":true}`,
			Speech{Voice: "a", Input: "hi", Format: "wav", Speed: 1, StreamFormat: "audio", StrictTags: true, Normalize: true}},
		{` {"voice":"a","input":"éééééééééé"} `, Speech{Voice: "a", Input: "éééééééééé", Format: "wav", Speed: 1, StreamFormat: "audio", Normalize: true}},
		{`{"voice":"a","input":"hi","lexicons":["lex_a","lex_b"]}`,
			Speech{Voice: "a", Input: "hi", Format: "wav", Speed: 1, StreamFormat: "audio", Normalize: true, Lexicons: []string{"lex_a", "lex_b"}}},
		{`{"voice":"a","input":"hi","lexicons":[]}`,
			Speech{Voice: "a", Input: "hi", Format: "wav", Speed: 1, StreamFormat: "audio", Normalize: true, Lexicons: []string{}}},
		{`{"voice":"a","input":"hi","seed":-42}`, Speech{Voice: "a", Input: "hi", Format: "wav", Speed: 1, StreamFormat: "audio", Normalize: true, Seed: -42}},
		// A body saved by an editor (or PowerShell) that writes a UTF-8
		// byte order mark first: RFC 8259 lets a parser ignore it.
		{"\uFEFF{\"voice\":\"a\",\"input\":\"hi\"}", Speech{Voice: "a", Input: "hi", Format: "wav", Speed: 1, StreamFormat: "audio", Normalize: true}},
	} {
		got, err := ParseSpeech([]byte(tc.body), "")
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseSpeech(%s) = %+v, %v; want %+v", tc.body, got, err, tc.want)
		}
	}
	got, _ := ParseSpeech([]byte(`{"voice":"a","input":"hi"}`), "pcm")
	if got.Format != "pcm" {
		t.Errorf("DefaultFormat not applied: %q", got.Format)
	}
}

func TestParseSpeechErrors(t *testing.T) {
	for _, tc := range []struct {
		body, code, param string
	}{
		{`{`, fault.CodeInvalidJSON, ""},
		{``, fault.CodeInvalidJSON, ""},
		{`null`, fault.CodeInvalidJSON, ""},
		{`{} {}`, fault.CodeInvalidJSON, ""},
		{`{"voice":"a","input":"hi"}}`, fault.CodeInvalidJSON, ""},
		{`{"voice":"a","input":"hi"}]`, fault.CodeInvalidJSON, ""},
		{`{"voice":"a","input":"hi"} } ]`, fault.CodeInvalidJSON, ""},
		{`{"voice":"a","input":"hi"}}0`, fault.CodeInvalidJSON, ""},
		{"{\"voice\":\"a\",\"input\":\"\xff\"}", fault.CodeInvalidJSON, ""},
		{`{"input":"hi"}`, fault.CodeMissingParameter, "voice"},
		{`{"voice":true,"input":"hi"}`, fault.CodeInvalidType, "voice"},
		{`{"voice":{"name":"a"},"input":"hi"}`, fault.CodeMissingParameter, "voice.id"},
		{`{"voice":"a"}`, fault.CodeMissingParameter, "input"},
		{`{"voice":"a","input":"hi","response_format":7}`, fault.CodeInvalidType, "response_format"},
		{`{"voice":"a","input":"hi","speed":1e400}`, fault.CodeDecimalTooLarge, "speed"},
		{`{"voice":"a","input":"hi","speed":[1]}`, fault.CodeInvalidType, "speed"},
		{`{"voice":"a","input":"hi","stream_format":"x"}`, fault.CodeInvalidValue, "stream_format"},
		{`{"voice":"a","input":"hi","strict_tags":1}`, fault.CodeInvalidType, "strict_tags"},
		{`{"voice":"a","input":"hi","normalize":"no"}`, fault.CodeInvalidType, "normalize"},
		{`{"voice":"a","input":"hi","seed":0}`, fault.CodeInvalidValue, "seed"},
		{`{"voice":"a","input":"hi","seed":1.5}`, fault.CodeInvalidValue, "seed"},
		{`{"voice":"a","input":"hi","seed":"7"}`, fault.CodeInvalidType, "seed"},
		{`{"voice":"a","input":"hi","seed":true}`, fault.CodeInvalidType, "seed"},
		{`{"voice":"a","input":"hi","seed":[7]}`, fault.CodeInvalidType, "seed"},
		{`{"voice":"a","input":"hi","lexicons":[null]}`, fault.CodeInvalidType, "lexicons"},
		{`{"voice":"a","input":"hi","seed":1e30}`, fault.CodeInvalidValue, "seed"},
		{`{"voice":"a","input":"hi","lexicons":"lex_a"}`, fault.CodeInvalidType, "lexicons"},
		{`{"voice":"a","input":"hi","lexicons":["lex_a",1]}`, fault.CodeInvalidType, "lexicons"},
		{`{"voice":"a","input":"hi","lexicons":[""]}`, fault.CodeInvalidValue, "lexicons"},
	} {
		_, err := ParseSpeech([]byte(tc.body), "")
		var we *Error
		if !errors.As(err, &we) || we.Status != 400 || we.Code != tc.code || we.Param != tc.param || we.Type != fault.TypeInvalidRequest {
			t.Errorf("ParseSpeech(%q) error %+v; want code %q param %q", tc.body, we, tc.code, tc.param)
		}
	}
}

// TestEmptyInputParses: an input without text is tts's to refuse
// (tts.ErrEmptyInput, for every door alike), not the parser's.
func TestEmptyInputParses(t *testing.T) {
	for _, in := range []string{"", " \n\t "} {
		body, _ := json.Marshal(map[string]string{"voice": "a", "input": in})
		if sp, err := ParseSpeech(body, ""); err != nil || sp.Input != in {
			t.Errorf("ParseSpeech(%s) = %+v, %v; want the input as sent", body, sp, err)
		}
	}
}

// TestLexiconsItemNamed: a list with an id of the wrong type names the
// item, not the list.
func TestLexiconsItemNamed(t *testing.T) {
	_, err := ParseSpeech([]byte(`{"voice":"a","input":"hi","lexicons":["lex_a",{"id":"lex_b"}]}`), "")
	var we *Error
	if !errors.As(err, &we) || we.Message != "lexicons[1] must be a lexicon id (a string), got an object." {
		t.Errorf("error %+v", we)
	}
}

func TestToError(t *testing.T) {
	for _, tc := range []struct {
		err       error
		status    int
		typ, code string
		param     string
	}{
		{fmt.Errorf("%w %q", engine.ErrUnknownVoice, "x"), 404, fault.TypeProxy, fault.CodeVoiceNotFound, "voice"},
		{fmt.Errorf("tts: %w", &engine.UnsupportedVoiceError{Voice: "x", Reason: "it is Klingon"}), 400, fault.TypeInvalidRequest, fault.CodeInvalidValue, "voice"},
		{tts.ErrEmptyInput, 400, fault.TypeInvalidRequest, fault.CodeStringTooShort, "input"},
		{&tts.InputTooLongError{Length: 5000, Max: 4096}, 400, fault.TypeInvalidRequest, fault.CodeStringTooLong, "input"},
		{&tts.AudioLimitError{Limit: time.Minute}, 400, fault.TypeInvalidRequest, fault.CodeAudioTooLong, "input"},
		{&tts.SpeedError{Speed: 5, Min: 0.25, Max: 4}, 400, fault.TypeInvalidRequest, fault.CodeDecimalTooLarge, "speed"},
		{&tts.SpeedError{Speed: 0.1, Min: 0.25, Max: 4}, 400, fault.TypeInvalidRequest, fault.CodeDecimalTooSmall, "speed"},
		{&voices.SettingError{Setting: "range", Value: 3, Min: 0.5, Max: 2}, 400, fault.TypeInvalidRequest, fault.CodeDecimalTooLarge, "range"},
		{&tts.FormatError{Format: encode.Format{Name: "aac"}, Supported: []string{"wav"}, Err: errors.New("unknown")}, 400, fault.TypeInvalidRequest, fault.CodeInvalidValue, "response_format"},
		{&tts.FormatError{Format: encode.Format{Name: "wav", SampleRate: 3}, Supported: []string{"wav"}, Err: errors.New("rate")}, 400, fault.TypeInvalidRequest, fault.CodeUnsupportedFormat, "response_format"},
		{fmt.Errorf("%w: %w", tts.ErrBadTags, &tags.StrictError{}), 400, fault.TypeInvalidRequest, fault.CodeInvalidTags, "input"},
		{errors.New("engine exploded"), 502, fault.TypeProxy, fault.CodeEngineError, ""},
		{fault.BodyTooLarge(5), 413, fault.TypeInvalidRequest, fault.CodeBodyTooLarge, ""},
	} {
		got := fault.ToError(tc.err, "x")
		if got.Status != tc.status || got.Type != tc.typ || got.Code != tc.code || got.Param != tc.param {
			t.Errorf("fault.ToError(%v) = %+v", tc.err, got)
		}
	}
}

func TestErrorJSON(t *testing.T) {
	for _, tc := range []struct {
		e    *Error
		want string
	}{
		{fault.UnknownVoice("zz"), `{"error":{"message":"The voice \"zz\" is unknown. GET /v1/models lists the voices this key may use.","type":"proxy_error","param":"voice","code":"voice_not_found"}}`},
		{&Error{Status: 500, Message: "m", Type: fault.TypeServer}, `{"error":{"message":"m","type":"server_error","param":null,"code":null}}`},
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
	// Written in place, an event is what marshalling it would give, for
	// every base64 character and padding, into a reused buffer.
	var buf []byte
	for n := range 300 {
		audio := make([]byte, n)
		for i := range audio {
			audio[i] = byte(i*37 + n)
		}
		buf = AppendSSEDelta(buf[:0], audio)
		if want := sseData(AudioDelta{Type: EventAudioDelta, Audio: base64.StdEncoding.EncodeToString(audio)}); string(buf) != string(want) {
			t.Fatalf("%d bytes: %q, marshalled %q", n, buf, want)
		}
	}
	u := NewUsage("héllo", 1001*time.Millisecond)
	want := "data: {\"type\":\"speech.audio.done\",\"usage\":{\"input_tokens\":5,\"output_tokens\":51,\"total_tokens\":56}}\n\ndata: [DONE]\n\n"
	if got := string(SSEDone(u)); got != want {
		t.Errorf("done %q", got)
	}
	if got := string(SSEError(fault.Internal("r1"))); !strings.HasPrefix(got, `data: {"error":{`) {
		t.Errorf("error event %q", got)
	}
}

func TestParseWSMessage(t *testing.T) {
	m, err := ParseWSMessage([]byte(`{"type":"speech.create","id":"a","voice":"v","input_stream":true}`))
	if err != nil || m.Type != WSCreate || m.ID != "a" || m.SpeechErr != nil || !m.Speech.InputStream || m.Speech.Format != "pcm" {
		t.Errorf("create: %+v, %v", m, err)
	}
	m, err = ParseWSMessage([]byte(`{"type":"speech.create","id":"b","voice":"v","input":"hi","speed":"fast"}`))
	var we *Error
	if err != nil || m.ID != "b" || !errors.As(m.SpeechErr, &we) || we.Param != "speed" {
		t.Errorf("bad create: %+v, %v; its error is kept for its turn", m, err)
	}
	m, err = ParseWSMessage([]byte(`{"type":"input.append","id":"a","text":"Hello ","flush_id":"f"}`))
	if err != nil || m.Text != "Hello " || m.FlushID != "f" || m.SpeechErr != nil {
		t.Errorf("append: %+v, %v", m, err)
	}
	for _, bad := range []string{`{"type":`, `[1]`, `{"type":5}`, `{"type":"input.append","id":7}`, `{"type":"x"} {}`, "{\"type\":\"\xff\"}"} {
		if _, err := ParseWSMessage([]byte(bad)); !errors.As(err, &we) || we.Code != fault.CodeInvalidJSON {
			t.Errorf("%q: %v, want invalid_json", bad, err)
		}
	}
}

// TestParseWSConcurrent: "concurrent" marks an input stream to run beside
// the others; anything else about it is the request's error.
func TestParseWSConcurrent(t *testing.T) {
	for _, tc := range []struct {
		msg        string
		concurrent bool
		code       string // the SpeechErr's, on param concurrent; empty: none
	}{
		{`{"type":"speech.create","id":"a","voice":"v","input_stream":true,"concurrent":true}`, true, ""},
		{`{"type":"speech.create","id":"a","voice":"v","input_stream":true,"concurrent":false}`, false, ""},
		{`{"type":"speech.create","id":"a","voice":"v","input_stream":true,"concurrent":null}`, false, ""},
		{`{"type":"speech.create","id":"a","voice":"v","input_stream":true}`, false, ""},
		{`{"type":"speech.create","id":"a","voice":"v","input":"Hi.","concurrent":true}`, true, fault.CodeInvalidValue},
		{`{"type":"speech.create","id":"a","voice":"v","input_stream":true,"concurrent":"yes"}`, false, fault.CodeInvalidType},
		{`{"type":"input.append","id":"a","text":"Hi","concurrent":true}`, false, ""},
	} {
		m, err := ParseWSMessage([]byte(tc.msg))
		if err != nil {
			t.Fatalf("%s: %v", tc.msg, err)
		}
		var we *Error
		switch {
		case m.Concurrent != tc.concurrent:
			t.Errorf("%s: concurrent %v, want %v", tc.msg, m.Concurrent, tc.concurrent)
		case tc.code == "" && m.SpeechErr != nil:
			t.Errorf("%s: %v", tc.msg, m.SpeechErr)
		case tc.code != "" && (!errors.As(m.SpeechErr, &we) || we.Code != tc.code || we.Param != "concurrent" || we.Status != 400):
			t.Errorf("%s: error %v, want %s on concurrent", tc.msg, m.SpeechErr, tc.code)
		}
	}
	// An earlier error of the request stays the one answered.
	m, _ := ParseWSMessage([]byte(`{"type":"speech.create","id":"a","voice":"v","input":"Hi.","speed":"x","concurrent":true}`))
	var we *Error
	if !m.Concurrent || !errors.As(m.SpeechErr, &we) || we.Param != "speed" {
		t.Errorf("bad speed and concurrent: %+v", m)
	}
}

func TestWSAudioMessage(t *testing.T) {
	b, _ := json.Marshal(WSAudioMessage{Type: WSAudio, ID: "c1", Audio: []byte{0, 1, 2}})
	if string(b) != `{"type":"speech.audio","id":"c1","audio":"AAEC"}` {
		t.Errorf("speech.audio %s", b)
	}
	if e := fault.TooManyContexts(5); e.Status != 429 || e.Code != fault.CodeTooManyContexts || !strings.Contains(e.Message, "5") {
		t.Errorf("too many contexts %+v", e)
	}
}

// TestSpeechRoundTrip: what MarshalJSON writes, ParseSpeech reads back.
func TestSpeechRoundTrip(t *testing.T) {
	ms := 250
	for _, s := range []Speech{
		{Model: "tts-1", Voice: "v", Input: "Hi.", Format: "pcm", Speed: 1.5, StreamFormat: StreamAudio, Normalize: true, Seed: 7},
		{Voice: "v", Input: "Hi.", Format: "mp3", Speed: 1, StreamFormat: StreamSSE, Timestamps: TimestampsWord, StrictTags: true, Instructions: "calm"},
		{Voice: "v", Format: "pcm", Speed: 1, StreamFormat: StreamAudio, InputStream: true, MaxBufferDelayMS: &ms, Normalize: true},
		{Voice: SampleVoice([]byte("a sample")), Input: "Hi.", Format: "pcm", Speed: 1, StreamFormat: StreamAudio, VoiceSample: []byte("a sample")},
	} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseSpeech(b, "")
		if err != nil || !reflect.DeepEqual(got, s) {
			t.Errorf("%s → %+v, %v; want %+v", b, got, err, s)
		}
	}
}
