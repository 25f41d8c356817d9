package e2e

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// do sends method path with key and an optional JSON body.
func (e *env) do(t *testing.T, method, path, key, body string) (*http.Response, []byte) {
	t.Helper()
	var r *strings.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	var req *http.Request
	var err error
	if r != nil {
		req, err = http.NewRequest(method, e.url(path), r)
	} else {
		req, err = http.NewRequest(method, e.url(path), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res, readAll(t, res)
}

// TestKeyLifecycle: a key made through the API works at once, is listed
// by prefix only, and stops working when revoked.
func TestKeyLifecycle(t *testing.T) {
	e := newEnv(t, envOptions{})
	res, body := e.do(t, "POST", "/v1/keys", e.key, `{"name":"ci"}`)
	var k struct {
		Prefix, Key, Account string
	}
	if err := json.Unmarshal(body, &k); err != nil || res.StatusCode != 201 || !strings.HasPrefix(k.Key, "sk_") || k.Account != "local" {
		t.Fatalf("create: %d %s", res.StatusCode, body)
	}
	if len(k.Key) < 3+43 { // 32 random bytes in base62 are at least 43 characters
		t.Errorf("key %d characters long", len(k.Key))
	}
	if res, _ := e.do(t, "GET", "/v1/models", k.Key, ""); res.StatusCode != 200 {
		t.Errorf("new key: %d", res.StatusCode)
	}
	_, list := e.do(t, "GET", "/v1/keys", e.key, "")
	if bytes.Contains(list, []byte(k.Key)) || !bytes.Contains(list, []byte(k.Prefix)) {
		t.Errorf("key list %s", list)
	}
	if res, body := e.do(t, "DELETE", "/v1/keys/"+k.Prefix, e.otherKey, ""); res.StatusCode != 404 {
		t.Errorf("another account revoked the key: %d %s", res.StatusCode, body)
	}
	if res, body := e.do(t, "DELETE", "/v1/keys/"+k.Prefix, e.key, ""); res.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", res.StatusCode, body)
	}
	res, body = e.do(t, "POST", "/v1/audio/speech", k.Key, `{"voice":"fake","input":"x"}`)
	ae, err := checkError(res.Header, body)
	if res.StatusCode != 401 || err != nil || ae.Code == nil || *ae.Code != "invalid_api_key" {
		t.Errorf("revoked key: %d %s %v", res.StatusCode, body, err)
	}
	if strings.Contains(string(body), k.Key) {
		t.Error("the error echoes the whole key")
	}
}

// TestModelScoping: each account sees the global voices and its own
// clones, owned_by user; nobody sees another account's clones.
func TestModelScoping(t *testing.T) {
	e := newEnv(t, envOptions{})
	list := func(key string) map[string]string {
		res, body := e.do(t, "GET", "/v1/models", key, "")
		var l struct {
			Object string
			Data   []struct {
				ID      string
				OwnedBy string `json:"owned_by"`
			}
		}
		if res.StatusCode != 200 || json.Unmarshal(body, &l) != nil || l.Object != "list" {
			t.Fatalf("%d %s", res.StatusCode, body)
		}
		m := map[string]string{}
		for _, d := range l.Data {
			m[d.ID] = d.OwnedBy
		}
		return m
	}
	local, other := list(e.key), list(e.otherKey)
	if _, ok := local["other-clone"]; ok || other["other-clone"] != "user" || local["fake"] != "service" {
		t.Errorf("local sees %v; other sees %v", local, other)
	}
	for id := range local {
		res, _ := e.do(t, "POST", "/v1/audio/speech", e.key, fmt.Sprintf(`{"voice":%q,"input":"Hi."}`, id))
		if res.StatusCode != 200 {
			t.Errorf("listed model %q is not usable as a voice: %d", id, res.StatusCode)
		}
	}
	res, body := e.do(t, "GET", "/v1/models/other-clone", e.key, "")
	ae, err := checkError(res.Header, body)
	if res.StatusCode != 404 || err != nil || ae.Code == nil || *ae.Code != "model_not_found" {
		t.Errorf("another account's clone: %d %s", res.StatusCode, body)
	}
	if res, _ := e.do(t, "GET", "/v1/models/other-clone", e.otherKey, ""); res.StatusCode != 200 {
		t.Errorf("own clone: %d", res.StatusCode)
	}
}

// TestSSEEveryFormat: stream_format sse carries each format as base64
// deltas that join into one valid stream.
func TestSSEEveryFormat(t *testing.T) {
	audiotest.Require(t, "ffprobe")
	e := newEnv(t, envOptions{letter: 20 * time.Millisecond})
	for _, f := range []string{"wav", "mp3", "opus", "flac", "pcm"} {
		t.Run(f, func(t *testing.T) {
			res, body := e.do(t, "POST", "/v1/audio/speech", e.key,
				fmt.Sprintf(`{"voice":"fake","input":"One sentence here. And another one. A third.","response_format":%q,"stream_format":"sse"}`, f))
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("%d %s", res.StatusCode, res.Header.Get("Content-Type"))
			}
			var audio []byte
			var types []string
			sc := bufio.NewScanner(bytes.NewReader(body))
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				line, ok := strings.CutPrefix(sc.Text(), "data: ")
				if !ok {
					if sc.Text() != "" {
						t.Errorf("line %q is not a data line", sc.Text())
					}
					continue
				}
				if line == "[DONE]" {
					types = append(types, line)
					continue
				}
				var ev struct {
					Type  string
					Audio string
					Usage *struct {
						InputTokens  int `json:"input_tokens"`
						OutputTokens int `json:"output_tokens"`
						TotalTokens  int `json:"total_tokens"`
					}
				}
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatalf("event %q: %v", line, err)
				}
				types = append(types, ev.Type)
				if ev.Type == "speech.audio.delta" {
					b, err := base64.StdEncoding.DecodeString(ev.Audio)
					if err != nil {
						t.Fatal(err)
					}
					audio = append(audio, b...)
				}
				if ev.Type == "speech.audio.done" && (ev.Usage == nil || ev.Usage.TotalTokens != ev.Usage.InputTokens+ev.Usage.OutputTokens || ev.Usage.InputTokens == 0) {
					t.Errorf("usage %+v", ev.Usage)
				}
			}
			n := len(types)
			if n < 3 || types[n-1] != "[DONE]" || types[n-2] != "speech.audio.done" {
				t.Fatalf("events %v", types)
			}
			if f == "pcm" {
				if d := pcmSeconds(audio); d < 0.7 {
					t.Errorf("pcm %.2fs", d)
				}
				return
			}
			if sniff(audio) != f {
				t.Fatalf("joined deltas look like %q", sniff(audio))
			}
			// 33 letters and 11 other characters of the fake voice: 0.77 s.
			// (A streamed flac leaves its length unset, so decode.)
			path := audiotest.WriteTemp(t, audio, f)
			if d := float64(len(audiotest.Decode(t, path, 16000))) / 16000; d < 0.7 || d > 0.9 {
				t.Errorf("decoded %.3fs, want about 0.77", d)
			}
		})
	}
}

// TestUncleanPaths: paths with // or /./ are redirected by ServeMux; the
// redirect carries no JSON error, so `curl $BASE/v1/...` with a BASE
// ending in "/" silently saves an empty file.
func TestUncleanPaths(t *testing.T) {
	e := newEnv(t, envOptions{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"//v1/audio/speech", "/v1//audio/speech", "/v1/audio/./speech"} {
		t.Run(p, func(t *testing.T) {
			req, _ := http.NewRequest("POST", e.url(p), strings.NewReader(`{"voice":"fake","input":"Hi."}`))
			req.Header.Set("Authorization", "Bearer "+e.key)
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, res)
			if res.StatusCode/100 == 2 {
				return // served directly: fine
			}
			if _, err := checkError(res.Header, body); err != nil {
				t.Errorf("%s: %d %v", p, res.StatusCode, err)
			}
		})
	}
}

// TestConcurrentEspeakNoCrossTalk: concurrent requests for different
// sentences each get their own words (libespeak-ng is not thread-safe).
func TestConcurrentEspeakNoCrossTalk(t *testing.T) {
	audiotest.Require(t, "ffmpeg", "pocketsphinx_continuous")
	e := newEnv(t, envOptions{espeak: true})
	sents := sentences()
	type got struct {
		i     int
		audio []byte
	}
	results := make(chan got, 2*len(sents))
	var wg sync.WaitGroup
	for round := range 2 {
		for i, s := range sents {
			wg.Go(func() {
				b, _ := json.Marshal(map[string]any{"voice": "alloy", "input": s, "response_format": []string{"wav", "flac"}[round]})
				var res *http.Response
				var body []byte
				// A 503 with Retry-After (the key check outlasted its
				// deadline on a loaded machine) is retried, as the SDKs do.
				for try := 0; try < 3 && (try == 0 || res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") != ""); try++ {
					req, _ := http.NewRequest("POST", e.url("/v1/audio/speech"), bytes.NewReader(b))
					req.Header.Set("Authorization", "Bearer "+e.key)
					var err error
					if res, err = e.ts.Client().Do(req); err != nil {
						t.Error(err)
						return
					}
					body = readAll(t, res)
				}
				if res.StatusCode != 200 {
					t.Errorf("%d %s", res.StatusCode, body)
					return
				}
				results <- got{i, body}
			})
		}
	}
	wg.Wait()
	close(results)
	n := 0
	for r := range results {
		n++
		path := audiotest.WriteTemp(t, r.audio, sniff(r.audio))
		if heard := audiotest.Recognize(t, path, audiotest.Candidates); heard != audiotest.Candidates[r.i] {
			t.Errorf("asked for %q, heard %q", audiotest.Candidates[r.i], heard)
		}
	}
	if n != 2*len(sents) {
		t.Errorf("%d of %d requests succeeded", n, 2*len(sents))
	}
}
