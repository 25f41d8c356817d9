package cartesia

import (
	"net/http"
	"unicode/utf8"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/cartesia/api"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/store"
)

// dicts serves the dictionaries.
type dicts struct{ door }

// dict is the latest version of the account's lexicon id as a dictionary.
func (x dicts) dict(r *http.Request, account, id string) (map[string]any, *api.Error) {
	s, l, werr := x.c.Lexicons.StoredLexicon(r.Context(), account, id, "")
	if werr != nil {
		return nil, api.FromFault(werr)
	}
	return api.Of(s, l), nil
}

// get answers GET /pronunciation-dicts/{id}.
func (x dicts) get(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	d, e := x.dict(r, account, r.PathValue("id"))
	if e == nil {
		respond.WriteJSON(w, http.StatusOK, d)
	}
	return e
}

// edit answers POST /pronunciation-dicts/ {name, items} and PATCH
// /pronunciation-dicts/{id} (items: a new version; a lexicon's name does
// not change).
func (x dicts) edit(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	var in struct {
		Name  *string    `json:"name"`
		Items []api.Item `json:"items"`
	}
	if e := x.decode(w, r, &in); e != nil {
		return e
	}
	id := r.PathValue("id")
	if id == "" && (in.Name == nil || *in.Name == "" || utf8.RuneCountInString(*in.Name) > 128 || !utf8.ValidString(*in.Name)) {
		return api.BadRequest(fault.CodeInvalidValue, "name is required: UTF-8 of 1 to 128 characters.")
	}
	l, werr := api.ToLexicon(in.Items)
	switch {
	case werr != nil:
	case id == "":
		var s store.Lexicon
		s, werr = x.c.Lexicons.CreateLexicon(r.Context(), account, *in.Name, l, nil)
		id = s.ID
	case in.Items != nil:
		_, werr = x.c.Lexicons.ReviseLexicon(r.Context(), account, id, func(*lexicon.Lexicon) (*lexicon.Lexicon, *fault.Error) { return l, nil })
	}
	if werr != nil {
		return api.FromFault(werr)
	}
	if in.Name != nil && r.Method == http.MethodPatch {
		w.Header().Set("X-Voxkit-Ignored", "name")
	}
	r.SetPathValue("id", id)
	return x.get(w, r, account)
}

// remove answers DELETE /pronunciation-dicts/{id} with 204.
func (x dicts) remove(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	if _, werr := x.c.Lexicons.DeleteLexicon(r.Context(), account, r.PathValue("id")); werr != nil {
		return api.FromFault(werr)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// list answers GET /pronunciation-dicts/, in pages as the voices.
func (x dicts) list(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	all, werr := x.c.Lexicons.ListLexicons(r.Context(), account)
	if werr != nil {
		return api.FromFault(werr)
	}
	part, more, e := page(r, all, func(l store.Lexicon) string { return l.ID })
	if e != nil {
		return e
	}
	list := []map[string]any{}
	for _, l := range part {
		d, e := x.dict(r, account, l.ID)
		if e != nil {
			return e
		}
		list = append(list, d)
	}
	respond.WriteJSON(w, http.StatusOK, map[string]any{"data": list, "has_more": more})
	return nil
}
