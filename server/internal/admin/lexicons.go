package admin

import (
	"context"
	"net/http"
	"unicode/utf8"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// Pronunciation lexicons owned by an account (/v1/lexicons): W3C PLS 1.0
// documents, checked by package lexicon when they arrive and stored as
// sent; the account's default lexicons (/v1/account/lexicons) apply to
// its requests that name none. The core keeps them (lexiconstore.go).

// plsType is the media type of a PLS document; the XML types are taken
// too.
const plsType = "application/pls+xml"

// maxLexiconName bounds a lexicon's name, in characters.
const maxLexiconName = 128

// Lexicons is what the lexicon routes ask of the lexicons room
// (lexicons.Library).
type Lexicons interface {
	CreateLexicon(ctx context.Context, account, name string, l *lexicon.Lexicon, pls []byte) (store.Lexicon, *fault.Error)
	StoredLexicon(ctx context.Context, account, id, version string) (store.Lexicon, *lexicon.Lexicon, *fault.Error)
	ListLexicons(ctx context.Context, account string) ([]store.Lexicon, *fault.Error)
	DeleteLexicon(ctx context.Context, account, id string) (store.Lexicon, *fault.Error)
	DefaultLexicons(ctx context.Context, account string) ([]string, *fault.Error)
	SetDefaultLexicons(ctx context.Context, account string, ids []string) *fault.Error
}

// lexiconRoutes serve /v1/lexicons and the account's default lexicons.
type lexiconRoutes struct {
	lexicons Lexicons
	body     route.Body
}

// mount registers the lexicon routes, each admitted by authed.
func (d *lexiconRoutes) mount(handle func(string, route.Methods), authed func(store.Scope, route.Handler) route.Handler) {
	handle("/v1/lexicons", route.Methods{http.MethodGet: authed(store.ScopeSpeech, d.listLexicons), http.MethodPost: authed(store.ScopeAdmin, d.createLexicon)})
	handle("/v1/lexicons/{id}", route.Methods{http.MethodGet: authed(store.ScopeSpeech, d.getLexicon), http.MethodDelete: authed(store.ScopeAdmin, d.deleteLexicon)})
	handle("/v1/account/lexicons", route.Methods{http.MethodGet: authed(store.ScopeSpeech, d.defaultLexicons), http.MethodPut: authed(store.ScopeAdmin, d.setDefaultLexicons)})
}

// createLexicon answers POST /v1/lexicons?name=…: the body a PLS document.
func (d *lexiconRoutes) createLexicon(w http.ResponseWriter, r *http.Request) error {
	body, werr := d.body.ReadBodyOf(w, r, lexicon.MaxBytes, plsType, "application/xml", "text/xml")
	if werr != nil {
		return werr
	}
	name := r.URL.Query().Get("name")
	if utf8.RuneCountInString(name) > maxLexiconName || !utf8.ValidString(name) {
		return fault.BadRequest(fault.CodeInvalidValue, "name", "name must be UTF-8 of at most %d characters.", maxLexiconName)
	}
	if err := wire.CheckText("name", name); err != nil {
		return err
	}
	parsed, err := lexicon.Parse(body)
	if err != nil {
		return fault.BadLexicon(err)
	}
	stored, werr := d.lexicons.CreateLexicon(r.Context(), route.Info(r.Context()).Account, name, parsed, body)
	if werr != nil {
		return werr
	}
	respond.WriteJSON(w, http.StatusCreated, wire.FromLexicon(stored))
	return nil
}

// listLexicons answers GET /v1/lexicons.
func (d *lexiconRoutes) listLexicons(w http.ResponseWriter, r *http.Request) error {
	ls, werr := d.lexicons.ListLexicons(r.Context(), route.Info(r.Context()).Account)
	if werr != nil {
		return werr
	}
	respond.WriteJSON(w, http.StatusOK, wire.FromLexicons(ls))
	return nil
}

// getLexicon answers GET /v1/lexicons/{id}[?version=…] with the PLS
// document.
func (d *lexiconRoutes) getLexicon(w http.ResponseWriter, r *http.Request) error {
	account, id, version := route.Info(r.Context()).Account, r.PathValue("id"), r.URL.Query().Get("version")
	stored, _, werr := d.lexicons.StoredLexicon(r.Context(), account, id, version)
	if werr != nil && version != "" && werr.Code == fault.CodeLexiconNotFound {
		if _, _, err := d.lexicons.StoredLexicon(r.Context(), account, id, ""); err == nil {
			werr = fault.LexiconVersionNotFound(id, version) // the lexicon is there; the version is not
		}
	}
	if werr != nil {
		return werr
	}
	h := w.Header()
	h.Set("Content-Type", plsType)
	h.Set("Cache-Control", "no-store")
	h.Set("x-lexicon-version", stored.Version)
	w.Write(stored.PLS)
	return nil
}

// deleteLexicon answers DELETE /v1/lexicons/{id}.
func (d *lexiconRoutes) deleteLexicon(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, werr := d.lexicons.DeleteLexicon(r.Context(), route.Info(r.Context()).Account, id); werr != nil {
		return werr
	}
	respond.WriteJSON(w, http.StatusOK, wire.LexiconDeleted{ID: id, Object: "lexicon", Deleted: true})
	return nil
}

// defaultLexicons answers GET /v1/account/lexicons.
func (d *lexiconRoutes) defaultLexicons(w http.ResponseWriter, r *http.Request) error {
	ids, werr := d.lexicons.DefaultLexicons(r.Context(), route.Info(r.Context()).Account)
	if werr != nil {
		return werr
	}
	respond.WriteJSON(w, http.StatusOK, wire.DefaultLexicons{Object: "default_lexicons", Lexicons: ids})
	return nil
}

// setDefaultLexicons answers PUT /v1/account/lexicons {"lexicons": [id, …]}.
func (d *lexiconRoutes) setDefaultLexicons(w http.ResponseWriter, r *http.Request) error {
	body, werr := d.body.ReadBody(w, r)
	if werr != nil {
		return werr
	}
	in, err := wire.ParseDefaultLexicons(body)
	if err != nil {
		return fault.ToError(err, "")
	}
	if werr := d.lexicons.SetDefaultLexicons(r.Context(), route.Info(r.Context()).Account, in.Lexicons); werr != nil {
		return werr
	}
	respond.WriteJSON(w, http.StatusOK, in)
	return nil
}
