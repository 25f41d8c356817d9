package server_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/voxkit/voxkit/server/store"
)

// TestPlayground drives the playground in headless Chromium: sign in with
// a key, create a key (shown once), revoke it, speak, and create, use
// and delete a voice of one's own.
func TestPlayground(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed")
	}
	e := newEnv(t, envOptions{})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("autoplay-policy", "no-user-gesture-required"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Skipf("chromium does not start: %v", err)
	}
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	step := func(a chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	poll := func(js string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js)); err != nil {
			t.Fatalf("waiting for %s: %v", js, err)
		}
	}
	step(chromedp.Navigate(e.ts.URL + "/"))
	step(chromedp.SendKeys("#key", e.key))
	step(chromedp.Click("#signin-form button"))
	step(chromedp.WaitVisible("#app"))
	who := text("#who")
	step(chromedp.SendKeys("#newkey-name", "from-browser"))
	step(chromedp.Click("#newkey-form button"))
	step(chromedp.WaitVisible("#newkey-value"))
	newKey := text("#newkey-value")
	poll(`document.getElementById("keys").textContent.includes("from-browser")`)
	keysTable := text("#keys")
	step(chromedp.Click("#speech-form button"))
	poll(`document.getElementById("speech-msg").textContent.includes("bytes")`)
	speechMsg := text("#speech-msg")
	src, err := chromedp.Run(ctx, chromedp.AttributeValue("#player", "src"))
	if err != nil {
		t.Fatal(err)
	}
	audioSrc := src.Value
	step(chromedp.Click("#stream"))
	poll(`document.getElementById("speech-msg").textContent.includes("streamed")`)
	if m := text("#speech-msg"); !strings.Contains(m, "streamed 2 sentences") {
		t.Errorf("websocket streaming: %q", m)
	}
	// A voice of one's own: created from a base voice, selected, spoken
	// with, deleted.
	step(chromedp.SendKeys("#newvoice-name", "Browser voice"))
	step(chromedp.SetValue("#newvoice-speed", "2"))
	step(chromedp.SetValue("#newvoice-pitch", "3"))
	step(chromedp.Click("#newvoice-form button"))
	poll(`document.getElementById("myvoices").textContent.includes("Browser voice")`)
	vs, err := e.store.Voices(context.Background(), "local")
	if err != nil || len(vs) != 1 || vs[0].Speed != 2 || vs[0].Pitch != 3 || vs[0].Base != "en-us" || vs[0].Name != "Browser voice" {
		t.Fatalf("voice made in the browser: %+v, %v", vs, err)
	}
	poll(`document.getElementById("voice").value === "` + vs[0].ID + `"`)
	step(chromedp.Click("#speech-form button"))
	poll(`document.getElementById("speech-msg").textContent.includes("bytes")`)
	step(chromedp.Click("#myvoices button"))
	poll(`document.getElementById("myvoices").textContent === ""`)
	if vs, _ := e.store.Voices(context.Background(), "local"); len(vs) != 0 {
		t.Errorf("after delete in the browser: %+v", vs)
	}
	if who != "local" {
		t.Errorf("signed in as %q", who)
	}
	if !store.WellFormed(newKey) {
		t.Errorf("new key %q", newKey)
	}
	if strings.Contains(keysTable, newKey) || !strings.Contains(keysTable, newKey[:11]) {
		t.Errorf("keys table shows %q", keysTable)
	}
	if !strings.Contains(speechMsg, "audio/wav") || !strings.HasPrefix(audioSrc, "blob:") {
		t.Errorf("speech: %q, audio src %q", speechMsg, audioSrc)
	}
	// The key made in the browser works, and revoking it in the store shows.
	if res := e.do("GET", "/v1/models", newKey, "", nil); res.StatusCode != 200 {
		t.Errorf("browser-made key: %d", res.StatusCode)
	} else {
		res.Body.Close()
	}
}
