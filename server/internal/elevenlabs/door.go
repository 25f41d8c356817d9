// Package elevenlabs is the ElevenLabs-compatible door of the server,
// under /elevenlabs: an ElevenLabs SDK or agent plugin whose base URL is
// http://host:port/elevenlabs speaks to voxkit with a voxkit API key in
// xi-api-key. docs/agents.md says what is supported and what is ignored.
//
// It serves, under /elevenlabs/v1:
//
//   - voices (GET /voices, /voices/{id}, and /elevenlabs/v2/voices, the
//     SDKs' search, in pages; with a store, instant cloning
//     POST /voices/add and DELETE /voices/{id}, through
//     catalog.CloneUpload and catalog.DropVoice) and GET /models;
//   - speech of a whole text, POST /text-to-speech/{voice} and its
//     /stream, /with-timestamps and /stream/with-timestamps forms: one
//     core.Job through core.SpeakHTTP, written through a core.Lazy;
//   - the input-streaming sockets text-to-speech/{voice}/stream-input
//     (one context) and multi-stream-input (up to core.MaxSocketContexts,
//     each named by context_id): run by core.ServeSocket, each context a
//     core.StreamJob in the socket's core.ContextSet, spoken on
//     ElevenLabs' chunk_length_schedule, a flush or a sentence end, with
//     each sentence's audio sent with its character alignment;
//   - with a store that keeps lexicons, pronunciation dictionaries
//     (dictionaries.go), named by pronunciation_dictionary_locators on
//     speech and in the first message of a socket context.
//
// It translates ElevenLabs' requests into core calls, and the core's
// *fault.Error values into ElevenLabs' shape,
// {"detail": {"status": "...", "message": "..."}}; the lifecycle
// (admission, limits, synthesis, metrics) is the core's.
//
// It is handed only what it uses (Rooms): the core's speech, the socket
// runtime, the credentials, catalog and lexicons rooms, as narrow
// interfaces.
package elevenlabs

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/elevenlabs/api"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// door is the ElevenLabs-compatible API of one server.
type door struct {
	c Rooms
}

// Mount registers the ElevenLabs-compatible routes of c on mux.
func Mount(mux *http.ServeMux, c Rooms) {
	d := &door{c: c}
	const base = "/elevenlabs/v1"
	// A wrong method, and any other path of the door, are answered in
	// ElevenLabs' shape.
	answer := func(w http.ResponseWriter, _ *http.Request, werr *fault.Error) { writeError(w, toError(werr)) }
	handle := func(path string, m route.Methods) { route.DoorRoute(mux, c.Log, path, m, answer) }
	handle(base+"/voices", route.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.voices)})
	handle("/elevenlabs/v2/voices", route.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.searchVoices)})
	if c.Store != nil {
		handle(base+"/voices/add", route.Methods{http.MethodPost: d.as(store.ScopeAdmin, d.addVoice)})
		handle(base+"/voices/{id}", route.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.voice), http.MethodDelete: d.as(store.ScopeAdmin, d.deleteVoice)})
	} else {
		handle(base+"/voices/{id}", route.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.voice)})
	}
	d.mountDictionaries(handle, base)
	handle(base+"/models", route.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.models)})
	for _, suffix := range []string{"", "/stream", "/with-timestamps", "/stream/with-timestamps"} {
		handle(base+"/text-to-speech/{voice}"+suffix, route.Methods{http.MethodPost: d.as(store.ScopeSpeech, d.speech)})
	}
	handle(base+"/text-to-speech/{voice}/stream-input", route.Methods{http.MethodGet: d.socket(false)})
	handle(base+"/text-to-speech/{voice}/multi-stream-input", route.Methods{http.MethodGet: d.socket(true)})
	notFound := func(w http.ResponseWriter, r *http.Request) { answer(w, r, fault.NotFound(r.Method, r.URL.Path)) }
	mux.HandleFunc("/elevenlabs", notFound)
	mux.HandleFunc("/elevenlabs/", notFound)
}

// toError converts voxkit's error to ElevenLabs' shape.
func toError(werr *fault.Error) *api.Error { return api.FromFault(werr, core.MaxSocketContexts) }

// writeError answers with e in ElevenLabs' shape.
func writeError(w http.ResponseWriter, e *api.Error) {
	respond.SetRetryAfter(w.Header(), e.RetryAfter)
	respond.WriteJSON(w, e.HTTPStatus, map[string]any{"detail": e})
}

// handler is a handler of the ElevenLabs API, for the caller's account.
type handler func(w http.ResponseWriter, r *http.Request, account string) *api.Error

// as admits the caller by xi-api-key (or any credential the OpenAI API
// takes) with the scope need, and answers errors in ElevenLabs' shape.
func (d *door) as(need store.Scope, h handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		account, eerr := d.admit(r, need)
		if eerr == nil {
			eerr = h(w, r, account)
		}
		if eerr != nil {
			writeError(w, eerr)
		}
		return nil
	}
}

// admit checks the xi-api-key header, else the credentials of the OpenAI
// API.
func (d *door) admit(r *http.Request, need store.Scope) (string, *api.Error) {
	account, werr := d.c.Auth.AdmitVendor(r, r.Header.Get("xi-api-key"), need)
	if werr != nil {
		return "", toError(werr)
	}
	return account, nil
}

func (d *door) voices(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	list := []map[string]any{}
	for _, v := range d.c.Voices.List(account) {
		list = append(list, api.Voice(v))
	}
	respond.WriteJSON(w, http.StatusOK, map[string]any{"voices": list, "has_more": false, "total_count": len(list)})
	return nil
}

func (d *door) voice(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	v, werr := d.c.Voices.Voice(account, r.PathValue("id"))
	if werr != nil {
		return voiceNotFound(r.PathValue("id"))
	}
	respond.WriteJSON(w, http.StatusOK, api.Voice(v))
	return nil
}

// searchVoices answers GET /v2/voices (the SDKs' voices.search): see
// api.SearchPage.
func (d *door) searchVoices(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	page, err := api.SearchPage(r.URL.Query(), d.c.Voices.List(account))
	if err != nil {
		return api.NewError(http.StatusUnprocessableEntity, "invalid_request", err.Error())
	}
	respond.WriteJSON(w, http.StatusOK, page)
	return nil
}

// cloneForm is the multipart body of POST /v1/voices/add. Of the files
// the first is the recording; description, labels and
// remove_background_noise are accepted and not used. voxkit's model,
// temperature, steps and seed (as on POST /v1/voices) are taken too.
var cloneForm = wire.CloneForm{Audio: "files", ManyAudio: true,
	Fields: []string{"description", "labels", "remove_background_noise", "model", "temperature", "steps", "seed"}}

// addVoice answers POST /v1/voices/add: instant voice cloning.
func (d *door) addVoice(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	sv, err := d.c.Voices.CloneUpload(w, r, account, cloneForm)
	if err != nil {
		return toError(route.ErrorOf(d.c.Log, r, err))
	}
	respond.WriteJSON(w, http.StatusOK, map[string]any{"voice_id": sv.ID, "requires_verification": false})
	return nil
}

// deleteVoice answers DELETE /v1/voices/{voice_id}.
func (d *door) deleteVoice(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	if _, err := d.c.Voices.DropVoice(r.Context(), account, r.PathValue("id")); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return voiceNotFound(r.PathValue("id"))
		}
		return toError(route.ErrorOf(d.c.Log, r, err))
	}
	respond.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	return nil
}

func voiceNotFound(id string) *api.Error {
	return api.NewError(http.StatusNotFound, "voice_not_found", fmt.Sprintf("A voice with the voice_id %s was not found.", id))
}

// models lists one model: voxkit has voices, not models, and accepts any
// model_id.
func (d *door) models(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	respond.WriteJSON(w, http.StatusOK, []map[string]any{{"model_id": "voxkit", "name": "voxkit",
		"can_do_text_to_speech": true, "description": "Every voxkit voice; model_id is accepted and ignored."}})
	return nil
}
