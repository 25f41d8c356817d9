package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/voxkit/voxkit/engine"
)

// TestNULDoesNotCutInput: text after an escaped NUL ("\u0000") must still
// be spoken. espeak-ng takes C strings, so a NUL that reaches it ends the
// text early.
func TestNULDoesNotCutInput(t *testing.T) {
	e := newEnv(t, envOptions{espeak: true})
	dur := func(input string) float64 {
		b, _ := json.Marshal(map[string]string{"voice": "alloy", "input": input, "response_format": "pcm"})
		res := e.post("/v1/audio/speech", string(b))
		body := readAll(t, res)
		if res.StatusCode != 200 {
			t.Fatalf("status %d: %s", res.StatusCode, body)
		}
		return float64(len(body)) / 2 / 24000
	}
	plain := dur("Hello there, this sentence goes on for quite a while after the greeting.")
	nul := dur("Hello\u0000 there, this sentence goes on for quite a while after the greeting.")
	if nul < 0.8*plain {
		t.Errorf("with a NUL after the first word the audio lasts %.2fs, without %.2fs: the rest was dropped", nul, plain)
	}
}

// TestBrowserHTTP checks what browsers do besides GET and POST: HEAD on
// the model list, and the CORS preflight a web page on another origin
// sends before calling the API with the SDK (dangerouslyAllowBrowser).
func TestBrowserHTTP(t *testing.T) {
	e := newEnv(t, envOptions{})
	do := func(method, path string, h map[string]string) *http.Response {
		req, _ := http.NewRequest(method, e.url(path), nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		res, err := e.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, res)
		return res
	}
	t.Run("HEAD models", func(t *testing.T) {
		res := do("HEAD", "/v1/models", map[string]string{"Authorization": "Bearer " + e.key})
		if res.StatusCode != 200 {
			t.Errorf("HEAD /v1/models: %d, want 200 as for GET (RFC 9110 9.3.2)", res.StatusCode)
		}
	})
	t.Run("CORS preflight", func(t *testing.T) {
		res := do("OPTIONS", "/v1/audio/speech", map[string]string{
			"Origin": "http://app.example", "Access-Control-Request-Method": "POST",
			"Access-Control-Request-Headers": "authorization,content-type,x-stainless-os",
		})
		if res.StatusCode >= 300 || res.Header.Get("Access-Control-Allow-Origin") == "" {
			t.Errorf("preflight: status %d, Access-Control-Allow-Origin %q, Allow-Headers %q",
				res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"), res.Header.Get("Access-Control-Allow-Headers"))
		}
	})
}

// TestTagLikeTextNotSpoken: text shaped like a tag but not well formed
// (upper case, a space, an unknown form) must not be read aloud: espeak
// skips "<" and "|" but says the words inside, so "<|Pause|>" is heard as
// "pause".
func TestTagLikeTextNotSpoken(t *testing.T) {
	var (
		mu   sync.Mutex
		said []string
	)
	e := newEnv(t, envOptions{guard: func(r engine.Request) {
		mu.Lock()
		said = append(said, r.Text)
		mu.Unlock()
	}})
	for _, in := range []string{"Hello <|Pause|> world.", "Hello <|pause 1s|> world.", "Hi <|pause:1s <|x|> there.", "Hi <| b |> c."} {
		b, _ := json.Marshal(map[string]string{"voice": "fake", "input": in})
		res := e.post("/v1/audio/speech", string(b))
		readAll(t, res)
		if res.StatusCode != 200 {
			t.Errorf("%q: status %d", in, res.StatusCode)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range said {
		if strings.Contains(s, "<|") || strings.Contains(s, "|>") {
			t.Errorf("the engine was asked to say %q", s)
		}
	}
}

// TestTrailingBracket: a JSON object followed by a stray "}" or "]" is
// malformed JSON and must be a 400 (found by FuzzSpeechBody).
func TestTrailingBracket(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, body := range []string{`{"voice":"fake","input":"0"}}`, `{"voice":"fake","input":"0"}]`, `{"voice":"fake","input":"0"} } ]`, `{"voice":"fake","input":"0"}}0`, `{"voice":"fake","input":"0"}] anything {"at":"all"}`} {
		res := e.post("/v1/audio/speech", body)
		b := readAll(t, res)
		if res.StatusCode != 400 {
			t.Errorf("%s: status %d, want 400", body, res.StatusCode)
		} else if _, err := checkError(res.Header, b); err != nil {
			t.Error(err)
		}
	}
}
