package admin

import (
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// Pronunciation lexicons owned by an account (/v1/lexicons): W3C PLS 1.0
// documents, checked by package lexicon when they arrive and stored as
// sent; the account's default lexicons (/v1/account/lexicons) apply to
// its requests that name none.

// plsType is the media type of a PLS document; the XML types are taken
// too.
const plsType = "application/pls+xml"

// maxLexiconName bounds a lexicon's name, in characters.
const maxLexiconName = 128

// mountLexicons registers the lexicon routes on a store that keeps them.
func (d *door) mountLexicons(route func(string, core.Methods), ls store.Lexicons) {
	c := d.c
	l := lexicons{door: d, store: ls}
	route("/v1/lexicons", core.Methods{http.MethodGet: c.Authed(store.ScopeSpeech, l.list), http.MethodPost: c.Authed(store.ScopeAdmin, l.create)})
	route("/v1/lexicons/{id}", core.Methods{http.MethodGet: c.Authed(store.ScopeSpeech, l.get), http.MethodDelete: c.Authed(store.ScopeAdmin, l.delete)})
	route("/v1/account/lexicons", core.Methods{http.MethodGet: c.Authed(store.ScopeSpeech, l.defaults), http.MethodPut: c.Authed(store.ScopeAdmin, l.setDefaults)})
}

// lexicons serves the lexicon routes.
type lexicons struct {
	*door
	store store.Lexicons
}

// create answers POST /v1/lexicons?name=…: the body a PLS document.
func (l lexicons) create(w http.ResponseWriter, r *http.Request) error {
	body, werr := l.c.ReadBodyOf(w, r, lexicon.MaxBytes, plsType, "application/xml", "text/xml")
	if werr != nil {
		return werr
	}
	name := r.URL.Query().Get("name")
	if utf8.RuneCountInString(name) > maxLexiconName || !utf8.ValidString(name) {
		return wire.BadRequest(wire.CodeInvalidValue, "name", "name must be UTF-8 of at most %d characters.", maxLexiconName)
	}
	parsed, err := lexicon.Parse(body)
	if err != nil {
		return wire.BadLexicon(err)
	}
	account := core.Info(r.Context()).Account
	stored, err := l.store.CreateLexicon(r.Context(), store.Lexicon{Account: account, Name: name, PLS: body, Lexemes: len(parsed.Lexemes)}, l.maxLexicons)
	switch {
	case errors.Is(err, store.ErrLimit):
		return wire.LexiconLimit(l.maxLexicons)
	case err != nil:
		return err
	}
	l.c.LexiconsChanged(account)
	core.WriteJSON(w, http.StatusCreated, wire.FromLexicon(stored))
	return nil
}

// list answers GET /v1/lexicons.
func (l lexicons) list(w http.ResponseWriter, r *http.Request) error {
	ls, err := l.store.ListLexicons(r.Context(), core.Info(r.Context()).Account)
	if err != nil {
		return err
	}
	core.WriteJSON(w, http.StatusOK, wire.FromLexicons(ls))
	return nil
}

// get answers GET /v1/lexicons/{id}[?version=…] with the PLS document.
func (l lexicons) get(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	stored, err := l.store.Lexicon(r.Context(), core.Info(r.Context()).Account, id, r.URL.Query().Get("version"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return wire.LexiconNotFound(id)
	case err != nil:
		return err
	}
	h := w.Header()
	h.Set("Content-Type", plsType)
	h.Set("Cache-Control", "no-store")
	h.Set("x-lexicon-version", stored.Version)
	w.Write(stored.PLS)
	return nil
}

// delete answers DELETE /v1/lexicons/{id}.
func (l lexicons) delete(w http.ResponseWriter, r *http.Request) error {
	id, account := r.PathValue("id"), core.Info(r.Context()).Account
	_, err := l.store.DeleteLexicon(r.Context(), account, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return wire.LexiconNotFound(id)
	case err != nil:
		return err
	}
	l.c.LexiconsChanged(account)
	core.WriteJSON(w, http.StatusOK, wire.LexiconDeleted{ID: id, Object: "lexicon", Deleted: true})
	return nil
}

// defaults answers GET /v1/account/lexicons.
func (l lexicons) defaults(w http.ResponseWriter, r *http.Request) error {
	ids, err := l.store.DefaultLexicons(r.Context(), core.Info(r.Context()).Account)
	if err != nil {
		return err
	}
	core.WriteJSON(w, http.StatusOK, wire.DefaultLexicons{Object: "default_lexicons", Lexicons: append([]string{}, ids...)})
	return nil
}

// setDefaults answers PUT /v1/account/lexicons {"lexicons": [id, …]}.
func (l lexicons) setDefaults(w http.ResponseWriter, r *http.Request) error {
	body, werr := l.c.ReadBody(w, r)
	if werr != nil {
		return werr
	}
	in, err := wire.ParseDefaultLexicons(body)
	if err != nil {
		return wire.ToError(err, "")
	}
	account := core.Info(r.Context()).Account
	if err := l.store.SetDefaultLexicons(r.Context(), account, in.Lexicons); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return l.unknownOf(r, in.Lexicons)
		}
		return err
	}
	l.c.LexiconsChanged(account)
	core.WriteJSON(w, http.StatusOK, in)
	return nil
}

// unknownOf is the 404 naming the first of ids the account has no
// lexicon of.
func (l lexicons) unknownOf(r *http.Request, ids []string) error {
	ls, err := l.store.ListLexicons(r.Context(), core.Info(r.Context()).Account)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, x := range ls {
		have[x.ID] = true
	}
	for _, id := range ids {
		if !have[id] {
			return wire.LexiconNotFound(id)
		}
	}
	return wire.LexiconNotFound(ids[0])
}
