package admin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/servertest"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/internal/testkit/browsertest"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// browserPage drives the playground in headless Chromium for one test.
type browserPage struct {
	t     *testing.T
	ctx   context.Context
	shots string // directory of the screenshots
}

// newPage starts headless Chromium, skipping without it (failing in CI),
// with options added to its command line (browsertest.Start).
func newPage(t *testing.T, options ...chromedp.ExecAllocatorOption) *browserPage {
	t.Helper()
	ctx := browsertest.Start(t, 90*time.Second, options...)
	dir := os.Getenv("VOXKIT_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := &browserPage{t: t, ctx: ctx, shots: dir}
	p.do(chromedp.EmulateViewport(1280, 900))
	// Every page records what its Content-Security-Policy blocks.
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.blocked = []; document.addEventListener("securitypolicyviolation", (e) => blocked.push(e.violatedDirective + " " + e.blockedURI));`})
		return err
	}))
	return p
}

func (p *browserPage) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

func (p *browserPage) text(sel string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.TextContent(sel))
	if err != nil {
		p.t.Fatalf("%s: %v", sel, err)
	}
	return v
}

// eval runs js (awaiting a promise it returns) and decodes its value.
func eval[T any](p *browserPage, js string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// wait polls js until it is true, for at most 30 s. A poll does not
// survive a navigation: chromedp ends it when the page's execution context
// goes, so a poll the page navigated away from starts again in the new one.
func (p *browserPage) wait(js string) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := chromedp.Run(p.ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(max(time.Until(deadline), time.Millisecond))))
		if err == nil {
			return
		}
		if !navigatedAway(err) || time.Now().After(deadline) {
			p.t.Fatalf("waiting for %s: %v", js, err)
		}
	}
}

// navigatedAway reports whether err is the browser's answer to a script
// whose page was replaced while it ran.
func navigatedAway(err error) bool {
	var cerr *cdproto.Error
	if !errors.As(err, &cerr) {
		return false
	}
	for _, m := range []string{
		"Cannot find context with specified id",
		"Execution context was destroyed",
		"Inspected target navigated or closed",
	} {
		if strings.HasPrefix(cerr.Message, m) {
			return true
		}
	}
	return false
}

// shot saves screenshots of the whole page at 1280 and 375 CSS pixels
// wide, and checks that the narrow one has no horizontal scroll.
func (p *browserPage) shot(name string) {
	p.t.Helper()
	for _, w := range []int64{1280, 375} {
		var opts []chromedp.EmulateViewportOption
		if w < 600 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		p.do(chromedp.EmulateViewport(w, 800, opts...))
		p.wait(`new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))`)
		size := eval[[]int64](p, `[document.documentElement.scrollWidth, document.documentElement.scrollHeight]`)
		if size[0] > w {
			p.t.Errorf("%s at %d px: the page is %d px wide (horizontal scroll)", name, w, size[0])
		}
		p.do(chromedp.EmulateViewport(w, max(size[1], 400), opts...))
		png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			p.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.shots, fmt.Sprintf("%s-%d.png", name, w)), png, 0o644); err != nil {
			p.t.Fatal(err)
		}
	}
	p.do(chromedp.EmulateViewport(1280, 900))
}

// cookie returns the browser's session cookie for url.
func (p *browserPage) cookie(url string) *http.Cookie {
	p.t.Helper()
	res, err := chromedp.Run(p.ctx, func(ctx context.Context, t *chromedp.Target) (*network.GetCookiesResult, error) {
		r, err := cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
		return &r, err
	})
	if err != nil {
		p.t.Fatal(err)
	}
	for _, c := range res.Cookies {
		if c.Name == server.SessionCookie {
			if !c.HTTPOnly {
				p.t.Errorf("session cookie is not HttpOnly: %+v", c)
			}
			return &http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	p.t.Fatalf("no %s cookie in %+v", server.SessionCookie, res.Cookies)
	return nil
}

// speak presses Speak and returns the duration of the result.
func (p *browserPage) speak() float64 {
	p.t.Helper()
	p.do(chromedp.Evaluate[chromedp.Void](`delete document.getElementById("result").dataset.duration`))
	p.do(chromedp.Click("#speak", chromedp.NodeVisible))
	p.wait(`document.getElementById("result").dataset.duration !== undefined || document.getElementById("speech-msg").classList.contains("err")`)
	if m := p.text("#speech-msg"); m != "" {
		p.t.Fatalf("speech: %s", m)
	}
	d, err := strconv.ParseFloat(eval[string](p, `document.getElementById("result").dataset.duration`), 64)
	if err != nil {
		p.t.Fatal(err)
	}
	return d
}

// inked counts the pixels painted on the waveform canvas.
func (p *browserPage) inked() int {
	p.t.Helper()
	return eval[int](p, `(() => {
		const c = document.getElementById("wave"), d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
		let n = 0;
		for (let i = 3; i < d.length; i += 4) if (d[i]) n++;
		return n;
	})()`)
}

// setText puts text in the speech box with the cursor at pos.
func (p *browserPage) setText(text string, pos int) {
	p.t.Helper()
	q, _ := json.Marshal(text)
	p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const t = document.getElementById("text"); t.value = %s; t.focus(); t.setSelectionRange(%d, %d); })()`, q, pos, pos)))
}

// sendAs sends a request from Go and returns its status, with the body
// when it is an error.
func sendAs(t *testing.T, e *testserver.Env, method, path, key string, cookie *http.Cookie, csrf, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.TS.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	if csrf != "" {
		req.Header.Set("X-CSRF-Token", csrf)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.TS.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return res.StatusCode, string(b)
	}
	return res.StatusCode, ""
}

// TestPlayground drives the playground in headless Chromium, section by
// section, and saves screenshots of each at 1280 and 375 px (into
// $VOXKIT_SCREENSHOTS when set).
func TestPlayground(t *testing.T) {
	p := newPage(t)
	e := testserver.New(t, testserver.Options{Signup: true})
	e.SetPassword("local", testserver.TestPassword)
	const speechBody = `{"model":"tts-1","voice":"en-us","input":"Hi.","response_format":"wav"}`

	// Sign in: a wrong password gets the generic message, the right one
	// the app.
	p.do(chromedp.Navigate(e.TS.URL + "/"))
	p.do(chromedp.WaitVisible("#signin-form"), chromedp.WaitVisible("#signup-form"))
	p.do(chromedp.SendKeys("#signin-password", "not the password"), chromedp.Click("#signin-form button"))
	p.wait(`document.getElementById("signin-msg").textContent !== ""`)
	if m := p.text("#signin-msg"); m != "Wrong account name or password." {
		t.Errorf("wrong password: %q", m)
	}
	p.shot("signin")
	p.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("signin-password").value = ""`), chromedp.SendKeys("#signin-password", testserver.TestPassword), chromedp.Click("#signin-form button"))
	p.do(chromedp.WaitVisible("#tabs"), chromedp.WaitVisible("#speech"))
	if who := p.text("#who"); who != "local" {
		t.Errorf("signed in as %q", who)
	}
	p.wait(`document.querySelectorAll("#voice option").length > 0 && document.querySelectorAll("#tags button").length > 0`)

	t.Run("speak", func(t *testing.T) {
		p.t = t
		p.do(chromedp.SetValue("#format", "wav"))
		p.setText("Hello there. This is a test.", 0)
		plain := p.speak()
		if n := p.inked(); n < 500 {
			t.Errorf("waveform: %d pixels painted", n)
		}
		if a := eval[string](p, `document.getElementById("download").download`); a != "speech.wav" {
			t.Errorf("download name %q", a)
		}
		// pcm, which <audio> cannot play, is decoded by the page.
		p.do(chromedp.SetValue("#format", "pcm"))
		if d := p.speak(); d < plain-0.05 || d > plain+0.05 {
			t.Errorf("pcm: %.3fs, wav %.3fs", d, plain)
		}
		if a := eval[string](p, `document.getElementById("download").download`); a != "speech.pcm" {
			t.Errorf("download name %q", a)
		}
		p.do(chromedp.SetValue("#format", "wav"))
		// A pause from the palette goes in at the cursor and lengthens
		// the speech.
		p.setText("Hello there. This is a test.", len("Hello there."))
		p.do(chromedp.Click(`#tags button[data-tag="pause"]`))
		if v := eval[string](p, `document.getElementById("text").value`); v != "Hello there.<|pause:300ms|> This is a test." {
			t.Fatalf("after the pause tag: %q", v)
		}
		paused := p.speak()
		t.Logf("durations: %.3fs plain, %.3fs with a pause", plain, paused)
		if paused-plain < 0.2 {
			t.Errorf("with a 300ms pause %.3fs, without %.3fs", paused, plain)
		}
		// A style tag wraps the selection.
		p.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("text").setSelectionRange(0, 5)`))
		p.do(chromedp.Click(`#tags button[data-tag="slow"]`))
		if v := eval[string](p, `document.getElementById("text").value`); !strings.HasPrefix(v, "<|slow|>Hello<|/slow|> there.") {
			t.Errorf("after the slow tag: %q", v)
		}
		p.shot("speech")
	})

	t.Run("stream", func(t *testing.T) {
		p.t = t
		words := strings.Fields("One two three four five. Six seven eight nine ten.")
		p.setText(strings.Join(words, " "), 0)
		p.do(chromedp.Click("#stream"))
		// Slower speech keeps a word lit across a stalled frame or two on
		// a busy machine.
		p.do(chromedp.SetValue("#speed", "0.7"))
		// Record the words highlighted, in the order they light up.
		p.do(chromedp.Evaluate[chromedp.Void](`window.heard = []; new MutationObserver((ms) => {
			for (const m of ms) {
				const s = m.target;
				if (s.classList.contains("now") && heard[heard.length - 1] !== s.textContent) heard.push(s.textContent);
			}
		}).observe(document.getElementById("spoken"), {subtree: true, attributes: true, attributeFilter: ["class"]})`))
		p.do(chromedp.Click("#speak"))
		p.wait(`heard.length >= 3 || document.getElementById("speech-msg").classList.contains("err")`)
		if m := p.text("#speech-msg"); strings.Contains(m, "fail") || strings.Contains(m, "rror") {
			t.Fatalf("streaming: %s", m)
		}
		p.shot("speech-streaming")
		p.wait(`document.getElementById("result").dataset.streamed === "1"`)
		heard := eval[[]string](p, `heard`)
		t.Logf("highlighted in turn: %q", heard)
		j := 0
		for _, h := range heard {
			for j < len(words) && strings.Trim(words[j], ".") != h {
				j++
			}
			if j == len(words) {
				t.Fatalf("highlighted %q: not in text order", heard)
			}
		}
		if len(heard) < len(words)*7/10 {
			t.Errorf("highlighted %q of %d words", heard, len(words))
		}
		if n := p.inked(); n < 500 {
			t.Errorf("waveform of the stream: %d pixels painted", n)
		}
		p.do(chromedp.Click("#stream"), chromedp.SetValue("#speed", "1"))
	})

	t.Run("code", func(t *testing.T) {
		p.t = t
		p.setText("It's here.", 0)
		p.do(chromedp.Click("#tab-code"), chromedp.WaitVisible("#code-curl"))
		curl := p.text("#code-curl")
		if !strings.Contains(curl, e.TS.URL+"/v1/audio/speech") || !strings.Contains(curl, "$OPENAI_API_KEY") ||
			!strings.Contains(curl, `It'\''s here.`) || strings.Contains(curl, "sk_") {
			t.Errorf("curl: %s", curl)
		}
		for _, id := range []string{"#code-python", "#code-node", "#code-go"} {
			if c := p.text(id); !strings.Contains(c, e.TS.URL+"/v1") || !strings.Contains(c, `"It's here."`) || !strings.Contains(c, `"en-us"`) {
				t.Errorf("%s: %s", id, c)
			}
		}
		// The Go snippet is gofmt's layout (and, run by hand, compiles).
		g := p.text("#code-go")
		if f, err := format.Source([]byte(g)); err != nil || string(f) != g+"\n" {
			t.Errorf("Go snippet not gofmt'd (%v):\n%s", err, g)
		}
		p.shot("code")
	})

	t.Run("keys", func(t *testing.T) {
		p.t = t
		p.do(chromedp.Click("#tab-keys"), chromedp.WaitVisible("#newkey-form"))
		p.do(chromedp.SendKeys("#newkey-name", "from-browser"), chromedp.Click("#newkey-form button"))
		p.do(chromedp.WaitVisible("#newkey-value"))
		key := p.text("#newkey-value")
		if !store.WellFormed(key) {
			t.Fatalf("new key %q", key)
		}
		prefix := key[:11]
		p.wait(`document.getElementById("keylist").textContent.includes("from-browser")`)
		if list := p.text("#keylist"); strings.Contains(list, key) || !strings.Contains(list, prefix) || !strings.Contains(list, "speech") {
			t.Errorf("keys list: %q", list)
		}
		p.shot("keys")
		p.do(chromedp.Click("#newkey-done"))
		if body := p.text("body"); strings.Contains(body, key) {
			t.Error("the key is still on the page after Done")
		}
		// The key speaks, and cannot make keys.
		if code, body := sendAs(t, e, "POST", "/v1/audio/speech", key, nil, "", speechBody); code != 200 {
			t.Errorf("speech with the new key: %d %s", code, body)
		}
		if code, body := sendAs(t, e, "POST", "/v1/keys", key, nil, "", `{"name":"x"}`); code != 403 {
			t.Errorf("a speech key making a key: %d %s", code, body)
		}
		// Revoke asks first; Cancel keeps the key.
		row := `#keylist tr[data-prefix="` + prefix + `"] `
		p.do(chromedp.Click(row+"button.revoke"), chromedp.WaitVisible(row+"button.revoke-yes"))
		p.shot("keys-revoke")
		p.do(chromedp.Click(row+"button.revoke-no"), chromedp.WaitVisible(row+"button.revoke"))
		if code, _ := sendAs(t, e, "GET", "/v1/models", key, nil, "", ""); code != 200 {
			t.Errorf("after Cancel the key gets %d", code)
		}
		p.do(chromedp.Click(row+"button.revoke"), chromedp.Click(row+"button.revoke-yes", chromedp.NodeVisible))
		p.wait(`document.querySelector('` + row + `').classList.contains("revoked")`)
		if code, _ := sendAs(t, e, "POST", "/v1/audio/speech", key, nil, "", speechBody); code != 401 {
			t.Errorf("revoked key: %d", code)
		}
	})

	t.Run("voices", func(t *testing.T) {
		p.t = t
		p.do(chromedp.Click("#tab-voices"), chromedp.WaitVisible("#newvoice-form"))
		p.do(chromedp.SendKeys("#newvoice-name", "Browser voice"), chromedp.SetValue("#newvoice-speed", "2"),
			chromedp.SetValue("#newvoice-pitch", "3"), chromedp.Click("#newvoice-form button"))
		p.wait(`document.getElementById("myvoices").textContent.includes("Browser voice")`)
		vs, err := e.Store.Voices(context.Background(), "local")
		if err != nil || len(vs) != 1 || vs[0].Speed != 2 || vs[0].Pitch != 3 || vs[0].Base != "en-us" || vs[0].Name != "Browser voice" {
			t.Fatalf("voice made in the browser: %+v, %v", vs, err)
		}
		p.wait(`document.getElementById("voice").value === "` + vs[0].ID + `"`)
		// Samples of a voice of one's own and of a global one.
		for _, sel := range []string{`#myvoices button.sample`, `#allvoices button.sample[data-voice="en-gb"]`} {
			p.do(chromedp.Click(sel))
			p.wait(`document.querySelector('` + sel + `').dataset.state !== undefined || document.getElementById("sample-msg").textContent !== ""`)
			if m := p.text("#sample-msg"); m != "" {
				t.Errorf("sample %s: %s", sel, m)
			}
		}
		p.shot("voices")
		p.do(chromedp.Click(`#myvoices button.danger`))
		p.wait(`!document.getElementById("myvoices").textContent.includes("Browser voice")`)
		if vs, _ := e.Store.Voices(context.Background(), "local"); len(vs) != 0 {
			t.Errorf("after delete in the browser: %+v", vs)
		}
	})
	p.t = t
	if blocked := eval[[]string](p, `blocked`); len(blocked) > 0 {
		t.Errorf("the CSP blocked %q", blocked)
	}

	// The cookie works from Go as the page's, but a state-changing request
	// without the CSRF token is refused, and so is a form of another
	// origin.
	cookie := p.cookie(e.TS.URL)
	if code, body := sendAs(t, e, "GET", "/v1/keys", "", cookie, "", ""); code != 200 {
		t.Errorf("GET /v1/keys with the cookie: %d %s", code, body)
	}
	if code, body := sendAs(t, e, "POST", "/v1/keys", "", cookie, "", `{"name":"forged"}`); code != 403 || !strings.Contains(body, "csrf_token_invalid") {
		t.Errorf("POST /v1/keys with the cookie and no token: %d %s", code, body)
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><form method="post" enctype="text/plain" action="%s/v1/keys">
			<input type="hidden" name='{"name":"forged","x":"' value='"}'></form>
			<script>document.forms[0].submit()</script>`, e.TS.URL)
	}))
	defer other.Close()
	p.do(chromedp.Navigate(other.URL + "/"))
	p.wait(`location.href.startsWith("` + e.TS.URL + `/v1/keys") && document.body.textContent.includes("error")`)
	if body := p.text("body"); !strings.Contains(body, "csrf_token_invalid") && !strings.Contains(body, "missing_api_key") {
		t.Errorf("form of another origin: %s", body)
	}
	keys, err := e.Store.Keys(context.Background(), "local")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Name == "forged" {
			t.Errorf("a forged request made a key: %+v", k)
		}
	}

	// Signing out ends the session on the server.
	p.do(chromedp.Navigate(e.TS.URL + "/#keys"))
	p.do(chromedp.WaitVisible("#signout"), chromedp.Click("#signout"), chromedp.WaitVisible("#signin-form"))
	if code, body := sendAs(t, e, "GET", "/v1/keys", "", cookie, "", ""); code != 401 {
		t.Errorf("GET /v1/keys with the cookie after sign-out: %d %s", code, body)
	}
}

// TestPlaygroundSignUp: with sign-up allowed, the page creates an account
// and signs it in; the password changes; repeated failures then get the
// throttling message.
func TestPlaygroundSignUp(t *testing.T) {
	p := newPage(t)
	e := testserver.New(t, testserver.Options{Signup: true})
	p.do(chromedp.Navigate(e.TS.URL+"/"), chromedp.WaitVisible("#signup-form"))
	p.do(chromedp.SendKeys("#signup-name", "newcomer"), chromedp.SendKeys("#signup-password", "a long enough password"),
		chromedp.Click("#signup-form button"), chromedp.WaitVisible("#tabs"))
	if who := p.text("#who"); who != "newcomer" {
		t.Errorf("signed up as %q", who)
	}
	// Change the password, then sign in with the new one.
	p.do(chromedp.Click("#tab-keys"), chromedp.SendKeys("#pw-current", "a long enough password"),
		chromedp.SendKeys("#pw-new", "another long password"), chromedp.Click("#password-form button"))
	p.wait(`document.getElementById("pw-msg").textContent !== ""`)
	if m := p.text("#pw-msg"); !strings.HasPrefix(m, "Password changed") {
		t.Fatalf("password change: %q", m)
	}
	p.do(chromedp.Click("#signout"), chromedp.WaitVisible("#signin-form"))
	p.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("signin-account").value = "newcomer"`),
		chromedp.SendKeys("#signin-password", "another long password"), chromedp.Click("#signin-form button"), chromedp.WaitVisible("#tabs"))
	p.do(chromedp.Click("#signout"), chromedp.WaitVisible("#signin-form"))
	for range 12 {
		res, _ := e.SignIn("newcomer", "wrong password")
		res.Body.Close()
		if res.StatusCode == http.StatusTooManyRequests {
			break
		}
	}
	p.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("signin-account").value = "newcomer"`),
		chromedp.SendKeys("#signin-password", "another long password"), chromedp.Click("#signin-form button"))
	p.wait(`document.getElementById("signin-msg").textContent.startsWith("Too many")`)
}

// fakeSynthesizer is a Synthesizer of the fake engine's voices ids, or
// of its one voice "fake".
func fakeSynthesizer(t *testing.T, ids ...string) *tts.Synthesizer {
	t.Helper()
	if len(ids) == 0 {
		ids = []string{"fake"}
	}
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: ids})
	cat := new(voices.Catalog)
	if err := cat.AddEngine(context.Background(), "fake", fake, time.Unix(1700000000, 0)); err != nil {
		t.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"fake": fake}, Voices: cat})
	if err != nil {
		t.Fatal(err)
	}
	return synth
}

// keysOnly is a store that keeps no sessions: no password sign-in.
type keysOnly struct{ store.Store }

// TestPlaygroundWithoutSessions: over a store without sessions the page
// explains that there is no password sign-in.
func TestPlaygroundWithoutSessions(t *testing.T) {
	p := newPage(t)
	synth := fakeSynthesizer(t)
	srv := servertest.Start(t, servertest.Options{Synthesizer: synth, Wrap: func(st *sqlite.Store) store.Store { return keysOnly{st} },
		Server: server.Options{Aliases: map[string]string{}}}).Server
	ts := httptest.NewServer(srv)
	defer ts.Close()
	p.do(chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible("#nosessions"), chromedp.WaitNotVisible("#signin-form"))
}

// TestPlaygroundUnderHostAuth: a server mounted in an application that
// signs its users in (Options.Authenticate) and keeps no store serves a
// playground that uses that sign-in: signed in there, it speaks, with no
// sign-out, password, keys or voices of its own; signed out, it says to
// sign in to the application, and never names a command of ours.
func TestPlaygroundUnderHostAuth(t *testing.T) {
	p := newPage(t)
	synth := fakeSynthesizer(t)
	srv, err := server.New(server.Options{Synthesizer: synth, Aliases: map[string]string{},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Authenticate: func(r *http.Request) (string, error) {
			if c, err := r.Cookie("app"); err == nil && c.Value == "alice" {
				return "alice", nil
			}
			return "", errors.New("Sign in to the app first.")
		}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/app/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "app", Value: "alice", Path: "/"})
		http.Redirect(w, r, "/", http.StatusFound)
	})
	mux.Handle("/", srv)
	ts := httptest.NewServer(mux)
	defer ts.Close()

	p.do(chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible("#hostsignin"))
	for _, id := range []string{"signin-form", "passwd-hint", "tabs"} {
		if visible := eval[bool](p, `!document.getElementById("`+id+`").hidden`); visible {
			t.Errorf("signed out: #%s is shown", id)
		}
	}
	p.do(chromedp.Navigate(ts.URL+"/app/login"), chromedp.WaitVisible("#tabs"))
	if who := p.text("#who"); who != "alice" {
		t.Errorf("signed in as %q, want alice", who)
	}
	for _, id := range []string{"signout", "tab-keys", "tab-voices", "password-card"} {
		if visible := eval[bool](p, `!document.getElementById("`+id+`").hidden`); visible {
			t.Errorf("signed in by the host: #%s is shown", id)
		}
	}
	p.do(chromedp.SetValue("#voice", "fake"))
	if d := p.speak(); d <= 0 {
		t.Errorf("spoke %v s", d)
	}
	// Under the input, the text as the voice reads it.
	p.setText("It costs $9.50.", 0)
	p.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("text").dispatchEvent(new Event("input"))`), chromedp.WaitVisible("#readas-line"))
	if got := p.text("#readas"); got != "It costs nine dollars and fifty cents." {
		t.Errorf("read as %q", got)
	}
}

// TestWaitOutlivesNavigation: a wait begun on a page that then navigates
// goes on in the next page (as after the cross-origin form above, which
// failed CI with "Cannot find context with specified id").
func TestWaitOutlivesNavigation(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/next" {
			fmt.Fprint(w, `<!doctype html><p>next</p>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><script>setTimeout(() => { location.href = "/next" }, 200)</script>`)
	}))
	defer ts.Close()
	p := newPage(t)
	for range 3 {
		p.do(chromedp.Navigate(ts.URL + "/"))
		p.wait(`location.pathname === "/next" && document.body.textContent === "next"`)
	}
}
