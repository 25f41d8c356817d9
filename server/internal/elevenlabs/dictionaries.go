package elevenlabs

import (
	"errors"
	"net/http"
	"path"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// mountDictionaries registers the routes of ElevenLabs' pronunciation
// dictionaries on a store that keeps lexicons: a dictionary is an
// account's lexicon, its versions the lexicon's (package wire shapes
// them).
func (d *door) mountDictionaries(route func(string, core.Methods), base string) {
	if d.lexicons, _ = d.c.Store.(store.Lexicons); d.lexicons == nil {
		return
	}
	base += "/pronunciation-dictionaries"
	route(base, core.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.list)})
	for _, from := range []string{"/add-from-file", "/add-from-rules"} {
		route(base+from, core.Methods{http.MethodPost: d.as(store.ScopeAdmin, d.add)})
	}
	route(base+"/{id}", core.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.read)})
	route(base+"/{id}/{version}/download", core.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.read)})
	for _, op := range []string{"add-rules", "remove-rules", "set-rules"} {
		route(base+"/{id}/"+op, core.Methods{http.MethodPost: d.as(store.ScopeAdmin, d.rules)})
	}
}

// add answers POST /add-from-file (multipart: name, file) and
// /add-from-rules (JSON: name, rules) with the new dictionary.
func (d *door) add(w http.ResponseWriter, r *http.Request, account string) *apiError {
	body, werr := d.c.ReadBodyOf(w, r, lexicon.MaxBytes+64<<10, "multipart/form-data", "application/json")
	var nd wire.NewDictionary
	if werr == nil {
		nd, werr = wire.ParseNewDictionary(r.Header.Get("Content-Type"), body, path.Base(r.URL.Path) == "add-from-file")
	}
	if werr != nil {
		return toError(werr)
	}
	stored, err := d.lexicons.CreateLexicon(r.Context(), store.Lexicon{Account: account, Name: nd.Name, PLS: nd.PLS, Lexemes: len(nd.Lexicon.Lexemes)}, d.c.MaxLexicons)
	if errors.Is(err, store.ErrLimit) {
		return toError(wire.LexiconLimit(d.c.MaxLexicons))
	} else if eerr := d.failed(r, "", err); eerr != nil {
		return eerr
	}
	d.c.LexiconsChanged(account)
	core.WriteJSON(w, http.StatusOK, wire.AddedOf(stored))
	return nil
}

// failed is the answer of a store's err about dictionary id: nil for
// none, a 404 for ErrNotFound, else a 500.
func (d *door) failed(r *http.Request, id string, err error) *apiError {
	if errors.Is(err, store.ErrNotFound) {
		return toError(wire.LexiconNotFound(id))
	} else if err != nil {
		return toError(d.c.WireError(r, err))
	}
	return nil
}

// lexicon returns a version of account's dictionary id ("": the latest),
// and its document parsed.
func (d *door) lexicon(r *http.Request, account, id, version string) (store.Lexicon, *lexicon.Lexicon, *apiError) {
	stored, err := d.lexicons.Lexicon(r.Context(), account, id, version)
	var l *lexicon.Lexicon
	if err == nil {
		l, err = lexicon.Parse(stored.PLS) // stored only once parsed: a failure is the server's
	}
	return stored, l, d.failed(r, id, err)
}

// list answers GET /v1/pronunciation-dictionaries.
func (d *door) list(w http.ResponseWriter, r *http.Request, account string) *apiError {
	ls, err := d.lexicons.ListLexicons(r.Context(), account)
	if eerr := d.failed(r, "", err); eerr != nil {
		return eerr
	}
	page, werr := wire.DictionaryPage(ls, r.URL.Query())
	if werr != nil {
		return toError(werr)
	}
	core.WriteJSON(w, http.StatusOK, page)
	return nil
}

// read answers GET /{id} with the metadata and the rules of the latest
// version, and GET /{id}/{version}/download with the version's PLS.
func (d *door) read(w http.ResponseWriter, r *http.Request, account string) *apiError {
	version := r.PathValue("version")
	stored, l, eerr := d.lexicon(r, account, r.PathValue("id"), version)
	if eerr != nil {
		return eerr
	} else if version == "" {
		core.WriteJSON(w, http.StatusOK, wire.DictionaryOf(stored, l))
		return nil
	}
	w.Header().Set("Content-Type", "application/pls+xml")
	w.Write(stored.PLS)
	return nil
}

// rules answers POST /{id}/add-rules, /remove-rules and /set-rules: a new
// version of the dictionary with its rules so changed.
func (d *door) rules(w http.ResponseWriter, r *http.Request, account string) *apiError {
	body, werr := d.c.ReadBody(w, r)
	var b wire.DictionaryRules
	if werr == nil {
		b, werr = wire.ParseDictionaryRules(body)
	}
	if werr != nil {
		return toError(werr)
	}
	d.edit.Lock()
	defer d.edit.Unlock()
	id := r.PathValue("id")
	_, l, eerr := d.lexicon(r, account, id, "")
	if eerr != nil {
		return eerr
	}
	nl, werr := b.Apply(l, path.Base(r.URL.Path) == "set-rules")
	if werr != nil {
		return toError(werr)
	}
	stored, err := d.lexicons.AddLexiconVersion(r.Context(), account, id, nl.Marshal(), len(nl.Lexemes))
	if eerr := d.failed(r, id, err); eerr != nil { // ErrNotFound: deleted meanwhile
		return eerr
	}
	d.c.LexiconsChanged(account)
	core.WriteJSON(w, http.StatusOK, wire.VersionOf(stored))
	return nil
}

// refsOf maps pronunciation_dictionary_locators, in their order, onto the
// core's lexicon refs; none given (nil) lets the account's default
// lexicons apply.
func refsOf(locs []wire.Locator) ([]core.LexiconRef, *apiError) {
	if werr := wire.CheckLocators(locs); werr != nil {
		return nil, toError(werr)
	}
	if locs == nil {
		return nil, nil
	}
	refs := make([]core.LexiconRef, len(locs))
	for i, l := range locs {
		refs[i] = core.LexiconRef(l)
	}
	return refs, nil
}
