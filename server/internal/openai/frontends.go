package openai

import (
	"net/http"
	"slices"

	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// The routes OpenAI-compatible front ends (Open WebUI and the like) read
// besides OpenAI's own: the voices and models to offer in their pickers.

// listing serves a front end's list of voices or models: to a caller
// with credentials as Authed does (its account's voices), and to one with
// none the server's global voices and aliases, never an account's clones.
// Open WebUI asks for both lists without the key it speaks with; answered
// 401 it would offer only OpenAI's six names. A key that fails is still a
// 401.
func (d *door) listing(h route.Handler) route.Handler {
	authed := d.Auth.Authed(store.ScopeSpeech, h)
	return func(w http.ResponseWriter, r *http.Request) error {
		if credentials.Bearer(r) == "" {
			if _, werr := d.Auth.Admit(r); werr != nil && werr.Code == wire.CodeMissingAPIKey {
				return h(w, r) // no account: the global voices
			}
		}
		return authed(w, r)
	}
}

// listAudioVoices answers GET /v1/audio/voices: the voices the caller may
// use (the global ones and its own clones) and the aliases of those, with
// language and engine.
func (d *door) listAudioVoices(w http.ResponseWriter, r *http.Request) error {
	account := route.Info(r.Context()).Account
	respond.WriteJSON(w, http.StatusOK, wire.FromAudioVoices(d.Voices.List(account), d.Aliases))
	return nil
}

// listAudioModels answers GET /v1/audio/models: OpenAI's speech models,
// which every request may name, and the engines of the caller's voices.
func (d *door) listAudioModels(w http.ResponseWriter, r *http.Request) error {
	var engines []string
	for _, v := range d.Voices.List(route.Info(r.Context()).Account) {
		if !slices.Contains(engines, v.Engine) {
			engines = append(engines, v.Engine)
		}
	}
	slices.Sort(engines)
	respond.WriteJSON(w, http.StatusOK, wire.FromAudioModels(engines))
	return nil
}

// getModel answers GET /v1/models/{id}: a voice as the speech endpoint
// finds it (an alias, such as "alloy", as the voice it speaks with, under
// its own id), or one of OpenAI's speech models.
func (d *door) getModel(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if slices.Contains(wire.SpeechModels(), id) {
		respond.WriteJSON(w, http.StatusOK, wire.SpeechModel(id))
		return nil
	}
	v, werr := d.Voices.Voice(route.Info(r.Context()).Account, id)
	if werr != nil {
		return fault.UnknownModel(id)
	}
	m := wire.FromVoice(v)
	m.ID = id
	respond.WriteJSON(w, http.StatusOK, m)
	return nil
}
