package wire

import (
	"slices"

	"github.com/voxkit/voxkit/voices"
)

// speechModels are the speech models OpenAI's API lists; a speech request
// may name any of them (voxkit speaks every voice the same whichever).
var speechModels = []string{"tts-1", "tts-1-hd", "gpt-4o-mini-tts"}

// SpeechModels returns OpenAI's speech model names.
func SpeechModels() []string { return slices.Clone(speechModels) }

// OwnedByOpenAI owns the speech model names (the "owned_by" field).
const OwnedByOpenAI = "openai"

// SpeechModel is the model entry of an OpenAI speech model name.
func SpeechModel(id string) Model { return Model{ID: id, Object: "model", OwnedBy: OwnedByOpenAI} }

// AudioVoice is one voice of GET /v1/audio/voices. Front ends that list
// voices this way (Open WebUI) read id and name.
type AudioVoice struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Language is the voice's BCP 47 tag, when known.
	Language string `json:"language,omitempty"`
	// Engine names the engine that speaks it.
	Engine string `json:"engine,omitempty"`
	// AliasOf is the voice an alias (such as "alloy") speaks with.
	AliasOf string `json:"alias_of,omitempty"`
}

// AudioVoices is the body of GET /v1/audio/voices: {"voices": [...]}, the
// shape Kokoro-FastAPI answers, with objects where it has strings.
type AudioVoices struct {
	Voices []AudioVoice `json:"voices"`
}

// FromAudioVoices lists vs, then each alias (name → voice id) whose voice
// is among vs and whose name is not, by name. Voices is never null.
func FromAudioVoices(vs []voices.Voice, aliases map[string]string) AudioVoices {
	l := AudioVoices{Voices: make([]AudioVoice, 0, len(vs)+len(aliases))}
	byID := make(map[string]voices.Voice, len(vs))
	for _, v := range vs {
		byID[v.ID] = v
		l.Voices = append(l.Voices, AudioVoice{ID: v.ID, Name: v.ID, Language: v.Language, Engine: v.Engine})
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range aliases {
			if !yield(k) {
				return
			}
		}
	}) {
		v, ok := byID[aliases[name]]
		if _, taken := byID[name]; ok && !taken {
			l.Voices = append(l.Voices, AudioVoice{ID: name, Name: name, Language: v.Language, Engine: v.Engine, AliasOf: v.ID})
		}
	}
	return l
}

// AudioModels is the body of GET /v1/audio/models: an OpenAI model list
// (object, data) whose entries are repeated as "models", the key Open
// WebUI reads.
type AudioModels struct {
	Object string  `json:"object"`
	Data   []Model `json:"data"`
	Models []Model `json:"models"`
}

// OwnedByVoxkit owns the models that are voxkit's engines.
const OwnedByVoxkit = "voxkit"

// FromAudioModels lists OpenAI's speech models, then engines (the engines
// of the voices a caller may use, each once, in order).
func FromAudioModels(engines []string) AudioModels {
	l := AudioModels{Object: "list"}
	for _, id := range speechModels {
		l.Data = append(l.Data, SpeechModel(id))
	}
	for _, e := range engines {
		if !slices.ContainsFunc(l.Data, func(m Model) bool { return m.ID == e }) {
			l.Data = append(l.Data, Model{ID: e, Object: "model", OwnedBy: OwnedByVoxkit})
		}
	}
	l.Models = l.Data
	return l
}
