// Package openai is the server's door for OpenAI's speech API and
// voxkit's /v1 additions to it: POST /v1/audio/speech (a clip, a pcm
// stream or SSE), the voices as models (and as front ends such as Open
// WebUI list them, GET /v1/audio/voices and /v1/audio/models), the tag
// vocabulary and the normalization preview. It turns requests into core
// jobs and the core's errors into OpenAI's {"error": ...} bodies.
package openai

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/lexicons"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/normalize"
	"github.com/voxkit/voxkit/voices"
)

// Rooms are what the door uses of the core and the rooms beside it, each
// as narrow an interface as its routes need.
type Rooms struct {
	Speech   Speech
	Auth     Auth
	Voices   Voices
	Lexicons Lexicons
	Text     Text
	// Aliases maps extra voice names to catalog voice ids.
	Aliases map[string]string
	// DefaultFormat is the response_format of a request naming none.
	DefaultFormat string
	Log           *slog.Logger
	Body          route.Body
}

// Speech is what the door asks of the core.
type Speech interface {
	SpeakHTTP(r *http.Request, job core.Job, late func(*fault.Error), speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) *fault.Error
	Lazy(w http.ResponseWriter, start func()) *respond.Lazy
	SetTiming(h http.Header, res tts.Result, start time.Time, sending time.Duration)
}

// Auth is what the door asks of the credentials room.
type Auth interface {
	Authed(need store.Scope, h route.Handler) route.Handler
	AuthedAlongside(need store.Scope, h route.Handler) route.Handler
	Admit(r *http.Request) (credentials.Caller, *wire.Error)
}

// Voices is what the door asks of the catalog room.
type Voices interface {
	Voice(account, name string) (voices.Voice, *fault.Error)
	Resolve(account, name string) string
	List(account string) []voices.Voice
	CloneModels() []string
	HoldSample(account string, scope store.Scope, voice string, sample []byte) (release func(), werr *fault.Error)
}

// Lexicons is what the door asks of the lexicons room.
type Lexicons interface {
	Lexicons(ctx context.Context, account string, refs []lexicons.LexiconRef, req tts.Request) ([]*lexicon.Lexicon, *fault.Error)
}

// Text is the synthesizer's text normalization (tts.Synthesizer).
type Text interface {
	NormalizeText(account, voice, input string, lexicons ...*lexicon.Lexicon) (normalize.Text, error)
}

// door serves the routes Mount registers.
type door struct{ Rooms }

// Mount registers the door's routes on mux.
func Mount(mux *http.ServeMux, rooms Rooms) {
	d, c := &door{rooms}, rooms
	handle := func(path string, m route.Methods) { route.Route(mux, c.Log, path, m) }
	handle("/v1/audio/speech", route.Methods{http.MethodPost: c.Auth.AuthedAlongside(store.ScopeSpeech, d.speech)})
	handle("/v1/models", route.Methods{http.MethodGet: c.Auth.Authed(store.ScopeSpeech, d.listModels)})
	handle("/v1/models/{id}", route.Methods{http.MethodGet: c.Auth.Authed(store.ScopeSpeech, d.getModel)})
	handle("/v1/audio/voices", route.Methods{http.MethodGet: d.listing(d.listAudioVoices)})
	handle("/v1/audio/models", route.Methods{http.MethodGet: d.listing(d.listAudioModels)})
	handle("/v1/tags", route.Methods{http.MethodGet: d.listTags})
	handle("/v1/normalize", route.Methods{http.MethodGet: c.Auth.Authed(store.ScopeSpeech, d.normalizeText)})
}

// listModels answers GET /v1/models: the voices the caller may use, as
// OpenAI models, and the models that clone.
func (d *door) listModels(w http.ResponseWriter, r *http.Request) error {
	l := wire.FromVoices(d.Voices.List(route.Info(r.Context()).Account))
	l.CloneModels = d.Voices.CloneModels()
	respond.WriteJSON(w, http.StatusOK, l)
	return nil
}

// listTags answers GET /v1/tags: the audio tag vocabulary, for the
// playground's palette. It needs no credentials.
func (d *door) listTags(w http.ResponseWriter, r *http.Request) error {
	respond.WriteJSON(w, http.StatusOK, wire.FromTags(tags.Vocabulary()))
	return nil
}

// normalizeText answers GET /v1/normalize?text=…&voice=…[&lexicons=ID,…]:
// the text the voice reads for an input (lexicons applied as in speech:
// those named, else the account's defaults; then written forms as
// words), with the map back to the input, for the playground to show
// under the input.
func (d *door) normalizeText(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	text, voice := q.Get("text"), q.Get("voice")
	switch {
	case !q.Has("text"):
		return fault.BadRequest(fault.CodeMissingParameter, "text", "Missing required parameter: 'text'.")
	case voice == "":
		return fault.BadRequest(fault.CodeMissingParameter, "voice", "Missing required parameter: 'voice'.")
	}
	account := route.Info(r.Context()).Account
	id := d.Voices.Resolve(account, voice)
	var refs []lexicons.LexiconRef // nil: the account's defaults, as in speech
	if q.Has("lexicons") {
		ids := []string{}
		for _, v := range q["lexicons"] {
			for id := range strings.SplitSeq(v, ",") {
				if id = strings.TrimSpace(id); id != "" {
					ids = append(ids, id)
				}
			}
		}
		refs = lexicons.RefsOf(ids)
	}
	lexicons, werr := d.Lexicons.Lexicons(r.Context(), account, refs, tts.Request{Account: account, Voice: id, Input: text})
	if werr != nil {
		return werr
	}
	t, err := d.Text.NormalizeText(account, id, text, lexicons...)
	if err != nil {
		return fault.ToError(err, voice)
	}
	respond.WriteJSON(w, http.StatusOK, wire.FromNormalized(voice, text, t))
	return nil
}
