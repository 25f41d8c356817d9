package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// ElevenLabs' pronunciation dictionaries, as its API shapes them: a
// dictionary is an account's lexicon (the same one /v1/lexicons lists),
// its versions the lexicon's, and its rules the lexicon's lexemes, one
// rule for each grapheme.

// MaxLocators is the most pronunciation_dictionary_locators one request
// may carry, as ElevenLabs allows.
const MaxLocators = 3

// Rule kinds and the alphabets of phoneme rules.
const (
	RuleAlias   = "alias"
	RulePhoneme = "phoneme"
)

// Locator names a dictionary, and one of its versions ("": the latest).
type Locator struct {
	ID      string `json:"pronunciation_dictionary_id"`
	Version string `json:"version_id"`
}

// CheckLocators refuses more than MaxLocators locators, or one without
// an id, with a 400.
func CheckLocators(locs []Locator) *fault.Error {
	const param = "pronunciation_dictionary_locators"
	if len(locs) > MaxLocators {
		return fault.BadRequest(fault.CodeInvalidValue, param, "A request may name at most %d pronunciation dictionaries; this one names %d.", MaxLocators, len(locs))
	}
	for i, l := range locs {
		if l.ID == "" || len(l.ID) > wire.MaxClientID || len(l.Version) > wire.MaxClientID {
			return fault.BadRequest(fault.CodeInvalidValue, param, "%s[%d]: pronunciation_dictionary_id must have 1 to %d bytes, and version_id at most %d.", param, i, wire.MaxClientID, wire.MaxClientID)
		}
	}
	return nil
}

// Rule is a rule of a dictionary: an alias or a phoneme string read for
// StringToReplace. voxkit matches every rule case-sensitively at word
// boundaries (package lexicon), so it refuses either set false.
type Rule struct {
	Type            string `json:"type"`
	StringToReplace string `json:"string_to_replace"`
	CaseSensitive   *bool  `json:"case_sensitive,omitempty"`
	WordBoundaries  *bool  `json:"word_boundaries,omitempty"`
	Alias           string `json:"alias,omitempty"`
	Phoneme         string `json:"phoneme,omitempty"`
	Alphabet        string `json:"alphabet,omitempty"`
}

// LexemesOf are the lexemes of rules, one each, in their order; a rule
// voxkit cannot take is a 400 naming it.
func LexemesOf(rules []Rule) ([]lexicon.Lexeme, *fault.Error) {
	out := make([]lexicon.Lexeme, len(rules))
	for i, r := range rules {
		bad := func(format string, args ...any) *fault.Error {
			return fault.BadRequest(fault.CodeInvalidValue, "rules", "rules[%d]: %s", i, fmt.Sprintf(format, args...))
		}
		x := lexicon.Lexeme{Graphemes: []string{r.StringToReplace}}
		switch {
		case strings.TrimSpace(r.StringToReplace) == "":
			return nil, bad("string_to_replace is empty.")
		case r.CaseSensitive != nil && !*r.CaseSensitive, r.WordBoundaries != nil && !*r.WordBoundaries:
			return nil, bad("voxkit matches rules case-sensitively at word boundaries; case_sensitive and word_boundaries may not be false (give each case as its own rule).")
		case r.Type == RuleAlias && strings.TrimSpace(r.Alias) != "":
			x.Alias = r.Alias
		case r.Type == RulePhoneme && strings.TrimSpace(r.Phoneme) != "":
			switch a := strings.ToLower(r.Alphabet); a {
			case lexicon.IPA:
				x.Phonemes = r.Phoneme
			case lexicon.XSAMPA:
				ipa, err := lexicon.XSAMPAToIPA(r.Phoneme)
				if err != nil {
					return nil, bad("%s.", err)
				}
				x.Phonemes = ipa
			default:
				return nil, bad("alphabet %s: voxkit speaks phoneme rules in %q or %q, not %s.", fault.Echo(r.Alphabet), lexicon.IPA, lexicon.XSAMPA, cmp.Or(a, "none"))
			}
		default:
			return nil, bad("want type %q with a non-empty alias, or %q with a non-empty phoneme and its alphabet.", RuleAlias, RulePhoneme)
		}
		out[i] = x
	}
	return out, nil
}

// RulesOf are the rules of lexemes: one for each grapheme.
func RulesOf(lexemes []lexicon.Lexeme) []Rule {
	yes := true
	out := []Rule{}
	for _, x := range lexemes {
		for _, g := range x.Graphemes {
			r := Rule{Type: RuleAlias, StringToReplace: g, CaseSensitive: &yes, WordBoundaries: &yes, Alias: x.Alias}
			if x.Alias == "" {
				r.Type, r.Phoneme, r.Alphabet = RulePhoneme, x.Phonemes, lexicon.IPA
			}
			out = append(out, r)
		}
	}
	return out
}

// EditRules returns lexemes without the graphemes of remove (white space
// collapsed, as lexicon keeps graphemes) nor the lexemes left with none,
// then add: a rule added for a string that has one replaces it.
func EditRules(lexemes []lexicon.Lexeme, remove []string, add []lexicon.Lexeme) []lexicon.Lexeme {
	gone := map[string]bool{}
	for _, s := range remove {
		gone[strings.Join(strings.Fields(s), " ")] = true
	}
	for _, x := range add {
		gone[strings.Join(strings.Fields(x.Graphemes[0]), " ")] = true
	}
	var out []lexicon.Lexeme
	for _, x := range lexemes {
		x.Graphemes = slices.DeleteFunc(slices.Clone(x.Graphemes), func(g string) bool { return gone[g] })
		if len(x.Graphemes) > 0 {
			out = append(out, x)
		}
	}
	return append(out, add...)
}

// MaxDictionaryName bounds a dictionary's name, in characters.
const MaxDictionaryName = 128

// CheckDictionaryName refuses an empty name, or one past
// MaxDictionaryName, with a 400.
func CheckDictionaryName(name string) *fault.Error {
	if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > MaxDictionaryName || !utf8.ValidString(name) {
		return fault.BadRequest(fault.CodeInvalidValue, "name", "name is required: text of 1 to %d characters.", MaxDictionaryName)
	}
	return nil
}

// NewDictionary is a dictionary to create: its name, its document (as
// sent, or made of rules) and the document parsed.
type NewDictionary struct {
	Name    string
	PLS     []byte
	Lexicon *lexicon.Lexicon
}

// ParseNewDictionary reads the body of add-from-file (fromFile; ct its
// content type) or of add-from-rules. add-from-file's is a multipart
// form: name, file (a PLS document; none makes an empty dictionary),
// description and workspace_access (accepted, not kept); a document
// lexicon.Parse refuses is fault.BadLexicon's 400. add-from-rules's is a
// DictionaryRules with a name.
func ParseNewDictionary(ct string, body []byte, fromFile bool) (NewDictionary, *fault.Error) {
	if !fromFile {
		b, werr := ParseDictionaryRules(body)
		var l *lexicon.Lexicon
		if werr == nil {
			l, werr = b.Apply(nil, true)
		}
		if werr == nil {
			werr = CheckDictionaryName(b.Name)
		}
		if werr != nil {
			return NewDictionary{}, werr
		}
		return NewDictionary{Name: b.Name, PLS: l.Marshal(), Lexicon: l}, nil
	}
	_, params, err := mime.ParseMediaType(ct)
	var form *multipart.Form
	if err == nil {
		form, err = multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(int64(len(body)) + 1)
	}
	if err != nil {
		return NewDictionary{}, fault.BadRequest(fault.CodeInvalidValue, "", "The body is not well-formed multipart/form-data: %s.", fault.Clip(err.Error(), 200))
	}
	defer form.RemoveAll()
	d := NewDictionary{PLS: (&lexicon.Lexicon{}).Marshal()}
	if names := form.Value["name"]; len(names) == 1 {
		d.Name = names[0]
	}
	if werr := CheckDictionaryName(d.Name); werr != nil {
		return NewDictionary{}, werr
	}
	if files := form.File["file"]; len(files) > 0 {
		f, err := files[0].Open()
		if err == nil {
			d.PLS, err = io.ReadAll(f) // in memory: ReadForm kept it there
		}
		if err != nil {
			return NewDictionary{}, fault.BadRequest(fault.CodeInvalidValue, "file", "The file could not be read: %s.", fault.Clip(err.Error(), 200))
		}
	}
	if d.Lexicon, err = lexicon.Parse(d.PLS); err != nil {
		return NewDictionary{}, fault.BadLexicon(err)
	}
	return d, nil
}

// DictionaryRules is the body of add-from-rules, add-rules, remove-rules
// and set-rules.
type DictionaryRules struct {
	Name        string   `json:"name"`
	Rules       []Rule   `json:"rules"`
	RuleStrings []string `json:"rule_strings"`
	// Lexemes are those of Rules.
	Lexemes []lexicon.Lexeme `json:"-"`
}

// ParseDictionaryRules decodes a DictionaryRules body with the lexemes of
// its rules: JSON that is not one is a 422, as ElevenLabs answers it; a
// rule voxkit cannot take a 400.
func ParseDictionaryRules(body []byte) (DictionaryRules, *fault.Error) {
	var b DictionaryRules
	if err := json.Unmarshal(body, &b); err != nil {
		return b, &fault.Error{Status: http.StatusUnprocessableEntity, Type: fault.TypeInvalidRequest, Code: fault.CodeInvalidJSON,
			Message: "The body is not a JSON object of pronunciation rules: " + fault.JSONFault(err)}
	}
	var werr *fault.Error
	b.Lexemes, werr = LexemesOf(b.Rules)
	return b, werr
}

// Apply returns the lexicon l becomes: its lexemes without the strings
// of RuleStrings, with those of Rules (replacing the rules of the same
// strings); with set, or when l is nil, those of Rules alone.
func (b DictionaryRules) Apply(l *lexicon.Lexicon, set bool) (*lexicon.Lexicon, *fault.Error) {
	lexemes, language := b.Lexemes, ""
	if l != nil {
		language = l.Language
		if !set {
			lexemes = EditRules(l.Lexemes, b.RuleStrings, b.Lexemes)
		}
	}
	nl, err := lexicon.New(language, lexemes)
	if err != nil {
		return nil, fault.BadLexicon(err)
	}
	return nl, nil
}

// DictionaryVersion answers a change of a dictionary's rules: its new
// version. version_rules_num counts lexemes (a lexeme of a PLS document
// with several graphemes is one).
type DictionaryVersion struct {
	ID              string `json:"id"`
	VersionID       string `json:"version_id"`
	VersionRulesNum int    `json:"version_rules_num"`
}

// DictionaryAdded answers the creation of a dictionary.
type DictionaryAdded struct {
	DictionaryVersion
	Name                 string `json:"name"`
	CreatedBy            string `json:"created_by"`
	CreationTimeUnix     int64  `json:"creation_time_unix"`
	PermissionOnResource string `json:"permission_on_resource"`
}

// Dictionary is a dictionary's metadata, as the list and get answer it;
// get adds the rules of its latest version.
type Dictionary struct {
	ID                    string  `json:"id"`
	LatestVersionID       string  `json:"latest_version_id"`
	LatestVersionRulesNum int     `json:"latest_version_rules_num"`
	Name                  string  `json:"name"`
	CreatedBy             string  `json:"created_by"`
	CreationTimeUnix      int64   `json:"creation_time_unix"`
	PermissionOnResource  string  `json:"permission_on_resource"`
	Rules                 *[]Rule `json:"rules,omitempty"`
}

// VersionOf is the version object of a stored lexicon.
func VersionOf(l store.Lexicon) DictionaryVersion {
	return DictionaryVersion{ID: l.ID, VersionID: l.Version, VersionRulesNum: l.Lexemes}
}

// AddedOf is the answer of a stored lexicon's creation.
func AddedOf(l store.Lexicon) DictionaryAdded {
	return DictionaryAdded{DictionaryVersion: VersionOf(l), Name: l.Name, CreatedBy: l.Account, CreationTimeUnix: l.Created.Unix(), PermissionOnResource: "admin"}
}

// DictionaryOf is the metadata of a stored lexicon's latest version,
// with the rules of parsed when it is not nil.
func DictionaryOf(l store.Lexicon, parsed *lexicon.Lexicon) Dictionary {
	d := Dictionary{ID: l.ID, LatestVersionID: l.Version, LatestVersionRulesNum: l.Lexemes, Name: l.Name,
		CreatedBy: l.Account, CreationTimeUnix: l.Created.Unix(), PermissionOnResource: "admin"}
	if parsed != nil {
		rules := RulesOf(parsed.Lexemes)
		d.Rules = &rules
	}
	return d
}

// DictionaryList is a page of the list of dictionaries.
type DictionaryList struct {
	Dictionaries []Dictionary `json:"pronunciation_dictionaries"`
	NextCursor   *string      `json:"next_cursor"`
	HasMore      bool         `json:"has_more"`
}

// DictionaryPage is the page of ls that the list's query asks for:
// page_size (1 to 100, 30 by default), cursor (the next_cursor of the
// page before), sort (creation_time_unix or name) and sort_direction
// (descending, the default, or ascending). include_archived is accepted:
// voxkit archives none.
func DictionaryPage(ls []store.Lexicon, q url.Values) (DictionaryList, *fault.Error) {
	size, from := 30, 0
	if s := q.Get("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return DictionaryList{}, fault.BadRequest(fault.CodeInvalidValue, "page_size", "page_size must be a whole number from 1 to 100, not %s.", fault.Echo(s))
		}
		size = n
	}
	if s := q.Get("cursor"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return DictionaryList{}, fault.BadRequest(fault.CodeInvalidValue, "cursor", "cursor %s is not a next_cursor of this list.", fault.Echo(s))
		}
		from = min(n, len(ls))
	}
	ls = slices.Clone(ls) // in the order they were created
	switch q.Get("sort") {
	case "", "creation_time_unix", "created_at_unix":
	case "name":
		slices.SortStableFunc(ls, func(a, b store.Lexicon) int { return strings.Compare(a.Name, b.Name) })
	default:
		return DictionaryList{}, fault.BadRequest(fault.CodeInvalidValue, "sort", "sort must be creation_time_unix or name, not %s.", fault.Echo(q.Get("sort")))
	}
	switch strings.ToLower(q.Get("sort_direction")) {
	case "", "descending", "desc":
		slices.Reverse(ls)
	case "ascending", "asc":
	default:
		return DictionaryList{}, fault.BadRequest(fault.CodeInvalidValue, "sort_direction", "sort_direction must be ascending or descending, not %s.", fault.Echo(q.Get("sort_direction")))
	}
	page := DictionaryList{Dictionaries: []Dictionary{}}
	for _, l := range ls[from:min(from+size, len(ls))] {
		page.Dictionaries = append(page.Dictionaries, DictionaryOf(l, nil))
	}
	if next := from + size; next < len(ls) {
		s := strconv.Itoa(next)
		page.NextCursor, page.HasMore = &s, true
	}
	return page, nil
}
