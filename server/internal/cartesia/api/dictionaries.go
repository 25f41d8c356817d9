// Cartesia's pronunciation dictionaries (/pronunciation-dicts) are the
// account's lexicons, those of /v1/lexicons: a dictionary's items become
// a lexicon (lexicon.New) stored as PLS, an update of its items a new
// version. Each lexeme reads back as an item, its first grapheme the
// text. A pronunciation written <<p|h|o|n|e|s>> is IPA, any other an
// alias. case_sensitive: false (Cartesia's default) matches the text as
// written, in lower and upper case and capitalized; true as written, and
// capitalized when it begins in lower case.
package api

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
)

// Item is an item of a dictionary; alias is Cartesia's older name of
// pronunciation.
type Item struct {
	Text          string `json:"text"`
	Pronunciation string `json:"pronunciation"`
	Alias         string `json:"alias"`
	CaseSensitive bool   `json:"case_sensitive"`
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

// ToLexicon makes items a lexicon.
func ToLexicon(items []Item) (*lexicon.Lexicon, *fault.Error) {
	lexemes := make([]lexicon.Lexeme, len(items))
	for i, it := range items {
		p := cmp.Or(it.Pronunciation, it.Alias)
		if strings.TrimSpace(it.Text) == "" {
			return nil, fault.BadRequest(fault.CodeInvalidLexicon, "items", "items[%d].text is empty.", i)
		}
		if strings.TrimSpace(p) == "" {
			return nil, fault.BadRequest(fault.CodeInvalidLexicon, "items", "items[%d].pronunciation is empty.", i)
		}
		lexemes[i] = lexicon.Lexeme{Graphemes: graphemes(it.Text, it.CaseSensitive), Alias: p}
		if strings.HasPrefix(p, "<<") && strings.HasSuffix(p, ">>") {
			lexemes[i].Alias, lexemes[i].Phonemes = "", strings.NewReplacer("<<", "", ">>", "", "|", "").Replace(p)
		} else if strings.Contains(p, "<<") {
			return nil, fault.BadRequest(fault.CodeInvalidLexicon, "items", "items[%d].pronunciation mixes words and <<phonemes>>: voxkit takes one or the other.", i)
		}
	}
	l, err := lexicon.New("", lexemes)
	if err != nil {
		return nil, fault.BadLexicon(err)
	}
	return l, nil
}

// Of is a stored lexicon as a Cartesia dictionary.
func Of(s store.Lexicon, l *lexicon.Lexicon) map[string]any {
	items := []Item{}
	for _, x := range l.Lexemes {
		var words []string // of the phonemes, each as Cartesia writes them
		for _, word := range strings.Fields(x.Phonemes) {
			words = append(words, "<<"+strings.Join(strings.Split(word, ""), "|")+">>")
		}
		p := cmp.Or(x.Alias, strings.Join(words, " "))
		items = append(items, Item{Text: x.Graphemes[0], Pronunciation: p, Alias: p, CaseSensitive: !slices.Equal(x.Graphemes, graphemes(x.Graphemes[0], false))})
	}
	return map[string]any{"id": s.ID, "name": s.Name, "owner_id": s.Account, "pinned": false, "items": items, "created_at": s.Created.UTC().Format(time.RFC3339)}
}
