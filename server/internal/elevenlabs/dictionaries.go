package elevenlabs

import (
	"net/http"
	"path"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/elevenlabs/api"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/lexicons"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
)

// mountDictionaries registers the routes of ElevenLabs' pronunciation
// dictionaries on a store that keeps lexicons: a dictionary is an
// account's lexicon, its versions the lexicon's (package wire shapes
// them).
func (d *door) mountDictionaries(handle func(string, route.Methods), base string) {
	if _, ok := d.c.Store.(store.Lexicons); !ok {
		return
	}
	base += "/pronunciation-dictionaries"
	handle(base, route.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.list)})
	for _, from := range []string{"/add-from-file", "/add-from-rules"} {
		handle(base+from, route.Methods{http.MethodPost: d.as(store.ScopeAdmin, d.add)})
	}
	handle(base+"/{id}", route.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.read)})
	handle(base+"/{id}/{version}/download", route.Methods{http.MethodGet: d.as(store.ScopeSpeech, d.read)})
	for _, op := range []string{"add-rules", "remove-rules", "set-rules"} {
		handle(base+"/{id}/"+op, route.Methods{http.MethodPost: d.as(store.ScopeAdmin, d.rules)})
	}
}

// add answers POST /add-from-file (multipart: name, file) and
// /add-from-rules (JSON: name, rules) with the new dictionary.
func (d *door) add(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	body, werr := d.c.Body.ReadBodyOf(w, r, lexicon.MaxBytes+64<<10, "multipart/form-data", "application/json")
	var nd api.NewDictionary
	if werr == nil {
		nd, werr = api.ParseNewDictionary(r.Header.Get("Content-Type"), body, path.Base(r.URL.Path) == "add-from-file")
	}
	if werr != nil {
		return toError(werr)
	}
	stored, werr := d.c.Lexicons.CreateLexicon(r.Context(), account, nd.Name, nd.Lexicon, nd.PLS)
	if werr != nil {
		return toError(werr)
	}
	respond.WriteJSON(w, http.StatusOK, api.AddedOf(stored))
	return nil
}

// list answers GET /v1/pronunciation-dictionaries.
func (d *door) list(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	ls, werr := d.c.Lexicons.ListLexicons(r.Context(), account)
	if werr != nil {
		return toError(werr)
	}
	page, werr := api.DictionaryPage(ls, r.URL.Query())
	if werr != nil {
		return toError(werr)
	}
	respond.WriteJSON(w, http.StatusOK, page)
	return nil
}

// read answers GET /{id} with the metadata and the rules of the latest
// version, and GET /{id}/{version}/download with the version's PLS.
func (d *door) read(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	version := r.PathValue("version")
	stored, l, werr := d.c.Lexicons.StoredLexicon(r.Context(), account, r.PathValue("id"), version)
	if werr != nil {
		return toError(werr)
	} else if version == "" {
		respond.WriteJSON(w, http.StatusOK, api.DictionaryOf(stored, l))
		return nil
	}
	w.Header().Set("Content-Type", "application/pls+xml")
	w.Write(stored.PLS)
	return nil
}

// rules answers POST /{id}/add-rules, /remove-rules and /set-rules: a new
// version of the dictionary with its rules so changed.
func (d *door) rules(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	body, werr := d.c.Body.ReadBody(w, r)
	var b api.DictionaryRules
	if werr == nil {
		b, werr = api.ParseDictionaryRules(body)
	}
	if werr != nil {
		return toError(werr)
	}
	stored, werr := d.c.Lexicons.ReviseLexicon(r.Context(), account, r.PathValue("id"), func(l *lexicon.Lexicon) (*lexicon.Lexicon, *fault.Error) {
		return b.Apply(l, path.Base(r.URL.Path) == "set-rules")
	})
	if werr != nil {
		return toError(werr)
	}
	respond.WriteJSON(w, http.StatusOK, api.VersionOf(stored))
	return nil
}

// refsOf maps pronunciation_dictionary_locators, in their order, onto the
// core's lexicon refs; none given (nil) lets the account's default
// lexicons apply.
func refsOf(locs []api.Locator) ([]lexicons.LexiconRef, *api.Error) {
	if werr := api.CheckLocators(locs); werr != nil {
		return nil, toError(werr)
	}
	if locs == nil {
		return nil, nil
	}
	refs := make([]lexicons.LexiconRef, len(locs))
	for i, l := range locs {
		refs[i] = lexicons.LexiconRef(l)
	}
	return refs, nil
}
