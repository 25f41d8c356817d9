package openai_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

func TestHTTPDetails(t *testing.T) {
	e := testserver.New(t, testserver.Options{ReadTimeout: 300 * time.Millisecond})
	req := func(method, path string, h map[string]string) *http.Response {
		t.Helper()
		r, _ := http.NewRequest(method, e.TS.URL+path, nil)
		for k, v := range h {
			r.Header.Set(k, v)
		}
		res, err := e.TS.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	auth := map[string]string{"Authorization": "Bearer " + e.Key}
	if res := req("HEAD", "/v1/models", auth); res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("HEAD: %d", res.StatusCode)
	}
	if res := req("OPTIONS", "/v1/models", nil); res.StatusCode != 204 || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("OPTIONS: %d Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
	res := req("OPTIONS", "/v1/audio/speech", map[string]string{"Origin": "http://app.example",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type,x-stainless-os"})
	if h := res.Header; res.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != "*" ||
		h.Get("Access-Control-Allow-Headers") != "authorization,content-type,x-stainless-os" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight: %d %v", res.StatusCode, h)
	}
	withOrigin := map[string]string{"Authorization": "Bearer " + e.Key, "Origin": "http://app.example"}
	if res := req("GET", "/v1/models", withOrigin); !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "x-request-id") {
		t.Errorf("CORS on a response: %v", res.Header)
	}
	for _, p := range []string{"//v1/models", "/v1//models", "//v1///models"} {
		if res := req("GET", p, auth); res.StatusCode != 200 {
			t.Errorf("GET %s: %d", p, res.StatusCode)
		}
	}
}

func TestSlowBodyIsCut(t *testing.T) {
	e := testserver.New(t, testserver.Options{ReadTimeout: 300 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(e.TS.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"voice":"en-us","input":"` + strings.Repeat("a", 40) + `"}`
	fmt.Fprintf(c, "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", e.Key, len(body))
	go func() {
		for i := range body {
			if _, err := c.Write([]byte(body[i : i+1])); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestTimeout || !res.Close {
		t.Errorf("slow body: %d, close %v", res.StatusCode, res.Close)
	}
}

func TestIgnoredTagsHeader(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, format := range []string{"wav", "pcm"} {
		body := `{"voice":"en-us","input":"<|frobnicate|> Hello there.","response_format":"` + format + `"}`
		res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(body))
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		got := res.Header.Get("x-ignored-tags")
		if format == "pcm" {
			got = res.Trailer.Get("x-ignored-tags")
		}
		if res.StatusCode != 200 || !strings.Contains(got, "frobnicate") {
			t.Errorf("%s: status %d, x-ignored-tags %q", format, res.StatusCode, got)
		}
	}
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(`{"voice":"en-us","input":"Plain."}`))
	res.Body.Close()
	if _, ok := res.Header["X-Ignored-Tags"]; ok {
		t.Error("x-ignored-tags sent with no ignored tags")
	}
}

// A failure after pcm audio has started cuts the response: the client sees
// a truncated body, never a short clip that looks complete.
func TestStreamFailureTruncates(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	body := `{"voice":"faulty","input":"This part is fine. Now FAIL here.","response_format":"pcm"}`
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(body))
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	if res.StatusCode != 200 || len(got) == 0 || err == nil {
		t.Fatalf("status %d, %d bytes, read error %v: want 200, some audio, then an error", res.StatusCode, len(got), err)
	}
	// SSE reports the same failure in-band instead.
	body = `{"voice":"faulty","input":"This part is fine. Now FAIL here.","response_format":"pcm","stream_format":"sse"}`
	res = e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(body))
	defer res.Body.Close()
	got, _ = io.ReadAll(res.Body)
	if !strings.Contains(string(got), `"type":"speech.audio.delta"`) || !strings.Contains(string(got), `data: {"error":{`) ||
		strings.Contains(string(got), "[DONE]") {
		t.Errorf("SSE failure:\n%s", got)
	}
}
