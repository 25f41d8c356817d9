package admin_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	elapi "github.com/voxkit/voxkit/server/internal/elevenlabs/api"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/wire"
)

// TestLexicons: an account's lexicons over /v1 — made from a PLS
// document, listed, read back, used by the requests that name them and
// by default, another account's as unknown as none, malformed documents
// refused naming where, gone once deleted.
func TestLexicons(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	l := testserver.CreateLexicon(t, e, e.Key, "acronyms", testserver.WhoPLS)
	if l.Name != "acronyms" || l.Lexemes != 1 || l.Object != "lexicon" || l.Version == "" {
		t.Errorf("created %+v", l)
	}
	res := e.Do("GET", "/v1/lexicons/"+l.ID, e.Key, "", nil)
	doc, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(doc) != testserver.WhoPLS || res.Header.Get("Content-Type") != "application/pls+xml" {
		t.Errorf("GET the lexicon: %d %s %q", res.StatusCode, res.Header.Get("Content-Type"), doc)
	}
	res = e.Do("GET", "/v1/lexicons", e.Key, "", nil)
	var list wire.LexiconList
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.Data) != 1 || list.Data[0].ID != l.ID {
		t.Errorf("list: %+v", list)
	}

	body := func(lexicons string) string {
		return `{"voice":"en-us","input":"We met the WHO today.","response_format":"pcm"` + lexicons + `}`
	}
	_, plain, _ := testserver.SpeechOf(t, e, e.Key, body(""))
	_, named, _ := testserver.SpeechOf(t, e, e.Key, body(`,"lexicons":["`+l.ID+`"]`))
	_, spelled, _ := testserver.SpeechOf(t, e, e.Key, `{"voice":"en-us","input":"We met the World Health Organization today.","response_format":"pcm"}`)
	if !testserver.Near(len(named), len(spelled)) || testserver.Near(len(named), len(plain)) {
		t.Errorf("audio with the lexicon %d bytes, the alias written out %d, without %d: want the alias's length", len(named), len(spelled), len(plain))
	}

	// Another account's lexicon is unknown to it, as one that does not exist.
	for _, path := range []string{"/v1/lexicons/" + l.ID, "/v1/lexicons/nope"} {
		res := e.Do("GET", path, e.OtherKey, "", nil)
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("other account GET %s: %d", path, res.StatusCode)
		}
	}
	if status, _, werr := testserver.SpeechOf(t, e, e.OtherKey, body(`,"lexicons":["`+l.ID+`"]`)); status != 404 || werr.Error.Code != wire.CodeLexiconNotFound {
		t.Errorf("another account's lexicon named: %d %+v", status, werr)
	}

	// Defaults apply to requests that name none; [] names none.
	res = e.Do("PUT", "/v1/account/lexicons", e.Key, "application/json", strings.NewReader(`{"lexicons":["`+l.ID+`"]}`))
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("PUT defaults: %d", res.StatusCode)
	}
	_, byDefault, _ := testserver.SpeechOf(t, e, e.Key, body(""))
	_, none, _ := testserver.SpeechOf(t, e, e.Key, body(`,"lexicons":[]`))
	if !testserver.Near(len(byDefault), len(spelled)) || !testserver.Near(len(none), len(plain)) {
		t.Errorf("by default %d bytes (want %d), naming none %d (want %d)", len(byDefault), len(spelled), len(none), len(plain))
	}
	res = e.Do("PUT", "/v1/account/lexicons", e.OtherKey, "application/json", strings.NewReader(`{"lexicons":["`+l.ID+`"]}`))
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("another account's lexicon as a default: %d", res.StatusCode)
	}

	// Deleted, it is gone, and out of the defaults.
	res = e.Do("DELETE", "/v1/lexicons/"+l.ID, e.Key, "", nil)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("DELETE: %d", res.StatusCode)
	}
	if status, _, _ := testserver.SpeechOf(t, e, e.Key, body(`,"lexicons":["`+l.ID+`"]`)); status != 404 {
		t.Errorf("a deleted lexicon named: %d", status)
	}
	if status, _, _ := testserver.SpeechOf(t, e, e.Key, body("")); status != 200 {
		t.Errorf("after deleting the default lexicon: %d", status)
	}
}

// TestLexiconBadDocuments: each malformed PLS document gets its 400,
// naming the line and column at fault.
func TestLexiconBadDocuments(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	head := `<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en">`
	for name, doc := range map[string]string{
		"not XML":          "hello",
		"unclosed":         head + "\n<lexeme><grapheme>A</grapheme>",
		"unknown alphabet": strings.Replace(head, `"ipa"`, `"arpabet"`, 1) + "\n<lexeme><grapheme>A</grapheme><phoneme>eɪ</phoneme></lexeme></lexicon>",
		"empty grapheme":   head + "\n<lexeme><grapheme> </grapheme><alias>x</alias></lexeme></lexicon>",
		"no pronunciation": head + "\n<lexeme><grapheme>A</grapheme></lexeme></lexicon>",
	} {
		res := e.Do("POST", "/v1/lexicons", e.Key, "application/pls+xml", strings.NewReader(doc))
		var werr testserver.ErrorBody
		json.NewDecoder(res.Body).Decode(&werr)
		res.Body.Close()
		if res.StatusCode != 400 || werr.Error.Code != wire.CodeInvalidLexicon || !strings.Contains(werr.Error.Message, "line ") {
			t.Errorf("%s: %d %+v", name, res.StatusCode, werr)
		}
	}
	res := e.Do("POST", "/v1/lexicons", e.Key, "application/json", strings.NewReader(testserver.WhoPLS))
	res.Body.Close()
	if res.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("a PLS document as JSON: %d", res.StatusCode)
	}
}

// TestLexiconStorageQuota: an account's lexicons hold at most
// Options.LexiconStoragePerAccount bytes of documents, every version
// counted: past it /v1/lexicons, ElevenLabs' dictionaries (a rule added
// stores the whole document again) and Cartesia's are refused with 400
// lexicon_storage_limit_reached; another account has its own.
func TestLexiconStorageQuota(t *testing.T) {
	e := testserver.New(t, testserver.Options{LexiconStorage: int64(2*len(testserver.WhoPLS) + 100)})
	testserver.CreateLexicon(t, e, e.Key, "one", testserver.WhoPLS)
	testserver.CreateLexicon(t, e, e.Key, "two", testserver.WhoPLS)
	res := e.Do("POST", "/v1/lexicons?name=three", e.Key, "application/pls+xml", strings.NewReader(testserver.WhoPLS))
	werr := testserver.APIError(t, res, 400, wire.CodeLexiconStorage)
	if !strings.Contains(werr.Message, "every kept version counted") {
		t.Errorf("message %q", werr.Message)
	}
	testserver.CreateLexicon(t, e, e.OtherKey, "one", testserver.WhoPLS)

	// ElevenLabs: a dictionary of the other account, then rules added
	// until its versions pass the quota.
	var dict elapi.DictionaryAdded
	e.ElevenJSON("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.OtherKey,
		`{"name":"rules","rules":[{"type":"alias","string_to_replace":"NASA","alias":"the space agency"}]}`, 200, &dict)
	refused := false
	for i := 0; i < 10 && !refused; i++ {
		res, b := e.ElevenDo("POST", "/v1/pronunciation-dictionaries/"+dict.ID+"/add-rules", e.OtherKey,
			fmt.Sprintf(`{"rules":[{"type":"alias","string_to_replace":"W%d","alias":"w"}]}`, i))
		switch {
		case res.StatusCode == 400 && strings.Contains(string(b), "every kept version counted"):
			refused = true
		case res.StatusCode != 200:
			t.Fatalf("add-rules %d: %d %s", i, res.StatusCode, b)
		}
	}
	if !refused {
		t.Error("ElevenLabs' add-rules passed the quota ten times")
	}

	// Cartesia: the first account is full.
	res, b := e.CartesiaDo("POST", "/pronunciation-dicts/", e.Key, `{"name":"x","items":[{"text":"WHO","alias":"W H O"}]}`)
	if res.StatusCode != 400 || !strings.Contains(string(b), "every kept version counted") {
		t.Errorf("Cartesia past the quota: %d %s", res.StatusCode, b)
	}
}

// TestPreflightAllowsPut: a page on another origin may set the account's
// default lexicons (PUT /v1/account/lexicons), as it may call the other
// routes: the CORS preflight allows every method the API serves, PUT and
// PATCH (Cartesia's dictionaries) included, and the PUT itself answers.
func TestPreflightAllowsPut(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, method := range []string{"PUT", "PATCH", "DELETE", "POST", "GET"} {
		req, err := http.NewRequest("OPTIONS", e.TS.URL+"/v1/account/lexicons", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", "http://app.example")
		req.Header.Set("Access-Control-Request-Method", method)
		res, err := e.TS.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		allowed := strings.Split(res.Header.Get("Access-Control-Allow-Methods"), ", ")
		if res.StatusCode != http.StatusNoContent || !slices.Contains(allowed, method) {
			t.Errorf("preflight for %s: %d, Access-Control-Allow-Methods %q", method, res.StatusCode, res.Header.Get("Access-Control-Allow-Methods"))
		}
	}
	res := e.Do("PUT", "/v1/account/lexicons", e.Key, "application/json", strings.NewReader(`{"lexicons":[]}`))
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("PUT /v1/account/lexicons: %d", res.StatusCode)
	}
}

// TestLexiconNameIsText: a lexicon's name is text, as key, account and
// clone names are: control characters (a line break, ESC), bidirectional
// and invisible format characters and invalid UTF-8 are refused with 400
// invalid_value on name, and nothing is stored.
func TestLexiconNameIsText(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, name := range []string{"a%0Ab", "%1B%5D0%3Bx%07", "ad%E2%80%8Bmin", "x%E2%80%AEy", "%FF"} {
		res := e.Do("POST", "/v1/lexicons?name="+name, e.Key, "application/pls+xml", strings.NewReader(testserver.WhoPLS))
		var werr testserver.ErrorBody
		json.NewDecoder(res.Body).Decode(&werr)
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest || werr.Error.Code != wire.CodeInvalidValue || werr.Error.Param != "name" {
			t.Errorf("name %s: %d %+v, want 400 invalid_value on name", name, res.StatusCode, werr.Error)
		}
	}
	res := e.Do("GET", "/v1/lexicons", e.Key, "", nil)
	var list wire.LexiconList
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.Data) != 0 {
		t.Errorf("stored: %+v", list.Data)
	}
	if l := testserver.CreateLexicon(t, e, e.Key, "Akronyme%20%C3%A9t%C3%A9", testserver.WhoPLS); l.Name != "Akronyme été" {
		t.Errorf("a plain name: %q", l.Name)
	}
}

// TestLexiconVersionUnknown: GET /v1/lexicons/{id}?version= of a version
// the lexicon does not have says so (404 naming the version), not that
// the account has no such lexicon; an unknown lexicon is still that.
func TestLexiconVersionUnknown(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	l := testserver.CreateLexicon(t, e, e.Key, "acronyms", testserver.WhoPLS)
	for path, want := range map[string]string{
		"/v1/lexicons/" + l.ID + "?version=nope":         `has no version "nope"`,
		"/v1/lexicons/missing?version=" + l.Version:      `no lexicon (pronunciation dictionary) "missing"`,
		"/v1/lexicons/" + l.ID + "?version=" + l.Version: "",
	} {
		res := e.Do("GET", path, e.Key, "", nil)
		var werr testserver.ErrorBody
		json.NewDecoder(res.Body).Decode(&werr)
		res.Body.Close()
		switch {
		case want == "" && res.StatusCode != http.StatusOK:
			t.Errorf("GET %s: %d %+v", path, res.StatusCode, werr.Error)
		case want != "" && (res.StatusCode != http.StatusNotFound || werr.Error.Code != wire.CodeLexiconNotFound || !strings.Contains(werr.Error.Message, want)):
			t.Errorf("GET %s: %d %+v, want 404 lexicon_not_found saying %s", path, res.StatusCode, werr.Error, want)
		}
	}
}
