package elevenlabs_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	elapi "github.com/voxkit/voxkit/server/internal/elevenlabs/api"
	"github.com/voxkit/voxkit/server/wire"
)

// elevenDetail is ElevenLabs' error body.
type elevenDetail struct {
	Detail struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	} `json:"detail"`
}

// TestElevenLabsDictionaries: ElevenLabs' pronunciation dictionaries on
// its door — made from a PLS file and from rules, the same lexicons
// /v1/lexicons lists, listed in pages, read with their rules, changed
// into new versions, each version downloadable and usable by its
// locator; another account's as unknown as none.
func TestElevenLabsDictionaries(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	res, b := e.AddDictionaryFile(e.Key, "acronyms", testserver.WhoPLS)
	var file elapi.DictionaryAdded
	json.Unmarshal(b, &file)
	if res.StatusCode != 200 || file.ID == "" || file.VersionID == "" || file.Name != "acronyms" || file.VersionRulesNum != 1 ||
		file.CreatedBy != "local" || file.CreationTimeUnix == 0 {
		t.Fatalf("add-from-file: %d %s", res.StatusCode, b)
	}
	var lexicons wire.LexiconList
	json.NewDecoder(e.Do("GET", "/v1/lexicons", e.Key, "", nil).Body).Decode(&lexicons)
	if len(lexicons.Data) != 1 || lexicons.Data[0].ID != file.ID || lexicons.Data[0].Version != file.VersionID {
		t.Errorf("/v1/lexicons: %+v, want the dictionary %s", lexicons, file.ID)
	}

	var rules elapi.DictionaryAdded
	e.ElevenJSON("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.Key, `{"name":"rules","rules":[
		{"type":"alias","string_to_replace":"WHO","alias":"World Health Organization","case_sensitive":true,"word_boundaries":true},
		{"type":"phoneme","string_to_replace":"tomato","phoneme":"təˈmɑːtoʊ","alphabet":"ipa"}]}`, 200, &rules)
	if rules.VersionRulesNum != 2 || rules.Name != "rules" {
		t.Errorf("add-from-rules: %+v", rules)
	}

	// The list, newest first, in pages.
	var page elapi.DictionaryList
	e.ElevenJSON("GET", "/v1/pronunciation-dictionaries?page_size=1", e.Key, "", 200, &page)
	if len(page.Dictionaries) != 1 || page.Dictionaries[0].ID != rules.ID || !page.HasMore || page.NextCursor == nil {
		t.Fatalf("first page: %+v", page)
	}
	e.ElevenJSON("GET", "/v1/pronunciation-dictionaries?page_size=1&cursor="+*page.NextCursor, e.Key, "", 200, &page)
	if len(page.Dictionaries) != 1 || page.Dictionaries[0].ID != file.ID || page.HasMore || page.NextCursor != nil {
		t.Errorf("second page: %+v", page)
	}

	// Get: the rules of the latest version.
	var got elapi.Dictionary
	e.ElevenJSON("GET", "/v1/pronunciation-dictionaries/"+rules.ID, e.Key, "", 200, &got)
	if got.LatestVersionID != rules.VersionID || got.Rules == nil || len(*got.Rules) != 2 || (*got.Rules)[0].Alias != "World Health Organization" ||
		(*got.Rules)[1].Phoneme != "təˈmɑːtoʊ" || (*got.Rules)[1].Alphabet != "ipa" {
		t.Errorf("get: %+v %+v", got, got.Rules)
	}

	// Rules added and removed make versions; each version stays.
	var added, removed elapi.DictionaryVersion
	e.ElevenJSON("POST", "/v1/pronunciation-dictionaries/"+rules.ID+"/add-rules", e.Key,
		`{"rules":[{"type":"alias","string_to_replace":"NASA","alias":"the space agency"}]}`, 200, &added)
	e.ElevenJSON("POST", "/v1/pronunciation-dictionaries/"+rules.ID+"/remove-rules", e.Key, `{"rule_strings":["WHO"]}`, 200, &removed)
	if added.VersionRulesNum != 3 || removed.VersionRulesNum != 2 || added.VersionID == rules.VersionID || removed.VersionID == added.VersionID {
		t.Errorf("add-rules %+v, then remove-rules %+v", added, removed)
	}
	for version, want := range map[string]bool{rules.VersionID: true, added.VersionID: true, removed.VersionID: false} {
		res, doc := e.ElevenDo("GET", "/v1/pronunciation-dictionaries/"+rules.ID+"/"+version+"/download", e.Key, "")
		if res.StatusCode != 200 || strings.Contains(string(doc), "<grapheme>WHO</grapheme>") != want {
			t.Errorf("download of version %s: %d %s", version, res.StatusCode, doc)
		}
	}

	// Speech with locators: the latest version, or the one named.
	text := "We met the WHO today."
	_, plain := e.ElevenPCM(e.Key, text, "")
	_, spelled := e.ElevenPCM(e.Key, "We met the World Health Organization today.", "")
	for name, c := range map[string]struct {
		locators string
		want     []byte
	}{
		"file":                  {`[{"pronunciation_dictionary_id":"` + file.ID + `"}]`, spelled},
		"rules, first version":  {`[{"pronunciation_dictionary_id":"` + rules.ID + `","version_id":"` + rules.VersionID + `"}]`, spelled},
		"rules, latest version": {`[{"pronunciation_dictionary_id":"` + rules.ID + `"}]`, plain},
	} {
		if status, pcm := e.ElevenPCM(e.Key, text, c.locators); status != 200 || !testserver.Near(len(pcm), len(c.want)) {
			t.Errorf("%s: %d, %d bytes; want %d", name, status, len(pcm), len(c.want))
		}
	}

	// Another account's dictionaries are as unknown as none.
	for _, path := range []string{"/v1/pronunciation-dictionaries/" + file.ID, "/v1/pronunciation-dictionaries/" + file.ID + "/" + file.VersionID + "/download"} {
		var d elevenDetail
		e.ElevenJSON("GET", path, e.OtherKey, "", 404, &d)
		if d.Detail.Status != "pronunciation_dictionary_not_found" {
			t.Errorf("another account's GET %s: %+v", path, d)
		}
	}
	e.ElevenJSON("GET", "/v1/pronunciation-dictionaries", e.OtherKey, "", 200, &page)
	if len(page.Dictionaries) != 0 {
		t.Errorf("another account's list: %+v", page)
	}
	var d elevenDetail
	e.ElevenJSON("POST", "/v1/pronunciation-dictionaries/"+file.ID+"/add-rules", e.OtherKey, `{"rules":[]}`, 404, &d)
	status, b := e.ElevenPCM(e.OtherKey, text, `[{"pronunciation_dictionary_id":"`+file.ID+`"}]`)
	json.Unmarshal(b, &d)
	if status != 404 || d.Detail.Status != "pronunciation_dictionary_not_found" {
		t.Errorf("another account's dictionary named in speech: %d %s", status, b)
	}
	var empty elapi.DictionaryAdded
	_, b = e.AddDictionaryFile(e.Key, "empty", "")
	if json.Unmarshal(b, &empty); empty.ID == "" || empty.VersionRulesNum != 0 {
		t.Errorf("add-from-file without a file: %s", b)
	}
	if status, b := e.ElevenPCM(e.Key, text, `[{"pronunciation_dictionary_id":"`+file.ID+`","version_id":"nope"}]`); status != 404 || !strings.Contains(string(b), `no version \"nope\"`) {
		t.Errorf("a version the dictionary does not have: %d %s; want a 404 naming the version", status, b)
	}
	four := strings.Repeat(`{"pronunciation_dictionary_id":"`+file.ID+`"},`, 4)
	if status, b := e.ElevenPCM(e.Key, text, "["+strings.TrimSuffix(four, ",")+"]"); status != 400 {
		t.Errorf("four locators: %d %s", status, b)
	}
}

// TestElevenLabsDictionaryConcurrentRules: rules added at once to one
// dictionary each make a version, and the latest has them all.
func TestElevenLabsDictionaryConcurrentRules(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	var dict elapi.DictionaryAdded
	e.ElevenJSON("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.Key, `{"name":"x","rules":[]}`, 200, &dict)
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"rules":[{"type":"alias","string_to_replace":"W%d","alias":"word %d"}]}`, i, i)
			if res, b := e.ElevenDo("POST", "/v1/pronunciation-dictionaries/"+dict.ID+"/add-rules", e.Key, body); res.StatusCode != 200 {
				t.Errorf("add-rules %d: %d %s", i, res.StatusCode, b)
			}
		}()
	}
	wg.Wait()
	var got elapi.Dictionary
	e.ElevenJSON("GET", "/v1/pronunciation-dictionaries/"+dict.ID, e.Key, "", 200, &got)
	if got.LatestVersionRulesNum != n || got.Rules == nil || len(*got.Rules) != n {
		t.Errorf("after %d concurrent add-rules: %d rules %+v", n, got.LatestVersionRulesNum, got.Rules)
	}
}

// TestElevenLabsDictionaryBadInput: each malformed dictionary gets its
// 400 in ElevenLabs' shape, a malformed PLS naming line and column.
func TestElevenLabsDictionaryBadInput(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	res, b := e.AddDictionaryFile(e.Key, "broken", strings.Replace(testserver.WhoPLS, "</lexeme>", "", 1))
	var d elevenDetail
	json.Unmarshal(b, &d)
	if res.StatusCode != 400 || d.Detail.Status != wire.CodeInvalidLexicon || !strings.Contains(d.Detail.Message, "line 4, column") {
		t.Errorf("malformed PLS: %d %s", res.StatusCode, b)
	}
	if res, b := e.AddDictionaryFile(e.Key, "", testserver.WhoPLS); res.StatusCode != 400 || !strings.Contains(string(b), "name") {
		t.Errorf("no name: %d %s", res.StatusCode, b)
	}
	for name, c := range map[string]struct {
		rules, want string
	}{
		"cmu alphabet":       {`{"type":"phoneme","string_to_replace":"tomato","phoneme":"T AH0 M EY1 T OW2","alphabet":"cmu-arpabet"}`, `"cmu-arpabet"`},
		"case insensitive":   {`{"type":"alias","string_to_replace":"WHO","alias":"W H O","case_sensitive":false}`, "case_sensitive"},
		"empty string":       {`{"type":"alias","string_to_replace":" ","alias":"x"}`, "string_to_replace is empty"},
		"no alias":           {`{"type":"alias","string_to_replace":"WHO"}`, "non-empty alias"},
		"unknown type":       {`{"type":"sound","string_to_replace":"WHO","alias":"x"}`, "rules[0]"},
		"bad x-sampa phones": {`{"type":"phoneme","string_to_replace":"a","phoneme":"$$","alphabet":"x-sampa"}`, "no symbol starts with"},
	} {
		var d elevenDetail
		e.ElevenJSON("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.Key, `{"name":"x","rules":[`+c.rules+`]}`, 400, &d)
		if !strings.Contains(d.Detail.Message, c.want) {
			t.Errorf("%s: %+v, want a message naming %s", name, d.Detail, c.want)
		}
	}
	res, b = e.ElevenDo("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.Key, `{"name":`)
	if res.StatusCode != 422 {
		t.Errorf("malformed JSON: %d %s", res.StatusCode, b)
	}
}

// TestElevenLabsDictionaryOnSockets: a context's first message names
// dictionaries as ElevenLabs takes them; an unknown one is the context's
// error.
func TestElevenLabsDictionaryOnSockets(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	_, b := e.AddDictionaryFile(e.Key, "acronyms", testserver.WhoPLS)
	var dict elapi.DictionaryAdded
	json.Unmarshal(b, &dict)
	_, spelled := e.ElevenPCM(e.Key, "We met the World Health Organization today.", "")
	c := e.ElevenSocket("/v1/text-to-speech/en-us/stream-input?output_format=pcm_24000")
	testserver.SendJSON(t, c, map[string]any{"text": " ", "pronunciation_dictionary_locators": []map[string]string{
		{"pronunciation_dictionary_id": dict.ID, "version_id": dict.VersionID}}})
	testserver.SendJSON(t, c, map[string]any{"text": "We met the WHO today. "})
	testserver.SendJSON(t, c, map[string]any{"text": ""})
	if pcm := readElevenAudio(t, c, nil); !testserver.CloseTo(len(pcm), len(spelled), 0.1) {
		t.Errorf("stream-input with the dictionary: %d bytes, the alias spelled out over HTTP %d", len(pcm), len(spelled))
	}

	m := e.ElevenSocket("/v1/text-to-speech/en-us/multi-stream-input?output_format=pcm_24000")
	testserver.SendJSON(t, m, map[string]any{"text": " ", "context_id": "a", "pronunciation_dictionary_locators": []map[string]string{
		{"pronunciation_dictionary_id": "nope"}}})
	if got := testserver.ReadEleven(t, m); got.ContextID != "a" || !strings.Contains(got.Error, "nope") {
		t.Errorf("an unknown dictionary: %+v", got)
	}
}

// TestElevenLabsDictionaryHeard: by ear, a dictionary named by
// pronunciation_dictionary_locators is read as its alias.
func TestElevenLabsDictionaryHeard(t *testing.T) {
	if testing.Short() {
		t.Skip("the recognizer listens for seconds; make test runs it")
	}
	audiotest.Require(t, "pocketsphinx_continuous", "ffmpeg")
	e := testserver.New(t, testserver.Options{})
	var dict elapi.DictionaryAdded
	e.ElevenJSON("POST", "/v1/pronunciation-dictionaries/add-from-rules", e.Key,
		`{"name":"acronyms","rules":[{"type":"alias","string_to_replace":"WHO","alias":"World Health Organization"}]}`, 200, &dict)
	res, wav := e.ElevenDo("POST", "/v1/text-to-speech/en-us?output_format=wav_16000", e.Key,
		`{"text":"We met the WHO today.","pronunciation_dictionary_locators":[{"pronunciation_dictionary_id":"`+dict.ID+`","version_id":"`+dict.VersionID+`"}]}`)
	if res.StatusCode != 200 {
		t.Fatalf("speech: %d %s", res.StatusCode, wav)
	}
	alias := "we met the world health organization today"
	candidates := []string{alias, "we met the who today", "we met the w h o today"}
	if heard := audiotest.Recognize(t, audiotest.WriteTemp(t, wav, "wav"), candidates); heard != alias {
		t.Errorf("heard %q, want %q", heard, alias)
	}
}
