package wire

import (
	"errors"
	"io"
	"mime/multipart"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/vocab"
	"github.com/voxkit/voxkit/voices"
)

// CloneForm describes a door's multipart body that clones a voice from a
// recording: the field of the recording and the other fields it knows.
type CloneForm struct {
	// Audio is the recording's field. With ManyAudio it may repeat, and
	// the first is the recording: later ones are read and not used.
	Audio     string
	ManyAudio bool
	// Fields are the other fields known besides name. Of them id, model,
	// temperature, steps and seed are parsed as POST /v1/voices does; the
	// others are accepted and not used.
	Fields []string
}

// OpenAIClone is the form of a multipart POST /v1/voices.
var OpenAIClone = CloneForm{Audio: "audio", Fields: []string{"id", "model", "temperature", "steps", "seed"}}

// ParseVoiceClone reads a multipart POST /v1/voices body from mr: the
// fields name and audio (a file), and optionally id, model, temperature,
// steps and seed. Each failure is a *Error with status 400 naming the
// field at fault; unknown and repeated fields are refused. The audio may
// be at most MaxRecording bytes; the whole body is bounded by the caller.
func ParseVoiceClone(mr *multipart.Reader) (VoiceClone, error) { return OpenAIClone.Parse(mr) }

// Parse reads a multipart body of the form f from mr, as ParseVoiceClone
// does for OpenAIClone.
func (f CloneForm) Parse(mr *multipart.Reader) (VoiceClone, error) {
	known := append([]string{"name", f.Audio}, f.Fields...)
	var v VoiceClone
	seen := map[string]bool{}
	var text = map[string]string{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return VoiceClone{}, fault.BadRequest(fault.CodeInvalidValue, "", "The multipart body is malformed: %s.", fault.Clip(err.Error(), 200))
		}
		name := p.FormName()
		if !slices.Contains(known, name) {
			return VoiceClone{}, fault.BadRequest(fault.CodeUnknownParameter, name, "Unknown parameter: '%s'. Known parameters: %s.",
				fault.PrintableField(name), strings.Join(known, ", "))
		}
		if seen[name] && !(f.ManyAudio && name == f.Audio) {
			return VoiceClone{}, fault.BadRequest(fault.CodeInvalidValue, name, "The field '%s' is given twice.", name)
		}
		first := !seen[name]
		seen[name] = true
		limit := int64(1 << 10)
		if name == f.Audio {
			limit = MaxRecording
		}
		b, err := io.ReadAll(io.LimitReader(p, limit+1))
		if err != nil {
			return VoiceClone{}, fault.BadRequest(fault.CodeInvalidValue, name, "The field '%s' could not be read: %s.", name, fault.Clip(err.Error(), 200))
		}
		if int64(len(b)) > limit {
			if name == f.Audio {
				return VoiceClone{}, fault.BadRequest(fault.CodeInvalidValue, name, "The recording is larger than %d MB, the limit.", MaxRecording>>20)
			}
			return VoiceClone{}, fault.BadRequest(fault.CodeStringTooLong, name, "The field '%s' is longer than %d bytes.", name, limit)
		}
		switch {
		case name != f.Audio:
			text[name] = string(b)
		case first:
			v.Audio = b
		}
	}
	if len(v.Audio) == 0 {
		return VoiceClone{}, fault.BadRequest(fault.CodeMissingParameter, f.Audio, "Missing required parameter: '%s', the recording as a file.", f.Audio)
	}
	name, ok := text["name"]
	if !ok {
		return VoiceClone{}, fault.BadRequest(fault.CodeMissingParameter, "name", "Missing required parameter: 'name'.")
	}
	if err := checkVoiceName(name); err != nil {
		return VoiceClone{}, err
	}
	v.Name, v.Model = name, text["model"]
	if id, ok := text["id"]; ok {
		var bad *voices.IDError
		if err := voices.ValidateID(id); errors.As(err, &bad) {
			return VoiceClone{}, fault.BadRequest(fault.CodeInvalidValue, "id", "%s.", bad.Reason)
		}
		v.ID = id
	}
	if s, ok := text["temperature"]; ok {
		t, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(t >= 0 && t <= 10) { // NaN is neither
			return VoiceClone{}, fault.BadRequest(fault.CodeInvalidValue, "temperature", "temperature must be a number from 0 to 10, not %s.", fault.Echo(s))
		}
		v.Temperature = &t
	}
	if s, ok := text["steps"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > MaxCloneSteps {
			return VoiceClone{}, fault.BadRequest(fault.CodeInvalidValue, "steps", "steps must be a whole number from 1 to %d, not %s.", MaxCloneSteps, fault.Echo(s))
		}
		v.Steps = n
	}
	if s, ok := text["seed"]; ok {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n == 0 {
			return VoiceClone{}, fault.BadRequest(fault.CodeInvalidValue, "seed", "seed must be a whole number other than 0, not %s.", fault.Echo(s))
		}
		v.Seed = n
	}
	return v, nil
}

// MaxCloneSteps is the most flow steps a clone may ask for: each is a run
// of the flow model per frame of all the clone's speech, and more give
// nothing audible (pocket.MaxSteps, whose value it is).
const MaxCloneSteps = 10

// checkVoiceName checks a clone's name.
func checkVoiceName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fault.BadRequest(fault.CodeStringTooShort, "name", "name must not be empty.")
	}
	if n := utf8.RuneCountInString(name); n > MaxVoiceName {
		return fault.BadRequest(fault.CodeStringTooLong, "name", "name is %d characters long; the limit is %d.", n, MaxVoiceName)
	}
	return CheckText("name", name)
}

// VoiceClone is a parsed multipart POST /v1/voices: a voice to clone
// from a recording (vocab.Clone, which the catalog takes).
type VoiceClone = vocab.Clone

// MaxRecording is the largest recording an upload may carry, in bytes.
const MaxRecording = vocab.MaxRecording
