package openai_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/wire"
)

// TestLexiconHeardOverHTTP: by ear, a lexicon named on /v1 is read as its
// alias.
func TestLexiconHeardOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("the recognizer listens for seconds; make test runs it")
	}
	audiotest.Require(t, "pocketsphinx_continuous", "ffmpeg")
	e := testserver.New(t, testserver.Options{})
	l := testserver.CreateLexicon(t, e, e.Key, "", testserver.WhoPLS)
	alias := "we met the world health organization today"
	candidates := []string{alias, "we met the who today", "we met the w h o today"}
	_, wav, _ := testserver.SpeechOf(t, e, e.Key, `{"voice":"en-us","input":"We met the WHO today.","response_format":"wav","lexicons":["`+l.ID+`"]}`)
	if heard := audiotest.Recognize(t, audiotest.WriteTemp(t, wav, "wav"), candidates); heard != alias {
		t.Errorf("heard %q, want %q", heard, alias)
	}
}

// TestNormalizeAppliesLexicons: GET /v1/normalize (the playground's "Read
// as") reads as speech does: the account's default lexicons when the
// request names none, those named with lexicons=ID,…, none with an empty
// lexicons=; another account's lexicon is a 404 as in speech.
func TestNormalizeAppliesLexicons(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	l := testserver.CreateLexicon(t, e, e.Key, "acronyms", testserver.WhoPLS)
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
