package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
)

// show prints a VoiceCreate with its optional settings dereferenced.
func show(v VoiceCreate) string {
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	w := "-"
	if v.Whisper != nil {
		w = fmt.Sprint(*v.Whisper)
	}
	return fmt.Sprintf("id=%s name=%s base=%s speed=%s pitch=%s range=%s volume=%s whisper=%s",
		v.ID, v.Name, v.BaseVoice, f(v.Speed), f(v.Pitch), f(v.Range), f(v.Volume), w)
}

func TestParseVoiceCreate(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"minimal", `{"name":"Fast","base_voice":"en-us"}`, "id= name=Fast base=en-us speed=- pitch=- range=- volume=- whisper=-"},
		{"everything", `{"id":"my-voice","name":"x","base_voice":"b","speed":2,"pitch":-3.5,"range":0.5,"volume":0,"whisper":true}`,
			"id=my-voice name=x base=b speed=2 pitch=-3.5 range=0.5 volume=0 whisper=true"},
		{"limits", `{"name":"x","base_voice":"b","speed":0.25,"pitch":12,"range":2,"volume":2,"whisper":false}`,
			"id= name=x base=b speed=0.25 pitch=12 range=2 volume=2 whisper=false"},
		{"null is absent", `{"id":null,"name":"x","base_voice":"b","speed":null,"whisper":null}`,
			"id= name=x base=b speed=- pitch=- range=- volume=- whisper=-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseVoiceCreate([]byte(tt.body))
			if err != nil || show(got) != tt.want {
				t.Errorf("ParseVoiceCreate(%s) = %s, %v; want %s", tt.body, show(got), err, tt.want)
			}
		})
	}
}

func TestParseVoiceCreateErrors(t *testing.T) {
	tests := []struct {
		name, body, code, param string
	}{
		{"not JSON", `{`, fault.CodeInvalidJSON, ""},
		{"null", `null`, fault.CodeInvalidJSON, ""},
		{"trailing", `{"name":"x","base_voice":"b"}}`, fault.CodeInvalidJSON, ""},
		{"no name", `{"base_voice":"b"}`, fault.CodeMissingParameter, "name"},
		{"blank name", `{"name":"  ","base_voice":"b"}`, fault.CodeStringTooShort, "name"},
		{"long name", `{"name":"` + strings.Repeat("é", MaxVoiceName+1) + `","base_voice":"b"}`, fault.CodeStringTooLong, "name"},
		{"name not a string", `{"name":1,"base_voice":"b"}`, fault.CodeInvalidType, "name"},
		{"no base", `{"name":"x"}`, fault.CodeMissingParameter, "base_voice"},
		{"empty base", `{"name":"x","base_voice":""}`, fault.CodeStringTooShort, "base_voice"},
		{"bad id", `{"id":"a b","name":"x","base_voice":"b"}`, fault.CodeInvalidValue, "id"},
		{"empty id", `{"id":"","name":"x","base_voice":"b"}`, fault.CodeInvalidValue, "id"},
		{"speed string", `{"name":"x","base_voice":"b","speed":"2"}`, fault.CodeInvalidType, "speed"},
		{"whisper not bool", `{"name":"x","base_voice":"b","whisper":"yes"}`, fault.CodeInvalidType, "whisper"},
		{"unknown field", `{"name":"x","base_voice":"b","pich":2}`, fault.CodeUnknownParameter, "pich"},
		{"audio", `{"name":"x","base_voice":"b","audio":"UklGRg=="}`, fault.CodeInvalidValue, "audio"},
		{"file", `{"name":"x","file":"sample.wav"}`, fault.CodeInvalidValue, "file"},
		{"audio_url", `{"audio_url":"https://example.com/a.wav"}`, fault.CodeInvalidValue, "audio_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseVoiceCreate([]byte(tt.body))
			var we *Error
			if !errors.As(err, &we) || we.Status != 400 || we.Code != tt.code || we.Param != tt.param {
				t.Fatalf("ParseVoiceCreate(%s) = %v (%+v); want 400 %s param %q", tt.body, err, we, tt.code, tt.param)
			}
			if strings.HasPrefix(tt.param, "audio") || tt.param == "file" {
				if !strings.Contains(we.Message, "Cloning from audio is not supported") {
					t.Errorf("message %q", we.Message)
				}
			}
		})
	}
}

func TestVoiceJSON(t *testing.T) {
	sv := store.Voice{ID: "v1", Account: "a", Base: "en-us", Name: "Fast", Speed: 2, Pitch: -1, Range: 1, Volume: 0.5,
		Whisper: true, Created: time.Unix(1700000000, 0)}
	b, _ := json.Marshal(FromStoredVoices([]store.Voice{sv}))
	want := `{"object":"list","data":[{"id":"v1","object":"voice","name":"Fast","base_voice":"en-us","owned_by":"user",` +
		`"created":1700000000,"speed":2,"pitch":-1,"range":1,"volume":0.5,"whisper":true}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if b, _ := json.Marshal(FromStoredVoices(nil)); string(b) != `{"object":"list","data":[]}` {
		t.Errorf("empty list: %s", b)
	}
	e := fault.VoiceNotFound("x")
	if e.Status != 404 || e.Type != fault.TypeInvalidRequest || e.Param != "id" {
		t.Errorf("fault.VoiceNotFound = %+v", e)
	}
	if e := fault.VoiceIDTaken("x"); e.Status != 409 || e.Code != fault.CodeVoiceExists {
		t.Errorf("fault.VoiceIDTaken = %+v", e)
	}
}

// FuzzParseVoiceCreate: any body is either parsed into settings within
// their limits or refused with a 400 *Error.
func FuzzParseVoiceCreate(f *testing.F) {
	for _, s := range []string{`{"name":"x","base_voice":"b","speed":2}`, `{"audio":1}`, `{`, `null`,
		`{"id":"a b","name":"x","base_voice":"b"}`, `{"name":"x","base_voice":"b","volume":-0}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		v, err := ParseVoiceCreate([]byte(body))
		if err != nil {
			var we *Error
			if !errors.As(err, &we) || we.Status != 400 {
				t.Fatalf("error %v is not a 400 *Error", err)
			}
			return
		}
		in := func(p *float64, lo, hi float64) bool { return p == nil || *p >= lo && *p <= hi }
		if v.Name == "" || v.BaseVoice == "" || !in(v.Speed, 0.25, 4) || !in(v.Pitch, -12, 12) || !in(v.Range, 0.5, 2) || !in(v.Volume, 0, 2) {
			t.Fatalf("accepted %s as %s", body, show(v))
		}
	})
}
