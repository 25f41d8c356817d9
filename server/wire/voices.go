package wire

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/voices"
)

// MaxVoiceName is the longest name of a voice clone, in characters.
const MaxVoiceName = 100

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
// fields are refused, and audio fields get fault.CloningFromAudio.
func ParseVoiceCreate(body []byte) (VoiceCreate, error) {
	raw, err := decodeObject(body, `{"name":"...","base_voice":"..."}`)
	if err != nil {
		return VoiceCreate{}, err
	}
	for _, f := range audioFields {
		if _, ok := raw[f]; ok {
			return VoiceCreate{}, fault.CloningFromAudio(f)
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
			return VoiceCreate{}, fault.BadRequest(fault.CodeUnknownParameter, f, "Unknown parameter: '%s'. Known parameters: %s.",
				fault.PrintableField(f), strings.Join(known, ", "))
		}
	}
	var v VoiceCreate
	var ok bool
	if v.ID, ok, err = stringField(raw, "id"); err != nil {
		return VoiceCreate{}, err
	} else if ok {
		var bad *voices.IDError
		if err := voices.ValidateID(v.ID); errors.As(err, &bad) {
			return VoiceCreate{}, fault.BadRequest(fault.CodeInvalidValue, "id", "%s.", bad.Reason)
		}
	}
	if v.Name, ok, err = stringField(raw, "name"); err != nil {
		return VoiceCreate{}, err
	} else if !ok {
		return VoiceCreate{}, fault.BadRequest(fault.CodeMissingParameter, "name", "Missing required parameter: 'name'.")
	}
	if err := checkVoiceName(v.Name); err != nil {
		return VoiceCreate{}, err
	}
	if v.BaseVoice, ok, err = stringField(raw, "base_voice"); err != nil {
		return VoiceCreate{}, err
	} else if !ok {
		return VoiceCreate{}, fault.BadRequest(fault.CodeMissingParameter, "base_voice", "Missing required parameter: 'base_voice'.")
	}
	if v.BaseVoice == "" {
		return VoiceCreate{}, fault.BadRequest(fault.CodeStringTooShort, "base_voice", "base_voice must not be empty.")
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
			return VoiceCreate{}, fault.BadRequest(fault.CodeInvalidType, "whisper", "whisper must be a boolean, got %s.", kind(w))
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
