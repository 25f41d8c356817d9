package server_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
)

// page drives the playground in headless Chromium.
type page struct {
	t   *testing.T
	ctx context.Context
	e   *env
	// shots is where screenshots go: $VOXKIT_SCREENSHOTS, else a
	// temporary directory.
	shots string
}

func newPage(t *testing.T, e *env) *page {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed (.ci/deps.sh test installs it)")
		}
		t.Skip("chromium is not installed")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("autoplay-policy", "no-user-gesture-required"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("chromium does not start: %v", err)
	}
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	shots := os.Getenv("VOXKIT_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	return &page{t: t, ctx: ctx, e: e, shots: shots}
}

func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

func (p *page) text(sel string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		p.t.Fatal(err)
	}
	return v
}

func (p *page) poll(js string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		p.t.Fatalf("waiting for %s: %v", js, err)
	}
}

func eval[T any](p *page, js string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js, func(e *runtime.EvaluateParams) {
		yes := true
		e.AwaitPromise = &yes
	}))
	if err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// shoot saves the page at 1280 and 375 px wide as NAME-WIDTH.png and
// fails if the narrow one scrolls sideways.
func (p *page) shoot(name string) {
	p.t.Helper()
	for _, width := range []int64{1280, 375} {
		p.do(chromedp.EmulateViewport(width, 900))
		png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			p.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.shots, fmt.Sprintf("%s-%d.png", name, width)), png, 0o644); err != nil {
			p.t.Fatal(err)
		}
		if width == 375 {
			if w := eval[int](p, `document.documentElement.scrollWidth`); w > 375 {
				p.t.Errorf("%s at 375 px scrolls sideways: %d px wide", name, w)
			}
		}
	}
	p.do(chromedp.EmulateViewport(1280, 900))
}

// sessionCookie returns the browser's session cookie.
func (p *page) sessionCookie() *http.Cookie {
	p.t.Helper()
	res, err := chromedp.Call(p.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{p.e.ts.URL}})
	if err != nil {
		p.t.Fatal(err)
	}
	for _, c := range res.Cookies {
		if c.Name == server.SessionCookie {
			return &http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	p.t.Fatal("no session cookie in the browser")
	return nil
}

// TestPlayground drives the playground in headless Chromium through each
// section, as a user would, and checks the result on the server.
func TestPlayground(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.setPassword("local", testPassword)
	p := newPage(t, e)

	// Sign in: a wrong password is refused with the generic message.
	p.do(chromedp.Navigate(e.ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#signin-form")))
	p.shoot("signin")
	p.do(chromedp.SendKeys(chromedp.CSS("#signin-password"), "not the password"), chromedp.Click(chromedp.CSS("#signin-button")))
	p.poll(`document.getElementById("signin-msg").textContent.includes("Wrong account name or password")`)
	p.do(chromedp.SetValue(chromedp.CSS("#signin-password"), testPassword), chromedp.Click(chromedp.CSS("#signin-button")))
	p.do(chromedp.WaitVisible(chromedp.CSS("#speech")))
	if who := p.text("#who"); who != "local" {
		t.Fatalf("signed in as %q", who)
	}
	p.poll(`document.querySelectorAll("#palette button").length > 5 && document.getElementById("voice").options.length > 3`)

	t.Run("keys", func(t *testing.T) {
		p.do(chromedp.Click(chromedp.CSS(`#nav button[data-section="keys"]`)), chromedp.WaitVisible(chromedp.CSS("#newkey-form")))
		p.do(chromedp.SendKeys(chromedp.CSS("#newkey-name"), "from the browser"), chromedp.Click(chromedp.CSS("#newkey-form button")))
		p.do(chromedp.WaitVisible(chromedp.CSS("#newkey")))
		key := p.text("#newkey-value")
		if !store.WellFormed(key) || !strings.Contains(p.text("#newkey"), "won't see it again") {
			t.Fatalf("new key %q in %q", key, p.text("#newkey"))
		}
		prefix := store.DisplayPrefix(key)
		p.poll(fmt.Sprintf(`!!document.querySelector('tr[data-prefix=%q]')`, prefix))
		if row := p.text(fmt.Sprintf(`tr[data-prefix=%q]`, prefix)); !strings.Contains(row, "speech") || strings.Contains(row, key) {
			t.Errorf("key row %q: want the prefix and the speech scope, not the key", row)
		}
		p.shoot("keys")
		p.do(chromedp.Click(chromedp.CSS("#hide-key")))
		if body := p.text("body"); strings.Contains(body, key) {
			t.Error("the key is still on the page after Done")
		}
		// The key works with a plain HTTP client, for speech only.
		status(t, e.do("POST", "/v1/audio/speech", key, "application/json", strings.NewReader(`{"model":"tts-1","voice":"en-us","input":"Hi."}`)), 200)
		status(t, e.do("POST", "/v1/keys", key, "application/json", strings.NewReader(`{"name":"escalate"}`)), 403)
		// Revoke, with a confirmation step.
		row := fmt.Sprintf(`tr[data-prefix=%q]`, prefix)
		p.do(chromedp.Click(chromedp.CSS(row + ` button.danger`)))
		p.poll(fmt.Sprintf(`document.querySelector('%s').textContent.includes("Yes, revoke")`, row))
		if got := e.do("GET", "/v1/models", key, "", nil); got.StatusCode != 200 {
			t.Errorf("revoked before confirming: %d", got.StatusCode)
		}
		p.do(chromedp.Click(chromedp.CSS(row + ` button.danger`)))
		p.poll(fmt.Sprintf(`!document.querySelector('%s')`, row))
		status(t, e.do("GET", "/v1/models", key, "", nil), 401)
	})

	t.Run("speech", func(t *testing.T) {
		p.do(chromedp.Click(chromedp.CSS(`#nav button[data-section="speech"]`)), chromedp.WaitVisible(chromedp.CSS("#speech-form")))
		p.do(chromedp.SetValue(chromedp.CSS("#format"), "wav"))
		speak := func(text string) float64 {
			t.Helper()
			p.do(chromedp.SetValue(chromedp.CSS("#input"), text))
			eval[bool](p, `document.getElementById("speech-msg").textContent = ""; true`)
			p.do(chromedp.Click(chromedp.CSS("#speak")))
			p.poll(`document.getElementById("speech-msg").textContent.includes("s of audio")`)
			return eval[float64](p, `audio.buffer.duration`)
		}
		plain := speak("One two three.")
		// Insert a pause from the palette after "One": at the cursor.
		eval[bool](p, `(() => { const t = document.getElementById("input"); t.focus(); t.setSelectionRange(3, 3); return true; })()`)
		p.do(chromedp.Click(chromedp.CSS(`#palette button[data-tag="pause"]`)))
		text := eval[string](p, `document.getElementById("input").value`)
		m := regexp.MustCompile(`^One <\|pause:(\d+)ms\|> two three\.$`).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("after inserting the pause tag: %q", text)
		}
		pause, _ := strconv.Atoi(m[1])
		eval[bool](p, `document.getElementById("speech-msg").textContent = ""; true`)
		p.do(chromedp.Click(chromedp.CSS("#speak")))
		p.poll(`document.getElementById("speech-msg").textContent.includes("s of audio")`)
		paused := eval[float64](p, `audio.buffer.duration`)
		if want := plain + float64(pause)/1000; math.Abs(paused-want) > 0.05 {
			t.Errorf("with the %d ms pause tag %.3f s, without %.3f s: the tag was not applied", pause, paused, plain)
		}
		// A paired tag goes around the selected text.
		p.do(chromedp.SetValue(chromedp.CSS("#input"), "Say this slowly please."))
		eval[bool](p, `(() => { const t = document.getElementById("input"); t.focus(); t.setSelectionRange(4, 15); return true; })()`)
		p.do(chromedp.Click(chromedp.CSS(`#palette button[data-tag="slow"]`)))
		if got := eval[string](p, `document.getElementById("input").value`); got != "Say <|slow|>this slowly<|/slow|> please." {
			t.Errorf("slow around the selection: %q", got)
		}
		// The waveform is drawn from the decoded audio.
		lit := eval[int](p, `(() => { const c = document.getElementById("wave"); const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
			let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n; })()`)
		if lit < 2000 {
			t.Errorf("waveform canvas has %d drawn pixels", lit)
		}
		if href := eval[string](p, `document.getElementById("download").href`); !strings.HasPrefix(href, "blob:") {
			t.Errorf("download link %q", href)
		}
		p.shoot("speech")

		// Streaming highlights the words in order as they are heard.
		const streamed = "The quick brown fox jumps over the lazy dog. Then it sleeps in the warm sun."
		p.do(chromedp.Click(chromedp.CSS("#streaming")), chromedp.SetValue(chromedp.CSS("#input"), streamed))
		p.do(chromedp.Click(chromedp.CSS("#speak")))
		p.poll(`document.getElementById("speech-msg").textContent.includes("Streamed 2 sentences")`)
		p.poll(`document.querySelectorAll("#spoken .w.said").length >= 12 || document.querySelectorAll("#spoken .w").length === 0`)
		heard := eval[[]string](p, `window.voxkitHighlighted`)
		words := strings.Fields(strings.NewReplacer(".", "").Replace(streamed))
		var order []string // heard, without repeats
		for _, w := range heard {
			if len(order) == 0 || order[len(order)-1] != w {
				order = append(order, w)
			}
		}
		i := 0
		for _, w := range order {
			for i < len(words) && words[i] != w {
				i++
			}
			if i == len(words) {
				t.Fatalf("highlighted %q out of order: %q", w, order)
			}
			i++
		}
		if len(order) < len(words)*2/3 {
			t.Errorf("highlighted %d of %d words: %q", len(order), len(words), order)
		}
		p.shoot("streaming")
		p.do(chromedp.Click(chromedp.CSS("#streaming")))
	})

	t.Run("code", func(t *testing.T) {
		p.do(chromedp.SetValue(chromedp.CSS("#input"), "Code me."))
		p.do(chromedp.Click(chromedp.CSS(`#nav button[data-section="code"]`)), chromedp.WaitVisible(chromedp.CSS("#snippet")))
		for lang, want := range map[string]string{"curl": "curl " + e.ts.URL + "/v1/audio/speech", "python": "from openai import OpenAI",
			"node": `import OpenAI from "openai"`, "go": "openai.AudioSpeechNewParams"} {
			p.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#code-tabs button[data-lang=%q]`, lang))))
			code := p.text("#snippet")
			if !strings.Contains(code, want) || !strings.Contains(code, "Code me.") || !strings.Contains(code, "VOXKIT_API_KEY") || strings.Contains(code, "sk_") {
				t.Errorf("%s snippet:\n%s", lang, code)
			}
		}
		p.shoot("code")
	})

	t.Run("voices", func(t *testing.T) {
		p.do(chromedp.Click(chromedp.CSS(`#nav button[data-section="voices"]`)), chromedp.WaitVisible(chromedp.CSS("#newvoice-form")))
		p.do(chromedp.SendKeys(chromedp.CSS("#newvoice-name"), "Browser voice"), chromedp.SetValue(chromedp.CSS("#newvoice-speed"), "1.5"))
		p.do(chromedp.Click(chromedp.CSS("#newvoice-form button")))
		p.poll(`document.getElementById("myvoices").textContent.includes("Browser voice")`)
		vs, err := e.store.Voices(context.Background(), "local")
		if err != nil || len(vs) != 1 || vs[0].Speed != 1.5 || vs[0].Name != "Browser voice" {
			t.Fatalf("voice made in the browser: %+v, %v", vs, err)
		}
		// Its sample plays (no error shown).
		p.do(chromedp.Click(chromedp.CSS("#myvoices button")))
		time.Sleep(500 * time.Millisecond)
		if msg := p.text("#voices-msg"); msg != "" {
			t.Errorf("sample: %q", msg)
		}
		p.shoot("voices")
		p.do(chromedp.Click(chromedp.CSS("#myvoices button.danger")))
		p.poll(`!document.getElementById("myvoices").textContent.includes("Browser voice")`)
	})

	t.Run("csrf", func(t *testing.T) {
		cookie := p.sessionCookie()
		before, _ := e.store.Keys(context.Background(), "local")
		// With the cookie but without the token, from Go.
		req, _ := http.NewRequest("POST", e.ts.URL+"/v1/keys", strings.NewReader(`{"name":"forged"}`))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(cookie)
		res, err := e.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		apiError(t, res, 403, "csrf_token_invalid")
		// A page of another origin posting a form to the API, in the
		// browser that holds the cookie.
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `<form id=f method=post action=%q enctype="text/plain"><input name='{"name":"forged","x":"' value='"}'></form>
				<script>document.getElementById("f").submit()</script>`, e.ts.URL+"/v1/keys")
		}))
		defer evil.Close()
		p.do(chromedp.Navigate(strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)))
		time.Sleep(time.Second)
		after, _ := e.store.Keys(context.Background(), "local")
		if len(after) != len(before) {
			t.Errorf("a cross-site form made a key: %d keys, were %d", len(after), len(before))
		}
		p.do(chromedp.Navigate(e.ts.URL + "/#speech"))
		p.do(chromedp.WaitVisible(chromedp.CSS("#speech")))
	})

	t.Run("signout", func(t *testing.T) {
		cookie := p.sessionCookie()
		p.do(chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#signin-form")))
		req, _ := http.NewRequest("GET", e.ts.URL+"/v1/keys", nil)
		req.AddCookie(cookie)
		res, err := e.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		apiError(t, res, 401, "session_expired")
	})
	t.Logf("screenshots in %s", p.shots)
}
