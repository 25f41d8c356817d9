package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/internal/audiotest"
	elapi "github.com/voxkit/voxkit/server/internal/elevenlabs/api"
	"github.com/voxkit/voxkit/server/wire"
)

// errorBody is an OpenAI-shaped error answer.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Param   string `json:"param"`
	} `json:"error"`
}

// createLexicon uploads pls as key's account and returns its object.
func createLexicon(t *testing.T, e *testserver.Env, key, name, pls string) wire.Lexicon {
	t.Helper()
	res := e.Do("POST", "/v1/lexicons?name="+name, key, "application/pls+xml", strings.NewReader(pls))
	defer res.Body.Close()
	var l wire.Lexicon
	if res.StatusCode != http.StatusCreated || json.NewDecoder(res.Body).Decode(&l) != nil || l.ID == "" {
		t.Fatalf("POST /v1/lexicons: %d %+v", res.StatusCode, l)
	}
	return l
}

// speechOf is the answer to a speech request body as key.
func speechOf(t *testing.T, e *testserver.Env, key, body string) (status int, audio []byte, werr errorBody) {
	t.Helper()
	res := e.Do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(body))
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		json.Unmarshal(data, &werr)
	}
	return res.StatusCode, data, werr
}

// TestLexicons: an account's lexicons over /v1 — made from a PLS
// document, listed, read back, used by the requests that name them and
// by default, another account's as unknown as none, malformed documents
// refused naming where, gone once deleted.
func TestLexicons(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	l := createLexicon(t, e, e.Key, "acronyms", testserver.WhoPLS)
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
	_, plain, _ := speechOf(t, e, e.Key, body(""))
	_, named, _ := speechOf(t, e, e.Key, body(`,"lexicons":["`+l.ID+`"]`))
	_, spelled, _ := speechOf(t, e, e.Key, `{"voice":"en-us","input":"We met the World Health Organization today.","response_format":"pcm"}`)
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
	if status, _, werr := speechOf(t, e, e.OtherKey, body(`,"lexicons":["`+l.ID+`"]`)); status != 404 || werr.Error.Code != wire.CodeLexiconNotFound {
		t.Errorf("another account's lexicon named: %d %+v", status, werr)
	}

	// Defaults apply to requests that name none; [] names none.
	res = e.Do("PUT", "/v1/account/lexicons", e.Key, "application/json", strings.NewReader(`{"lexicons":["`+l.ID+`"]}`))
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("PUT defaults: %d", res.StatusCode)
	}
	_, byDefault, _ := speechOf(t, e, e.Key, body(""))
	_, none, _ := speechOf(t, e, e.Key, body(`,"lexicons":[]`))
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
	if status, _, _ := speechOf(t, e, e.Key, body(`,"lexicons":["`+l.ID+`"]`)); status != 404 {
		t.Errorf("a deleted lexicon named: %d", status)
	}
	if status, _, _ := speechOf(t, e, e.Key, body("")); status != 200 {
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
		var werr errorBody
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

// TestLexiconHeardOverHTTP: by ear, a lexicon named on /v1 is read as its
// alias.
func TestLexiconHeardOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("the recognizer listens for seconds; make test runs it")
	}
	audiotest.Require(t, "pocketsphinx_continuous", "ffmpeg")
	e := testserver.New(t, testserver.Options{})
	l := createLexicon(t, e, e.Key, "", testserver.WhoPLS)
	alias := "we met the world health organization today"
	candidates := []string{alias, "we met the who today", "we met the w h o today"}
	_, wav, _ := speechOf(t, e, e.Key, `{"voice":"en-us","input":"We met the WHO today.","response_format":"wav","lexicons":["`+l.ID+`"]}`)
	if heard := audiotest.Recognize(t, audiotest.WriteTemp(t, wav, "wav"), candidates); heard != alias {
		t.Errorf("heard %q, want %q", heard, alias)
	}
}

// TestWyomingDefaultLexicons: Wyoming, whose clients name no lexicons,
// speaks with the account's default lexicons, whole texts and streams.
func TestWyomingDefaultLexicons(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	addr := testserver.StartWyoming(t, e)
	speak := func(stream bool) []byte {
		c := testserver.DialWyoming(t, addr)
		voice := map[string]any{"name": "en-us"}
		if stream {
			c.Send("synthesize-start", map[string]any{"voice": voice})
			c.Send("synthesize-chunk", map[string]any{"text": "We met the WHO today."})
			c.Send("synthesize-stop", nil)
		} else {
			c.Send("synthesize", map[string]any{"text": "We met the WHO today.", "voice": voice})
		}
		pcm, _, _ := c.Audio()
		return pcm
	}
	plain := speak(false)
	l := createLexicon(t, e, e.Key, "", testserver.WhoPLS)
	res := e.Do("PUT", "/v1/account/lexicons", e.Key, "application/json", strings.NewReader(`{"lexicons":["`+l.ID+`"]}`))
	res.Body.Close()
	_, spelled, _ := speechOf(t, e, e.Key, `{"voice":"en-us","input":"We met the World Health Organization today.","response_format":"pcm"}`)
	for _, stream := range []bool{false, true} {
		pcm := speak(stream)
		if !testserver.SameLength(pcm, 22050, spelled) || testserver.Near(len(pcm), len(plain)) {
			t.Errorf("stream %v: %d bytes with the default lexicon, %d without; want the alias's length", stream, len(pcm), len(plain))
		}
	}
}

// TestSocketLexicons: voxkit's WebSocket applies the lexicons a
// speech.create names (whole input and input streams alike), and another
// account's lexicon is as unknown to it as one that does not exist.
func TestSocketLexicons(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	l := createLexicon(t, e, e.Key, "", testserver.WhoPLS)
	// bytesOf is the audio of one speech.create, or its error's code.
	bytesOf := func(key string, create map[string]any, inputs ...map[string]any) (int, string) {
		c := testserver.DialWS(t, e, key)
		if m := testserver.Next(t, c); m.Type != "ready" {
			t.Fatalf("got %+v", m)
		}
		testserver.SendWS(t, c, create)
		for _, in := range inputs {
			testserver.SendWS(t, c, in)
		}
		n := 0
		for {
			switch m := testserver.Next(t, c); m.Type {
			case "binary":
				n += m.Binary
			case "speech.done":
				return n, ""
			case "error":
				code, _ := m.Error["code"].(string)
				return n, code
			}
		}
	}
	create := func(lexicons []string, stream bool) map[string]any {
		m := map[string]any{"type": "speech.create", "id": "r", "voice": "en-us", "input": "We met the WHO today.", "response_format": "pcm"}
		if lexicons != nil {
			m["lexicons"] = lexicons
		}
		if stream {
			m["input"], m["input_stream"] = "", true
		}
		return m
	}
	plain, _ := bytesOf(e.Key, create(nil, false))
	named, _ := bytesOf(e.Key, create([]string{l.ID}, false))
	streamed, _ := bytesOf(e.Key, create([]string{l.ID}, true),
		map[string]any{"type": "input.append", "id": "r", "text": "We met the WHO today."},
		map[string]any{"type": "input.done", "id": "r"})
	if testserver.Near(named, plain) || !testserver.Near(streamed, named) {
		t.Errorf("audio %d bytes without the lexicon, %d with it, %d streamed with it", plain, named, streamed)
	}
	if _, code := bytesOf(e.OtherKey, create([]string{l.ID}, false)); code != wire.CodeLexiconNotFound {
		t.Errorf("another account's lexicon: %q, want %s", code, wire.CodeLexiconNotFound)
	}
}

// TestLexiconStorageQuota: an account's lexicons hold at most
// Options.LexiconStoragePerAccount bytes of documents, every version
// counted: past it /v1/lexicons, ElevenLabs' dictionaries (a rule added
// stores the whole document again) and Cartesia's are refused with 400
// lexicon_storage_limit_reached; another account has its own.
func TestLexiconStorageQuota(t *testing.T) {
	e := testserver.New(t, testserver.Options{LexiconStorage: int64(2*len(testserver.WhoPLS) + 100)})
	createLexicon(t, e, e.Key, "one", testserver.WhoPLS)
	createLexicon(t, e, e.Key, "two", testserver.WhoPLS)
	res := e.Do("POST", "/v1/lexicons?name=three", e.Key, "application/pls+xml", strings.NewReader(testserver.WhoPLS))
	werr := testserver.APIError(t, res, 400, wire.CodeLexiconStorage)
	if !strings.Contains(werr.Message, "every kept version counted") {
		t.Errorf("message %q", werr.Message)
	}
	createLexicon(t, e, e.OtherKey, "one", testserver.WhoPLS)

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

// TestNormalizeAppliesLexicons: GET /v1/normalize (the playground's "Read
// as") reads as speech does: the account's default lexicons when the
// request names none, those named with lexicons=ID,…, none with an empty
// lexicons=; another account's lexicon is a 404 as in speech.
func TestNormalizeAppliesLexicons(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	l := createLexicon(t, e, e.Key, "acronyms", testserver.WhoPLS)
	read := func(key, query string) (int, wire.Normalization) {
		t.Helper()
		res := e.Do("GET", "/v1/normalize?voice=en-us&text="+url.QueryEscape("We met the WHO today.")+query, key, "", nil)
		defer res.Body.Close()
		var n wire.Normalization
		json.NewDecoder(res.Body).Decode(&n)
		return res.StatusCode, n
	}
	const alias = "We met the World Health Organization today."
	if status, n := read(e.Key, "&lexicons="+l.ID); status != 200 || n.Text != alias {
		t.Errorf("named: %d %q", status, n.Text)
	}
	if status, n := read(e.Key, ""); status != 200 || n.Text != "We met the WHO today." {
		t.Errorf("no defaults yet: %d %q", status, n.Text)
	}
	res := e.Do("PUT", "/v1/account/lexicons", e.Key, "application/json", strings.NewReader(`{"lexicons":["`+l.ID+`"]}`))
	res.Body.Close()
	if status, n := read(e.Key, ""); status != 200 || n.Text != alias || len(n.Spans) == 0 || !slices.ContainsFunc(n.Spans, func(s wire.NormalizationSpan) bool {
		return s.Changed && s.InputStart == len("We met the ") && s.InputEnd == len("We met the WHO")
	}) {
		t.Errorf("by default: %d %+v", status, n)
	}
	if status, n := read(e.Key, "&lexicons="); status != 200 || n.Text != "We met the WHO today." {
		t.Errorf("none named: %d %q", status, n.Text)
	}
	if status, _ := read(e.OtherKey, "&lexicons="+l.ID); status != 404 {
		t.Errorf("another account's lexicon: %d", status)
	}
}
