package cartesia

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// Cartesia's pronunciation dictionaries (/pronunciation-dicts) are the
// account's lexicons, those of /v1/lexicons: a dictionary's items become
// a lexicon (lexicon.New) stored as PLS, an update of its items a new
// version. Each lexeme reads back as an item, its first grapheme the
// text. A pronunciation written <<p|h|o|n|e|s>> is IPA, any other an
// alias. case_sensitive: false (Cartesia's default) matches the text as
// written, in lower and upper case and capitalized; true as written, and
// capitalized when it begins in lower case.

// dictItem is an item of a dictionary; alias is Cartesia's older name of
// pronunciation.
type dictItem struct {
	Text          string `json:"text"`
	Pronunciation string `json:"pronunciation"`
	Alias         string `json:"alias"`
	CaseSensitive bool   `json:"case_sensitive"`
}

// dicts serves the dictionaries; max is the most lexicons an account may
// hold.
type dicts struct {
	door
	ls  store.Lexicons
	max int
}

// graphemes are the forms of text a dictionary item matches.
func graphemes(text string, sensitive bool) []string {
	capital := func(s string) string { r, n := utf8.DecodeRuneInString(s); return string(unicode.ToUpper(r)) + s[n:] }
	forms := []string{text, strings.ToLower(text), strings.ToUpper(text), capital(strings.ToLower(text))}
	if sensitive {
		forms = []string{text}
		if r, _ := utf8.DecodeRuneInString(text); unicode.IsLower(r) {
			forms = append(forms, capital(text))
		}
	}
	out := []string{}
	for _, f := range forms {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// toPLS makes items a lexicon and returns it as PLS.
func toPLS(items []dictItem) ([]byte, int, *apiError) {
	lexemes := make([]lexicon.Lexeme, len(items))
	for i, it := range items {
		p := cmp.Or(it.Pronunciation, it.Alias)
		lexemes[i] = lexicon.Lexeme{Graphemes: graphemes(it.Text, it.CaseSensitive), Alias: p}
		if strings.HasPrefix(p, "<<") && strings.HasSuffix(p, ">>") {
			lexemes[i].Alias, lexemes[i].Phonemes = "", strings.NewReplacer("<<", "", ">>", "", "|", "").Replace(p)
		} else if strings.Contains(p, "<<") {
			return nil, 0, badRequest(wire.CodeInvalidLexicon, "items[%d].pronunciation mixes words and <<phonemes>>: voxkit takes one or the other.", i)
		}
	}
	l, err := lexicon.New("", lexemes)
	if err == nil {
		_, err = lexicon.Parse(l.Marshal()) // within the bounds of a stored document
	}
	if err != nil {
		return nil, 0, toError(wire.BadLexicon(err))
	}
	return l.Marshal(), len(lexemes), nil
}

// dictOf is a stored lexicon as a Cartesia dictionary.
func dictOf(s store.Lexicon, l *lexicon.Lexicon) map[string]any {
	items := []dictItem{}
	for _, x := range l.Lexemes {
		var words []string // of the phonemes, each as Cartesia writes them
		for _, word := range strings.Fields(x.Phonemes) {
			words = append(words, "<<"+strings.Join(strings.Split(word, ""), "|")+">>")
		}
		p := cmp.Or(x.Alias, strings.Join(words, " "))
		items = append(items, dictItem{Text: x.Graphemes[0], Pronunciation: p, Alias: p, CaseSensitive: !slices.Equal(x.Graphemes, graphemes(x.Graphemes[0], false))})
	}
	return map[string]any{"id": s.ID, "name": s.Name, "owner_id": s.Account, "pinned": false, "items": items, "created_at": s.Created.UTC().Format(time.RFC3339)}
}

// dict is the latest version of the account's lexicon id as a dictionary.
func (x dicts) dict(r *http.Request, account, id string) (map[string]any, *apiError) {
	s, err := x.ls.Lexicon(r.Context(), account, id, "")
	if err != nil {
		return nil, x.failed(r, id, err)
	}
	l, err := lexicon.Parse(s.PLS)
	if err != nil {
		return nil, toError(x.c.WireError(r, err))
	}
	return dictOf(s, l), nil
}

// failed is the answer to a store's failure with the lexicon id.
func (x dicts) failed(r *http.Request, id string, err error) *apiError {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return toError(wire.LexiconNotFound(id))
	case errors.Is(err, store.ErrLimit):
		return toError(wire.LexiconLimit(x.max))
	}
	return toError(x.c.WireError(r, err))
}

// get answers GET /pronunciation-dicts/{id}.
func (x dicts) get(w http.ResponseWriter, r *http.Request, account string) *apiError {
	d, e := x.dict(r, account, r.PathValue("id"))
	if e == nil {
		core.WriteJSON(w, http.StatusOK, d)
	}
	return e
}

// edit answers POST /pronunciation-dicts/ {name, items} and PATCH
// /pronunciation-dicts/{id} (items: a new version; a lexicon's name does
// not change).
func (x dicts) edit(w http.ResponseWriter, r *http.Request, account string) *apiError {
	var in struct {
		Name  *string    `json:"name"`
		Items []dictItem `json:"items"`
	}
	if e := x.decode(w, r, &in); e != nil {
		return e
	}
	id := r.PathValue("id")
	if id == "" && (in.Name == nil || *in.Name == "" || utf8.RuneCountInString(*in.Name) > 128 || !utf8.ValidString(*in.Name)) {
		return badRequest(wire.CodeInvalidValue, "name is required: UTF-8 of 1 to 128 characters.")
	}
	pls, n, e := toPLS(in.Items)
	if e != nil {
		return e
	}
	var err error
	if id == "" {
		var s store.Lexicon
		s, err = x.ls.CreateLexicon(r.Context(), store.Lexicon{Account: account, Name: *in.Name, PLS: pls, Lexemes: n}, x.max)
		id = s.ID
	} else if in.Items != nil {
		_, err = x.ls.AddLexiconVersion(r.Context(), account, id, pls, n)
	}
	if in.Name != nil && r.Method == http.MethodPatch {
		w.Header().Set("X-Voxkit-Ignored", "name")
	}
	if err != nil {
		return x.failed(r, id, err)
	}
	x.c.LexiconsChanged(account)
	r.SetPathValue("id", id)
	return x.get(w, r, account)
}

// remove answers DELETE /pronunciation-dicts/{id} with 204.
func (x dicts) remove(w http.ResponseWriter, r *http.Request, account string) *apiError {
	if _, err := x.ls.DeleteLexicon(r.Context(), account, r.PathValue("id")); err != nil {
		return x.failed(r, r.PathValue("id"), err)
	}
	x.c.LexiconsChanged(account)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// list answers GET /pronunciation-dicts/, in pages as the voices.
func (x dicts) list(w http.ResponseWriter, r *http.Request, account string) *apiError {
	all, err := x.ls.ListLexicons(r.Context(), account)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return toError(x.c.WireError(r, err))
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
	core.WriteJSON(w, http.StatusOK, map[string]any{"data": list, "has_more": more})
	return nil
}
