package admin_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/voxkit/voxkit/internal/testkit/supertonictest"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/servertest"
)

// TestPlaygroundSupertonicVoices: a Supertonic model's voices are in the
// playground's voice picker and its Voices tab, grouped by the language
// each speaks (MODEL:F1 English, MODEL:F1:de German …), and one speaks.
func TestPlaygroundSupertonicVoices(t *testing.T) {
	p := newPage(t)
	synth := testserver.SupertonicEnv(t).Synth
	srv := servertest.Start(t, servertest.Options{Synthesizer: synth, Server: server.Options{Aliases: map[string]string{},
		Authenticate: func(*http.Request) (string, error) { return "alice", nil }}}).Server
	ts := httptest.NewServer(srv)
	defer ts.Close()
	p.do(chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible("#tabs"))
	p.wait(`document.querySelectorAll("#voice option").length > 0`)
	m := supertonictest.Model
	group := func(id string) string {
		return eval[string](p, `(document.querySelector('#voice option[value="`+id+`"]') || {parentElement: {label: ""}}).parentElement.label`)
	}
	for id, want := range map[string]string{m + ":F1": "English · supertonic", m + ":M2:de": "German · supertonic", m + ":F3:ko": "Korean · supertonic"} {
		if got := group(id); got != want {
			t.Errorf("voice picker: %s in group %q, want %q", id, got, want)
		}
	}
	p.do(chromedp.SetValue("#voice", m+":M2:de"))
	p.setText("Guten Tag, wie geht es Ihnen?", 0)
	if d := p.speak(); d < 0.5 {
		t.Errorf("%s spoke %.3f s", m+":M2:de", d)
	}
	p.do(chromedp.Click("#tab-voices"), chromedp.WaitVisible("#allvoices"))
	p.wait(`document.querySelectorAll("#allvoices button.sample").length > 0`)
	groups := eval[[]string](p, `[...document.getElementById("allvoices-group").options].map((o) => o.textContent)`)
	found := map[string]bool{}
	for _, g := range groups {
		found[g] = true
	}
	for _, want := range []string{"English · supertonic (10)", "German · supertonic (10)", "Vietnamese · supertonic (10)"} {
		if !found[want] {
			t.Errorf("Voices tab: no group %q in %q", want, groups)
		}
	}
	p.shot("supertonic-voices")
}
