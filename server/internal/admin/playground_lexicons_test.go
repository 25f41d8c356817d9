package admin_test

import (
	"io"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/chromedp/chromedp"
	"github.com/voxkit/voxkit/server/wire"
)

// TestPlaygroundLexicons: the Voices tab adds a PLS lexicon (its example
// document), refuses a malformed one with the server's line and column,
// marks one as a default, which then applies to a request that names no
// lexicon, and deletes it, default mark and all.
func TestPlaygroundLexicons(t *testing.T) {
	p := newPage(t)
	e := testserver.New(t, testserver.Options{})
	e.SetPassword("local", testserver.TestPassword)
	p.do(chromedp.Navigate(e.TS.URL+"/"), chromedp.WaitVisible("#signin-form"))
	p.do(chromedp.SendKeys("#signin-password", testserver.TestPassword), chromedp.Click("#signin-form button"), chromedp.WaitVisible("#tabs"))
	p.do(chromedp.Click("#tab-voices"), chromedp.WaitVisible("#lexicon-form"))
	who := func() int { // the bytes of "We met the WHO today." said with the account's defaults
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json",
			strings.NewReader(`{"voice":"en-us","input":"We met the WHO today.","response_format":"pcm"}`))
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("speech: %d %s", res.StatusCode, b)
		}
		return len(b)
	}
	plain := who()
	submit := func(name, doc string) (msg string, failed bool) {
		p.do(chromedp.SetValue("#lexicon-name", name))
		if doc != "" {
			p.do(chromedp.SetValue("#lexicon-pls", doc))
		}
		eval[bool](p, `(document.getElementById("lexicon-msg").className = "msg small") !== ""`)
		p.do(chromedp.Click(`#lexicon-form button[type="submit"]`))
		p.wait(`(() => { const m = document.getElementById("lexicon-msg"); return m.classList.contains("ok") || m.classList.contains("err"); })()`)
		return p.text("#lexicon-msg"), eval[bool](p, `document.getElementById("lexicon-msg").classList.contains("err")`)
	}

	broken := "<lexicon version=\"1.0\" xmlns=\"http://www.w3.org/2005/01/pronunciation-lexicon\" alphabet=\"ipa\" xml:lang=\"en-US\">\n" +
		"<lexeme><grapheme></grapheme><alias>x</alias></lexeme></lexicon>"
	if msg, failed := submit("Broken", broken); !failed || !strings.Contains(msg, "line 2") {
		t.Errorf("a malformed lexicon: %q (error %v), want the server's line and column", msg, failed)
	}
	eval[bool](p, `(document.getElementById("lexicon-pls").value = lexiconExample) !== ""`)
	if msg, failed := submit("Acronyms", ""); failed || !strings.Contains(msg, "2 entries") {
		t.Fatalf("adding the example: %q", msg)
	}
	var list wire.LexiconList
	if st := e.Call("GET", "/v1/lexicons", e.Key, "", &list); st != 200 || len(list.Data) != 1 || list.Data[0].Name != "Acronyms" {
		t.Fatalf("the account's lexicons: %d %+v", st, list)
	}
	id := list.Data[0].ID
	row := `#lexicons tr[data-lexicon="` + id + `"]`
	p.wait(`document.querySelector('` + row + `') !== null`)
	if got := who(); !testserver.Near(got, plain) {
		t.Errorf("a lexicon that is not a default changed speech: %d bytes, %d before", got, plain)
	}

	p.do(chromedp.Click(row + ` input[type="checkbox"]`))
	p.wait(`document.getElementById("lexicon-msg").textContent.includes("now applies")`)
	var defaults wire.DefaultLexicons
	if e.Call("GET", "/v1/account/lexicons", e.Key, "", &defaults); len(defaults.Lexicons) != 1 || defaults.Lexicons[0] != id {
		t.Fatalf("defaults after marking: %+v", defaults)
	}
	if got := who(); got < plain*3/2 {
		t.Errorf("the default lexicon's alias was not read: %d bytes, %d without it", got, plain)
	}
	p.wait(`document.querySelector('` + row + ` input[type="checkbox"]').checked`)
	p.shot("voices-lexicons")

	p.do(chromedp.Click(row + ` button.danger`))
	p.wait(`document.querySelector('` + row + `') === null`)
	if e.Call("GET", "/v1/lexicons", e.Key, "", &list); len(list.Data) != 0 {
		t.Errorf("lexicons after deleting: %+v", list.Data)
	}
	if e.Call("GET", "/v1/account/lexicons", e.Key, "", &defaults); len(defaults.Lexicons) != 0 {
		t.Errorf("defaults after deleting: %+v", defaults)
	}
	if got := who(); !testserver.Near(got, plain) {
		t.Errorf("speech after deleting: %d bytes, %d before", got, plain)
	}
}
