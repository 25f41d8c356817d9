// Package cartesia is the Cartesia-compatible door of the server, under
// /cartesia: a Cartesia SDK or agent plugin whose base URL is
// http://host:port/cartesia speaks to voxkit with a voxkit API key
// (X-API-Key, or Authorization: Bearer). The Cartesia-Version header is
// accepted and not needed. docs/agents.md says what is supported and
// what is ignored.
//
// It serves the voices (GET /voices, GET and DELETE /voices/{id}, POST
// /voices/clone), the pronunciation dictionaries (/pronunciation-dicts:
// the account's lexicons), POST /tts/bytes and /tts/sse, and the socket
// GET /tts/websocket, translating each into the core and the core's
// answers into Cartesia's shapes:
//
//   - admission: core.AdmitVendor by X-API-Key (on the socket also the
//     api_key or access_token query parameter), else the core's own
//     credentials;
//   - a voice by catalog.Voice; clones by catalog.CloneUpload and
//     core.DropVoice;
//   - /tts/bytes and /tts/sse: one core.Job (its text field named
//     "transcript") through core.SpeakHTTP, written through core.Lazy;
//   - /tts/websocket: core.ServeSocket, each context a core.StreamJob in
//     the socket's core.ContextSet (transcript pieces as core.Ops, flush
//     → flush_done, continue: false → the End, cancel →
//     ContextSet.Cancel);
//   - every *fault.Error as Cartesia's error shape (api.FromFault).
//
// It is handed only what it uses (Rooms): the core's speech, the socket
// runtime, the credentials, catalog and lexicons rooms, as narrow
// interfaces.
package cartesia

import (
	"net/http"

	"github.com/voxkit/voxkit/server/internal/cartesia/api"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
)

// base is where the door is mounted.
const base = "/cartesia"

// door is the Cartesia door of one core.
type door struct{ c Rooms }

// Mount registers the Cartesia-compatible routes on mux. A wrong method,
// and any other path under /cartesia, are answered in Cartesia's shape.
func Mount(mux *http.ServeMux, c Rooms) {
	d := door{c}
	answer := func(w http.ResponseWriter, r *http.Request, werr *fault.Error) { write(w, r, api.FromFault(werr)) }
	handle := func(path string, m route.Methods) { route.DoorRoute(mux, c.Log, path, m, answer) }
	speech := func(h handler) route.Handler { return d.as(store.ScopeSpeech, h) }
	handle(base+"/voices", route.Methods{http.MethodGet: speech(d.listVoices)})
	if c.Store != nil {
		handle(base+"/voices/clone", route.Methods{http.MethodPost: d.as(store.ScopeAdmin, d.clone)})
		handle(base+"/voices/{id}", route.Methods{http.MethodGet: speech(d.getVoice), http.MethodDelete: d.as(store.ScopeAdmin, d.deleteVoice)})
	} else {
		handle(base+"/voices/{id}", route.Methods{http.MethodGet: speech(d.getVoice)})
	}
	if _, ok := c.Store.(store.Lexicons); ok {
		x := dicts{d}
		all := route.Methods{http.MethodGet: speech(x.list), http.MethodPost: d.as(store.ScopeAdmin, x.edit)}
		handle(base+"/pronunciation-dicts", all)
		handle(base+"/pronunciation-dicts/{$}", all) // the SDK's path
		handle(base+"/pronunciation-dicts/{id}", route.Methods{http.MethodGet: speech(x.get), http.MethodPatch: d.as(store.ScopeAdmin, x.edit),
			http.MethodDelete: d.as(store.ScopeAdmin, x.remove)})
	}
	handle(base+"/tts/bytes", route.Methods{http.MethodPost: speech(d.bytes)})
	handle(base+"/tts/sse", route.Methods{http.MethodPost: speech(d.sse)})
	handle(base+"/tts/websocket", route.Methods{http.MethodGet: d.socket})
	notFound := func(w http.ResponseWriter, r *http.Request) { answer(w, r, fault.NotFound(r.Method, r.URL.Path)) }
	mux.HandleFunc(base, notFound)
	mux.HandleFunc(base+"/", notFound)
}

// write answers r with e in Cartesia's shape.
func write(w http.ResponseWriter, r *http.Request, e *api.Error) {
	respond.SetRetryAfter(w.Header(), e.RetryAfter)
	respond.WriteJSON(w, e.Status, e.Event("", route.Info(r.Context()).ID))
}

// handler is a handler of the Cartesia API, for the caller's account.
type handler func(w http.ResponseWriter, r *http.Request, account string) *api.Error

// as admits the caller with the scope need and answers errors in
// Cartesia's shape.
func (d door) as(need store.Scope, h handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		account, werr := d.c.Auth.AdmitVendor(r, r.Header.Get("X-API-Key"), need)
		e := api.FromFault(werr)
		if e == nil {
			e = h(w, r, account)
		}
		if e != nil {
			write(w, r, e)
		}
		return nil
	}
}
