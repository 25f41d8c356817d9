package wyoming

import (
	"cmp"
	"strings"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// voiceAndFormat reads the voice and text_format of synthesize and
// synthesize-start.
func (s *session) voiceAndFormat(e Event) (voices.Voice, tts.InputFormat, *fault.Error) {
	var format tts.InputFormat
	switch f := e.String("text_format"); f {
	case "":
		format = tts.InputAuto
	case "text":
		format = tts.InputText
	case "ssml":
		format = tts.InputSSML
	default:
		return voices.Voice{}, 0, fault.BadRequest(fault.CodeInvalidValue, "text_format", "text_format %q is neither \"text\" nor \"ssml\"", Clip(f))
	}
	v, werr := s.voice(e)
	if werr != nil {
		return voices.Voice{}, 0, werr
	}
	return v, format, nil
}

// voiceField is the voice field of synthesize and synthesize-start.
type voiceField struct {
	Name     string `json:"name"`
	Language string `json:"language"`
	Speaker  string `json:"speaker"`
}

// voice resolves an event's voice: by name (with a Piper speaker), else
// the best voice of its language, else the default voice. The lookup is
// the catalog's (catalog.Voice); the fallbacks are Wyoming's.
func (s *session) voice(e Event) (voices.Voice, *fault.Error) {
	var f voiceField
	if err := e.Object("voice", &f); err != nil {
		return voices.Voice{}, fault.BadRequest(fault.CodeVoiceNotFound, "voice", "the voice field is not an object of strings (name, language, speaker)")
	}
	id := cmp.Or(f.Name, f.Language, "en-us")
	if f.Name != "" && f.Speaker != "" {
		id = f.Name + ":" + f.Speaker
	}
	if v, werr := s.d.Voices.Voice(s.account, id); werr == nil {
		return v, nil
	}
	if f.Name != "" && f.Speaker == "" {
		if v, ok := s.firstSpeaker(f.Name); ok {
			return v, nil
		}
	}
	return voices.Voice{}, fault.BadRequest(fault.CodeVoiceNotFound, "voice", "unknown voice %q", Clip(id))
}

// firstSpeaker returns the first speaker, as describe lists them, of the
// multi-speaker model named model. A worker resolves the bare name itself
// (its speaker 0); a gateway lists only the speakers its workers list.
func (s *session) firstSpeaker(model string) (voices.Voice, bool) {
	for _, v := range s.d.Voices.List(s.account) {
		if v.Speaker != "" && v.ID == model+":"+v.Speaker {
			return v, true
		}
	}
	return voices.Voice{}, false
}

// info is the answer to describe: one TTS program with every voice the
// account may use. The speakers of a multi-speaker Piper model are one
// voice, the model, with its speakers listed.
func (s *session) info() map[string]any {
	attribution := map[string]string{"name": "voxkit", "url": "https://github.com/voxkit/voxkit"}
	var list []map[string]any
	models := map[string]map[string]any{} // multi-speaker models by name
	for _, v := range s.d.Voices.List(s.account) {
		var langs []string
		if v.Language != "" {
			langs = []string{v.Language}
		}
		speaker := map[string]string{"name": v.Speaker}
		model, multi := strings.CutSuffix(v.ID, ":"+v.Speaker)
		if m := models[model]; multi && m != nil {
			m["speakers"] = append(m["speakers"].([]map[string]string), speaker)
			continue
		}
		entry := map[string]any{"name": v.ID, "languages": langs, "attribution": attribution,
			"installed": true, "description": cmp.Or(v.Description, v.ID), "version": nil, "speakers": nil}
		if multi && v.Speaker != "" {
			entry["name"] = model
			entry["description"] = strings.TrimSuffix(v.Description, ", speaker "+v.Speaker)
			entry["speakers"] = []map[string]string{speaker}
			models[model] = entry
		}
		list = append(list, entry)
	}
	return map[string]any{
		"asr": []any{}, "tts": []any{map[string]any{
			"name": "voxkit", "attribution": attribution, "installed": true, "description": "voxkit text to speech",
			"version": "1", "supports_synthesize_streaming": true, "voices": list,
		}},
		"handle": []any{}, "intent": []any{}, "wake": []any{}, "mic": []any{}, "snd": []any{},
	}
}
