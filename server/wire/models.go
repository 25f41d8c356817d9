package wire

import "github.com/voxkit/voxkit/voices"

// Owners of a model, the "owned_by" field.
const (
	OwnedByService = "service" // a global voice
	OwnedByUser    = "user"    // the caller's own voice clone
)

// Model is one voice in the model list: OpenAI's four fields, then
// voxkit's own, which a picker groups and labels voices by (OpenAI's
// SDKs ignore fields they do not know).
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// Language is the voice's BCP 47 tag, when known.
	Language string `json:"language,omitempty"`
	// Engine names the engine that speaks it ("espeak", "piper", …).
	Engine string `json:"engine,omitempty"`
	// Description is a short label, when the engine gives one.
	Description string `json:"description,omitempty"`
	// SampleRate is the rate the voice's engine speaks at, in hertz, when
	// the engine says. Speech responses are resampled to their format's
	// rate; Wyoming clients get the voice's own rate.
	SampleRate int `json:"sample_rate,omitempty"`
	// Speaker names the speaker of a multi-speaker model this voice is
	// ("p239" of en_GB-vctk-medium:p239), so that a gateway lists the
	// model's speakers as its worker does (one Wyoming voice with them).
	Speaker string `json:"speaker,omitempty"`
}

// ModelList is the body of GET /v1/models.
type ModelList struct {
	Object string  `json:"object"`
	Data   []Model `json:"data"`
	// CloneModels, a voxkit extension, are the models that clone voices
	// from recordings here (multipart POST /v1/voices); absent when none
	// does. A gateway learns its workers' from it.
	CloneModels []string `json:"clone_models,omitempty"`
}

// FromVoice converts a catalog voice into its model entry.
func FromVoice(v voices.Voice) Model {
	m := Model{ID: v.ID, Object: "model", OwnedBy: OwnedByService, Language: v.Language, Engine: v.Engine, Description: v.Description, SampleRate: v.SampleRate, Speaker: v.Speaker}
	if !v.Global() {
		m.OwnedBy = OwnedByUser
	}
	if !v.Created.IsZero() {
		m.Created = v.Created.Unix()
	}
	return m
}

// FromVoices converts a list of voices into the model list. Data is never
// null in JSON.
func FromVoices(vs []voices.Voice) ModelList {
	l := ModelList{Object: "list", Data: make([]Model, 0, len(vs))}
	for _, v := range vs {
		l.Data = append(l.Data, FromVoice(v))
	}
	return l
}

// Health is the body of GET /healthz and /readyz.
type Health struct {
	Status string `json:"status"` // "ok" or "unavailable"
	Reason string `json:"reason,omitempty"`
}
