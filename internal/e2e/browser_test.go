package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/voxkit/voxkit/internal/testkit/browsertest"
)

// browser starts headless Chromium, skipping (failing in CI) without it.
func browser(t *testing.T) context.Context {
	t.Helper()
	return browsertest.Start(t, 60*time.Second)
}

func awaitPromise(p *runtime.EvaluateParams) {
	yes := true
	p.AwaitPromise = &yes
}

// pageJS speaks a sentence in each format with fetch and has the browser
// decode it twice: with Web Audio's decodeAudioData and with an <audio>
// element's metadata, as a web page playing the result would.
const pageJS = `(async () => {
  const out = {};
  for (const f of ['wav', 'mp3', 'opus', 'flac']) {
    const o = out[f] = {};
    try {
      const r = await fetch(%[1]q + '/v1/audio/speech', {method: 'POST',
        headers: {'Authorization': 'Bearer ' + %[2]q, 'Content-Type': 'application/json'},
        body: JSON.stringify({model: 'tts-1', voice: 'alloy', input: 'The quick brown fox jumps over the lazy dog.', response_format: f})});
      o.status = r.status;
      o.type = r.headers.get('content-type');
      o.requestID = r.headers.get('x-request-id');
      const buf = await r.arrayBuffer();
      const ab = await new OfflineAudioContext(1, 1, 48000).decodeAudioData(buf.slice(0));
      const d = ab.getChannelData(0);
      let s = 0;
      for (const v of d) s += v * v;
      o.decoded = ab.duration;
      o.rms = Math.sqrt(s / d.length);
      const a = new Audio(URL.createObjectURL(new Blob([buf], {type: o.type})));
      o.element = await new Promise((ok) => {
        a.onloadedmetadata = () => ok(a.duration);
        a.onerror = () => ok(-1);
      });
      // Play it to the end, muted and fast.
      a.muted = true;
      a.playbackRate = 4;
      o.played = await new Promise((ok) => {
        a.onended = () => ok('ended at ' + a.currentTime.toFixed(3));
        a.onerror = () => ok('error: ' + (a.error && a.error.message));
        setTimeout(() => ok('stalled at ' + a.currentTime.toFixed(3)), 10000);
        a.play().catch((e) => ok('play: ' + e));
      });
    } catch (e) {
      o.error = String(e);
    }
  }
  return JSON.stringify(out);
})()`

type browserAudio struct {
	Status    int
	Type      string
	RequestID string
	Decoded   float64
	RMS       float64
	Element   float64
	Played    string
	Error     string
}

// TestBrowserPlaysEveryFormat: a page served beside the API (same origin)
// fetches speech in each format; Chromium decodes each to about the
// length of the sentence, with sound in it.
func TestBrowserPlaysEveryFormat(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, envOptions{espeak: true, noListen: true})
	mux := http.NewServeMux()
	mux.Handle("/v1/", e.srv)
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>e2e</title>")
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/page")); err != nil {
		t.Fatal(err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(pageJS, ts.URL, e.key), awaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]browserAudio
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	for _, f := range []string{"wav", "mp3", "opus", "flac"} {
		t.Run(f, func(t *testing.T) {
			o := out[f]
			if o.Error != "" || o.Status != 200 || o.Type != contentTypes[f] || o.RequestID == "" {
				t.Fatalf("%+v", o)
			}
			if o.Decoded < 1.5 || o.Decoded > 5 || o.RMS < 0.01 {
				t.Errorf("decodeAudioData gave %.3fs, rms %.4f", o.Decoded, o.RMS)
			}
			if o.Element < 1.5 || o.Element > 5 {
				t.Errorf("<audio> duration %v (decoded %.3fs)", o.Element, o.Decoded)
			}
			var at float64
			if n, _ := fmt.Sscanf(o.Played, "ended at %f", &at); n != 1 || math.Abs(at-o.Element) > 0.1 {
				t.Errorf("<audio> playback: %s (duration %.3f)", o.Played, o.Element)
			}
		})
	}
}

// TestBrowserCrossOrigin: a page on another origin calls the API with
// fetch, as the OpenAI JS SDK does in a browser; that needs CORS.
func TestBrowserCrossOrigin(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, envOptions{})
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>other origin</title>")
	}))
	defer page.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(page.URL+"/")); err != nil {
		t.Fatal(err)
	}
	js := fmt.Sprintf(`fetch(%q + '/v1/audio/speech', {method: 'POST',
		headers: {'Authorization': 'Bearer ' + %q, 'Content-Type': 'application/json'},
		body: JSON.stringify({voice: 'fake', input: 'Hi.', response_format: 'mp3'})})
		.then(async (r) => r.status + ' ' + r.headers.get('x-request-id') + ' ' + (await r.arrayBuffer()).byteLength, (e) => 'error ' + e)`, e.ts.URL, e.key)
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, awaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var status, bytes int
	var id string
	if n, _ := fmt.Sscanf(got, "%d %s %d", &status, &id, &bytes); n != 3 || status != 200 || id == "null" || bytes == 0 {
		t.Errorf("cross-origin fetch: %q (want 200, a readable x-request-id and the audio)", got)
	}
}

// TestPlaygroundSignInWithPrintedPassword: a newcomer's first minute —
// start the example server, open the playground it serves, and sign in
// as local with the password the first start printed.
func TestPlaygroundSignInWithPrintedPassword(t *testing.T) {
	ctx := browser(t)
	addr, _, password := exampleServerPassword(t)
	if len(password) < 10 {
		t.Fatalf("the first start printed password %q", password)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("http://"+addr+"/"), chromedp.WaitVisible(chromedp.CSS("#signin-form")),
		chromedp.SendKeys(chromedp.CSS("#signin-password"), password), chromedp.Click(chromedp.CSS("#signin-form button")),
		chromedp.WaitVisible(chromedp.CSS("#speech-form"))); err != nil {
		t.Fatal(err)
	}
	who, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#who")))
	if err != nil || who != "local" {
		t.Fatalf("signed in as %q (%v)", who, err)
	}
}
