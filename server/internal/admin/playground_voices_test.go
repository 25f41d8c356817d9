package admin_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/servertest"
)

// TestPlaygroundVoicesPaged: the Voices tab lists a page of voices at a
// time (a server with a few hundred voices made it 17,000 px tall), with
// the place in the list, next and previous, and a filter by text and by
// language and engine that starts again at the first page.
func TestPlaygroundVoicesPaged(t *testing.T) {
	p := newPage(t)
	var ids []string
	for i := range 60 {
		ids = append(ids, fmt.Sprintf("v%02d", i))
	}
	synth := fakeSynthesizer(t, ids...)
	srv := servertest.Start(t, servertest.Options{Synthesizer: synth, Server: server.Options{Aliases: map[string]string{},
		Authenticate: func(*http.Request) (string, error) { return "alice", nil }}}).Server
	ts := httptest.NewServer(srv)
	defer ts.Close()
	p.do(chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible("#tabs"))
	p.do(chromedp.Click("#tab-voices"), chromedp.WaitVisible("#allvoices"))
	p.wait(`document.querySelectorAll("#allvoices button.sample").length > 0`)
	listed := func() int { return eval[int](p, `document.querySelectorAll("#allvoices button.sample").length`) }
	if n, place := listed(), p.text("#allvoices-page"); n != 25 || place != "1–25 of 60 voices" {
		t.Errorf("first page: %d voices listed, %q", n, place)
	}
	p.do(chromedp.Click("#allvoices-next"))
	p.do(chromedp.Click("#allvoices-next"))
	if n, place := listed(), p.text("#allvoices-page"); n != 10 || place != "51–60 of 60 voices" || !eval[bool](p, `document.getElementById("allvoices-next").disabled`) {
		t.Errorf("last page: %d voices listed, %q", n, place)
	}
	p.do(chromedp.Click("#allvoices-prev"))
	if place := p.text("#allvoices-page"); place != "26–50 of 60 voices" {
		t.Errorf("back a page: %q", place)
	}
	p.do(chromedp.SendKeys("#allvoices-search", "v5"))
	p.wait(`document.getElementById("allvoices-page").textContent === "1–10 of 10 voices"`)
	if n := listed(); n != 10 {
		t.Errorf("filtered: %d voices listed", n)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`const s = document.getElementById("allvoices-search"); s.value = ""; s.dispatchEvent(new Event("input"))`))
	groups := eval[[]string](p, `[...document.getElementById("allvoices-group").options].map((o) => o.value)`)
	if len(groups) != 2 || groups[0] != "" {
		t.Fatalf("group choices %q, want all and the fake engine's", groups)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`const g = document.getElementById("allvoices-group"); g.value = g.options[1].value; g.dispatchEvent(new Event("change"))`))
	if place := p.text("#allvoices-page"); place != "1–25 of 60 voices" {
		t.Errorf("by group: %q", place)
	}
	p.shot("voices-paged")
}
