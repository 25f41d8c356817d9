package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/voices"
)

// MaxVoiceName is the longest name of a voice clone, in characters.
const MaxVoiceName = 100

// CodeUnknownParameter is the code of a request field the endpoint does
// not know, where a typo would otherwise be ignored silently.
const CodeUnknownParameter = "unknown_parameter"

// audioFields are body fields a client uploading a voice sample might
// send in JSON; recordings come as multipart/form-data.
var audioFields = []string{"audio", "audio_file", "audio_url", "file", "files", "reference_audio", "sample", "samples"}

// VoiceCreate is a parsed POST /v1/voices body. A setting the client left
// out is nil, so a clone of a clone can take it from its base.
type VoiceCreate struct {
	// ID is the id asked for; empty means the server makes one.
	ID   string
	Name string
	// BaseVoice is the voice the clone speaks with: a global voice or
	// another clone of the caller.
	BaseVoice string
	Speed     *float64
	Pitch     *float64
	Range     *float64
	Volume    *float64
	Whisper   *bool
}

// ParseVoiceCreate decodes and checks a POST /v1/voices body. Every
// failure is a *Error with status 400 naming the field at fault; unknown
// fields are refused, and audio fields get CloningFromAudio.
func ParseVoiceCreate(body []byte) (VoiceCreate, error) {
	raw, err := decodeObject(body, `{"name":"...","base_voice":"..."}`)
	if err != nil {
		return VoiceCreate{}, err
	}
	for _, f := range audioFields {
		if _, ok := raw[f]; ok {
			return VoiceCreate{}, CloningFromAudio(f)
		}
	}
	known := []string{"id", "name", "base_voice", "speed", "pitch", "range", "volume", "whisper"}
	for _, f := range slices.Sorted(func(yield func(string) bool) {
		for k := range raw {
			if !yield(k) {
				return
			}
		}
	}) {
		if !slices.Contains(known, f) {
			return VoiceCreate{}, BadRequest(CodeUnknownParameter, f, "Unknown parameter: '%s'. Known parameters: %s.",
				printableField(f), strings.Join(known, ", "))
		}
	}
	var v VoiceCreate
	var ok bool
	if v.ID, ok, err = stringField(raw, "id"); err != nil {
		return VoiceCreate{}, err
	} else if ok {
		var bad *voices.IDError
		if err := voices.ValidateID(v.ID); errors.As(err, &bad) {
			return VoiceCreate{}, BadRequest(CodeInvalidValue, "id", "%s.", bad.Reason)
		}
	}
	if v.Name, ok, err = stringField(raw, "name"); err != nil {
		return VoiceCreate{}, err
	} else if !ok {
		return VoiceCreate{}, BadRequest(CodeMissingParameter, "name", "Missing required parameter: 'name'.")
	}
	if err := checkVoiceName(v.Name); err != nil {
		return VoiceCreate{}, err
	}
	if v.BaseVoice, ok, err = stringField(raw, "base_voice"); err != nil {
		return VoiceCreate{}, err
	} else if !ok {
		return VoiceCreate{}, BadRequest(CodeMissingParameter, "base_voice", "Missing required parameter: 'base_voice'.")
	}
	if v.BaseVoice == "" {
		return VoiceCreate{}, BadRequest(CodeStringTooShort, "base_voice", "base_voice must not be empty.")
	}
	for _, f := range []struct {
		name string
		dst  **float64
	}{{"speed", &v.Speed}, {"pitch", &v.Pitch}, {"range", &v.Range}, {"volume", &v.Volume}} {
		if *f.dst, err = numberField(raw, f.name); err != nil {
			return VoiceCreate{}, err
		}
	}
	if w, present := raw["whisper"]; present && !isNull(w) {
		var b bool
		if err := json.Unmarshal(w, &b); err != nil {
			return VoiceCreate{}, BadRequest(CodeInvalidType, "whisper", "whisper must be a boolean, got %s.", kind(w))
		}
		v.Whisper = &b
	}
	return v, nil
}

// numberField reads raw[name] as a number; nil when absent or null.
func numberField(raw map[string]json.RawMessage, name string) (*float64, error) {
	v, present := raw[name]
	if !present || isNull(v) {
		return nil, nil
	}
	x, err := numberValue(v, name)
	if err != nil {
		return nil, err
	}
	return &x, nil
}

// printableField shortens and cleans a client's field name for a message.
func printableField(f string) string {
	f = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, f)
	if utf8.RuneCountInString(f) > 40 {
		f = string([]rune(f)[:40]) + "…"
	}
	return f
}

// CloningFromAudio is the 400 for a voice-creation request carrying audio.
func CloningFromAudio(param string) *Error {
	return BadRequest(CodeInvalidValue, param, "Cloning from audio is not supported in a JSON body: upload the recording as "+
		"multipart/form-data (fields name and audio, optionally model, temperature, steps and seed). A JSON body makes a derived voice, "+
		"a base_voice with stored speed, pitch, range, volume and whisper settings.")
}

// VoiceNotFound is the 404 of GET and DELETE /v1/voices/{id}, for a clone
// that does not exist or belongs to another account.
func VoiceNotFound(id string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Code: CodeVoiceNotFound, Param: "id",
		Message: fmt.Sprintf("You have no voice clone %q. GET /v1/voices lists yours.", printableField(id))}
}

// UnknownBaseVoice is the 400 for a base_voice the caller may not use.
func UnknownBaseVoice(id string) *Error {
	return BadRequest(CodeInvalidValue, "base_voice", "The base_voice %q is unknown. GET /v1/models lists the voices this key may use.",
		printableField(id))
}

// VoiceIDTaken is the 409 for an id the caller's own clone has.
func VoiceIDTaken(id string) *Error {
	return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: CodeVoiceExists, Param: "id",
		Message: fmt.Sprintf("You have a voice clone %q already; choose another id or leave id out.", id)}
}

// VoiceIDReserved is the 400 for a clone id that names a global voice or
// an alias (listed by /v1/models), which no clone may take.
func VoiceIDReserved(id string) *Error {
	return BadRequest(CodeInvalidValue, "id", "The voice id %q names a built-in voice; choose another or leave id out.", id)
}

// VoiceLimit is a clone creation past the account's limit.
func VoiceLimit(max int) *Error {
	return BadRequest(CodeVoiceLimit, "", "This account holds %d voice clones, the most it may; delete one first.", max)
}

// CodeVoiceExists is the code of VoiceIDTaken.
const CodeVoiceExists = "voice_exists"

// Voice is the JSON of a voice clone.
type Voice struct {
	ID        string `json:"id"`
	Object    string `json:"object"` // "voice"
	Name      string `json:"name"`
	BaseVoice string `json:"base_voice"`
	// Model is the model that cloned a voice made from a recording
	// (whose BaseVoice is empty); empty for a derived voice.
	Model   string  `json:"model,omitempty"`
	OwnedBy string  `json:"owned_by"` // always OwnedByUser
	Created int64   `json:"created"`
	Speed   float64 `json:"speed"`
	Pitch   float64 `json:"pitch"`
	Range   float64 `json:"range"`
	Volume  float64 `json:"volume"`
	Whisper bool    `json:"whisper"`
}

// VoiceList is the body of GET /v1/voices.
type VoiceList struct {
	Object string  `json:"object"` // "list"
	Data   []Voice `json:"data"`
}

// VoiceDeleted is the body of DELETE /v1/voices/{id}'s response, shaped
// like OpenAI's deletion answers.
type VoiceDeleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"` // "voice"
	Deleted bool   `json:"deleted"`
}

// FromStoredVoice converts a stored clone.
func FromStoredVoice(v store.Voice) Voice {
	w := Voice{ID: v.ID, Object: "voice", Name: v.Name, BaseVoice: v.Base, OwnedBy: OwnedByUser, Created: v.Created.Unix(),
		Speed: v.Speed, Pitch: v.Pitch, Range: v.Range, Volume: v.Volume, Whisper: v.Whisper}
	if v.Sample != nil {
		w.BaseVoice, w.Model = "", v.Base
	}
	return w
}

// FromStoredVoices converts a list of stored clones; Data is never null.
func FromStoredVoices(vs []store.Voice) VoiceList {
	l := VoiceList{Object: "list", Data: make([]Voice, 0, len(vs))}
	for _, v := range vs {
		l.Data = append(l.Data, FromStoredVoice(v))
	}
	return l
}

// VoiceLoadLimit is a speech request refused because it would load a
// voice (one not in the server's memory) while its account has caused
// perMinute loads in the last minute: retry after retry.
func VoiceLoadLimit(perMinute int, retry time.Duration) *Error {
	secs := max(1, int(retry.Seconds()+0.999))
	return &Error{Status: http.StatusTooManyRequests, Type: TypeRateLimit, Code: CodeRateLimit, RetryAfter: time.Duration(secs) * time.Second,
		Message: fmt.Sprintf("Voice load limit reached: this account may cause at most %d voice loads a minute on this server "+
			"(a voice not in memory is loaded for the request that uses it); retry in %d s, or keep to fewer voices at a time.", perMinute, secs)}
}
