package api

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/store"
)

func TestLexemesOfRules(t *testing.T) {
	yes := true
	got, werr := LexemesOf([]Rule{
		{Type: RuleAlias, StringToReplace: "WHO", Alias: "World Health Organization", CaseSensitive: &yes},
		{Type: RulePhoneme, StringToReplace: "tomato", Phoneme: "t@\"mA:toU", Alphabet: "X-SAMPA"},
	})
	want := []lexicon.Lexeme{{Graphemes: []string{"WHO"}, Alias: "World Health Organization"},
		{Graphemes: []string{"tomato"}, Phonemes: "təˈmɑːtoʊ"}}
	if werr != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("LexemesOf: %+v %v, want %+v", got, werr, want)
	}
	if rules := RulesOf(want); len(rules) != 2 || rules[1].Alphabet != lexicon.IPA || rules[1].Phoneme != "təˈmɑːtoʊ" || !*rules[0].CaseSensitive {
		t.Errorf("RulesOf: %+v", rules)
	}
	if _, werr := LexemesOf([]Rule{{Type: RuleAlias, StringToReplace: "a", Alias: "b"}, {Type: RulePhoneme, StringToReplace: "c", Phoneme: "k", Alphabet: "cmu-arpabet"}}); werr == nil ||
		werr.Status != 400 || !strings.HasPrefix(werr.Message, "rules[1]: ") {
		t.Errorf("cmu-arpabet: %v", werr)
	}
}

func TestEditRules(t *testing.T) {
	lexemes := []lexicon.Lexeme{{Graphemes: []string{"WHO", "W.H.O."}, Alias: "World Health Organization"},
		{Graphemes: []string{"New York"}, Alias: "the city"}}
	got := EditRules(lexemes, []string{"W.H.O.", " New   York "}, []lexicon.Lexeme{{Graphemes: []string{"WHO"}, Alias: "who"}})
	want := []lexicon.Lexeme{{Graphemes: []string{"WHO"}, Alias: "who"}}
	if !reflect.DeepEqual(got, want) || len(lexemes[0].Graphemes) != 2 {
		t.Errorf("EditRules: %+v, want %+v (and lexemes unchanged: %+v)", got, want, lexemes)
	}
}

func TestDictionaryPage(t *testing.T) {
	var ls []store.Lexicon
	for i, name := range []string{"b", "c", "a"} {
		ls = append(ls, store.Lexicon{ID: fmt.Sprint(i), Name: name, Created: time.Unix(int64(i), 0)})
	}
	ids := func(p DictionaryList) (out string) {
		for _, d := range p.Dictionaries {
			out += d.ID
		}
		return out
	}
	for query, want := range map[string]string{
		"":                                   "210",
		"sort_direction=ascending":           "012",
		"sort=name&sort_direction=ascending": "201",
		"sort=name":                          "102",
		"page_size=2":                        "21",
		"page_size=2&cursor=2":               "0",
		"cursor=9":                           "",
		"page_size=2&sort_direction=ascending&x=1": "01",
	} {
		q, _ := url.ParseQuery(query)
		p, werr := DictionaryPage(ls, q)
		if werr != nil || ids(p) != want || p.HasMore != (query == "page_size=2" || strings.HasPrefix(query, "page_size=2&sort")) {
			t.Errorf("%q: %s has_more %v %v, want %s", query, ids(p), p.HasMore, werr, want)
		}
	}
	for _, query := range []string{"page_size=0", "page_size=101", "cursor=x", "sort=size", "sort_direction=up"} {
		q, _ := url.ParseQuery(query)
		if _, werr := DictionaryPage(ls, q); werr == nil || werr.Status != 400 {
			t.Errorf("%q: %v, want a 400", query, werr)
		}
	}
}

func TestParseNewDictionary(t *testing.T) {
	form := "--B\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nacronyms\r\n--B\r\n" +
		"Content-Disposition: form-data; name=\"file\"; filename=\"a.pls\"\r\n\r\n" +
		`<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa">` +
		"<lexeme><grapheme>WHO</grapheme><alias>W</alias></lexeme></lexicon>\r\n--B--\r\n"
	d, werr := ParseNewDictionary("multipart/form-data; boundary=B", []byte(form), true)
	if werr != nil || d.Name != "acronyms" || len(d.Lexicon.Lexemes) != 1 || !strings.HasPrefix(string(d.PLS), "<lexicon") {
		t.Errorf("from a file: %+v %v", d, werr)
	}
	if _, werr := ParseNewDictionary("multipart/form-data; boundary=B", []byte(strings.Replace(form, "acronyms", "", 1)), true); werr == nil || werr.Param != "name" {
		t.Errorf("no name: %v", werr)
	}
	d, werr = ParseNewDictionary("", []byte(`{"name":"r","rules":[{"type":"alias","string_to_replace":"WHO","alias":"W"}]}`), false)
	if werr != nil || d.Name != "r" || len(d.Lexicon.Lexemes) != 1 {
		t.Errorf("from rules: %+v %v", d, werr)
	}
	if _, werr := ParseNewDictionary("", []byte(`{"name":`), false); werr == nil || werr.Status != 422 {
		t.Errorf("malformed JSON: %v", werr)
	}
}

func ExampleLexemesOf() {
	lexemes, werr := LexemesOf([]Rule{
		{Type: RuleAlias, StringToReplace: "WHO", Alias: "World Health Organization"},
		{Type: RulePhoneme, StringToReplace: "Nguyen", Phoneme: "N_wi@n", Alphabet: "x-sampa"},
	})
	if werr != nil {
		fmt.Println(werr.Message)
		return
	}
	for _, r := range RulesOf(lexemes) {
		if r.Type == RuleAlias {
			fmt.Printf("%s: alias %q\n", r.StringToReplace, r.Alias)
		} else {
			fmt.Printf("%s: phoneme %q in %s\n", r.StringToReplace, r.Phoneme, r.Alphabet)
		}
	}
	// Output:
	// WHO: alias "World Health Organization"
	// Nguyen: phoneme "ŋʷiən" in ipa
}

// TestParseDictionaryRulesFaults: a body that is not rules is a 422 that
// names the field in the body's own words, never a Go type.
func TestParseDictionaryRulesFaults(t *testing.T) {
	for body, want := range map[string]string{
		`{"name":"d","rules":"x"}`:          "rules cannot be a JSON string.",
		`{"name":"d","rules":[{"type":1}]}`: "rules.type cannot be a JSON number.",
		`{"name":"d",`:                      "malformed JSON at byte 12.",
		`[1]`:                               "it is not a JSON object.",
	} {
		_, werr := ParseDictionaryRules([]byte(body))
		if werr == nil || werr.Status != 422 || !strings.HasSuffix(werr.Message, ": "+want) || strings.Contains(werr.Message, "Go ") {
			t.Errorf("%s: %+v, want a 422 ending %q", body, werr, want)
		}
	}
}
