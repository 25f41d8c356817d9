package wire

import (
	"encoding/json"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// Lexicon is the object of a pronunciation lexicon in /v1/lexicons.
type Lexicon struct {
	ID        string `json:"id"`
	Object    string `json:"object"` // "lexicon"
	Name      string `json:"name"`
	Lexemes   int    `json:"lexemes"`
	Version   string `json:"version"`
	CreatedAt int64  `json:"created_at"`
}

// FromLexicon is the object of a stored lexicon.
func FromLexicon(l store.Lexicon) Lexicon {
	return Lexicon{ID: l.ID, Object: "lexicon", Name: l.Name, Lexemes: l.Lexemes, Version: l.Version, CreatedAt: l.Created.Unix()}
}

// LexiconList is the answer of GET /v1/lexicons.
type LexiconList struct {
	Object string    `json:"object"` // "list"
	Data   []Lexicon `json:"data"`
}

// FromLexicons is the list of stored lexicons.
func FromLexicons(ls []store.Lexicon) LexiconList {
	out := LexiconList{Object: "list", Data: make([]Lexicon, 0, len(ls))}
	for _, l := range ls {
		out.Data = append(out.Data, FromLexicon(l))
	}
	return out
}

// LexiconDeleted answers DELETE /v1/lexicons/{id}.
type LexiconDeleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"` // "lexicon"
	Deleted bool   `json:"deleted"`
}

// DefaultLexicons is the body and answer of /v1/account/lexicons: the
// lexicons applied to the account's requests that name none.
type DefaultLexicons struct {
	Object   string   `json:"object"` // "default_lexicons"
	Lexicons []string `json:"lexicons"`
}

// ParseDefaultLexicons decodes {"lexicons": [id, …]}.
func ParseDefaultLexicons(body []byte) (DefaultLexicons, error) {
	raw, err := decodeObject(body, `{"lexicons":["lex_..."]}`)
	if err != nil {
		return DefaultLexicons{}, err
	}
	ids, err := lexiconsField(raw)
	if err != nil {
		return DefaultLexicons{}, err
	}
	if ids == nil {
		return DefaultLexicons{}, fault.BadRequest(fault.CodeMissingParameter, "lexicons", "Missing required parameter: 'lexicons' (a list of lexicon ids, [] for none).")
	}
	return DefaultLexicons{Object: "default_lexicons", Lexicons: ids}, nil
}

// lexiconsField reads "lexicons": nil when absent or null (the account's
// defaults apply), else the ids, at most tts.MaxLexicons.
func lexiconsField(raw map[string]json.RawMessage) ([]string, error) {
	v, ok := raw["lexicons"]
	if !ok || isNull(v) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, fault.BadRequest(fault.CodeInvalidType, "lexicons", "lexicons must be a list of lexicon ids (strings), got %s.", kind(v))
	}
	ids := make([]string, len(items))
	for i, item := range items {
		if err := json.Unmarshal(item, &ids[i]); err != nil || isNull(item) {
			return nil, fault.BadRequest(fault.CodeInvalidType, "lexicons", "lexicons[%d] must be a lexicon id (a string), got %s.", i, kind(item))
		}
	}
	if len(ids) > tts.MaxLexicons {
		return nil, fault.BadRequest(fault.CodeInvalidValue, "lexicons", "A request may name at most %d lexicons; this one names %d.", tts.MaxLexicons, len(ids))
	}
	for _, id := range ids {
		if id == "" || len(id) > MaxClientID {
			return nil, fault.BadRequest(fault.CodeInvalidValue, "lexicons", "A lexicon id must have 1 to %d bytes, got %d.", MaxClientID, len(id))
		}
	}
	return ids, nil
}
