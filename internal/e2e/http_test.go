package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// TestCurlAsPasted runs the real curl command the way the OpenAI docs
// print it (no response_format, so the documented default applies) and checks
// that Content-Type matches the bytes and the words are right.
func TestCurlAsPasted(t *testing.T) {
	audiotest.Require(t, "curl", "ffprobe", "pocketsphinx_continuous")
	e := newEnv(t, envOptions{espeak: true})
	dir := t.TempDir()
	out := filepath.Join(dir, "speech.mp3")
	hdr := filepath.Join(dir, "headers.txt")
	body := `{"model":"gpt-4o-mini-tts","voice":"coral","input":"Open the door and turn on the light.","instructions":"Speak in a cheerful and positive tone."}`
	cmd := exec.Command("curl", "-sS", e.url("/v1/audio/speech"),
		"-H", "Authorization: Bearer "+e.key, "-H", "Content-Type: application/json",
		"-d", body, "--output", out, "-D", hdr, "-w", "%{http_code}")
	got, err := cmd.CombinedOutput()
	if err != nil || string(got) != "200" {
		t.Fatalf("curl: %v, status %s", err, got)
	}
	audio, _ := os.ReadFile(out)
	headers, _ := os.ReadFile(hdr)
	ct := headerLine(string(headers), "content-type")
	if f := sniff(audio); f == "" || contentTypes[f] != ct {
		t.Errorf("Content-Type %q but the bytes are %q", ct, f)
	}
	if ct != "audio/wav" {
		t.Errorf("default response_format gave %q; the documented default is wav", ct)
	}
	for _, h := range []string{"cache-control", "x-upstream-ms", "x-gateway-ms", "x-request-id"} {
		if headerLine(string(headers), h) == "" {
			t.Errorf("no %s header in\n%s", h, headers)
		}
	}
	if p := audiotest.ProbeFile(t, out); p.Duration < 1 {
		t.Errorf("probe %+v", p)
	}
	if heard := audiotest.Recognize(t, out, audiotest.Candidates); heard != "open the door and turn on the light" {
		t.Errorf("recognizer heard %q", heard)
	}
}

// headerLine returns the value of header name in a curl -D dump.
func headerLine(dump, name string) string {
	for _, line := range strings.Split(dump, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// rawExchange sends raw bytes on a new connection and returns the parsed
// response with its body read, and whether the server closed the
// connection afterwards.
func rawExchange(t *testing.T, addr, raw string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return res, body
}

func TestRawHTTP(t *testing.T) {
	e := newEnv(t, envOptions{espeak: true})
	addr := strings.TrimPrefix(e.ts.URL, "http://")
	speech := `{"voice":"alloy","input":"Hello there. How are you?","response_format":"%s"}`

	t.Run("http1.0", func(t *testing.T) {
		for _, f := range []string{"wav", "pcm"} {
			b := fmt.Sprintf(speech, f)
			res, body := rawExchange(t, addr, fmt.Sprintf("POST /v1/audio/speech HTTP/1.0\r\nHost: x\r\n"+
				"Authorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", e.key, len(b), b))
			if res.StatusCode != 200 || len(res.TransferEncoding) != 0 {
				t.Fatalf("%s: status %d, transfer-encoding %v", f, res.StatusCode, res.TransferEncoding)
			}
			if err := checkAudio(res.Header, body, f); err != nil || len(body) < 24000 {
				t.Errorf("%s over HTTP/1.0: %v, %d bytes", f, err, len(body))
			}
		}
	})

	t.Run("chunked request body", func(t *testing.T) {
		b := fmt.Sprintf(speech, "mp3")
		res, body := rawExchange(t, addr, fmt.Sprintf("POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"+
			"Authorization: Bearer %s\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"+
			"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n", e.key, 10, b[:10], len(b)-10, b[10:]))
		if err := checkAudio(res.Header, body, "mp3"); res.StatusCode != 200 || err != nil {
			t.Errorf("status %d: %v", res.StatusCode, err)
		}
	})

	t.Run("expect 100-continue", func(t *testing.T) {
		b := fmt.Sprintf(speech, "flac")
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(c, "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", e.key, len(b))
		br := bufio.NewReader(c)
		line, err := br.ReadString('\n')
		if err != nil || !strings.Contains(line, "100") {
			t.Fatalf("want 100 Continue, got %q %v", line, err)
		}
		br.ReadString('\n') // the blank line
		io.WriteString(c, b)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		if err := checkAudio(res.Header, body, "flac"); res.StatusCode != 200 || err != nil {
			t.Errorf("status %d: %v", res.StatusCode, err)
		}
	})

	t.Run("expect 100-continue with a bad key is refused before the body", func(t *testing.T) {
		res, body := rawExchange(t, addr, "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_nope\r\n"+
			"Content-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n")
		if res.StatusCode != 401 {
			t.Errorf("status %d, want 401 without sending 100 Continue", res.StatusCode)
		}
		if _, err := checkError(res.Header, body); err != nil {
			t.Error(err)
		}
	})

	t.Run("keep-alive reuse across successes and errors", func(t *testing.T) {
		client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}}
		defer client.CloseIdleConnections()
		reused := 0
		for i, c := range []struct {
			key, body string
			status    int
		}{
			{e.key, fmt.Sprintf(speech, "wav"), 200},
			{"sk_bad", fmt.Sprintf(speech, "wav"), 401},
			{e.key, `{"voice":"nobody","input":"x"}`, 404},
			{e.key, `{"voice":"alloy"`, 400},
			{e.key, fmt.Sprintf(speech, "pcm"), 200},
			{e.key, fmt.Sprintf(speech, "opus"), 200},
		} {
			req, _ := http.NewRequest("POST", e.url("/v1/audio/speech"), strings.NewReader(c.body))
			req.Header.Set("Authorization", "Bearer "+c.key)
			req.Header.Set("Content-Type", "application/json")
			req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
				GotConn: func(ci httptrace.GotConnInfo) {
					if ci.Reused {
						reused++
					}
				},
			}))
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			readAll(t, res)
			if res.StatusCode != c.status {
				t.Errorf("request %d: status %d, want %d", i, res.StatusCode, c.status)
			}
		}
		if reused != 5 {
			t.Errorf("connection reused %d times of 5", reused)
		}
	})

	t.Run("gzip accepted", func(t *testing.T) {
		req, _ := http.NewRequest("POST", e.url("/v1/audio/speech"), strings.NewReader(fmt.Sprintf(speech, "wav")))
		req.Header.Set("Authorization", "Bearer "+e.key)
		req.Header.Set("Accept-Encoding", "gzip, deflate, br")
		tr := &http.Transport{DisableCompression: true}
		defer tr.CloseIdleConnections()
		res, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, res)
		switch enc := res.Header.Get("Content-Encoding"); enc {
		case "":
		case "gzip":
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(zr)
		default:
			t.Fatalf("Content-Encoding %q", enc)
		}
		if err := checkAudio(res.Header, body, "wav"); err != nil {
			t.Error(err)
		}
	})

	t.Run("pcm trailers", func(t *testing.T) {
		res := e.post("/v1/audio/speech", fmt.Sprintf(speech, "pcm"))
		body := readAll(t, res)
		if res.Header.Get("Content-Type") != "audio/pcm" || len(body) == 0 {
			t.Fatalf("pcm: %v, %d bytes", res.Header, len(body))
		}
		if res.Header.Get("x-request-id") == "" || res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("headers %v", res.Header)
		}
		if res.Trailer.Get("x-upstream-ms") == "" || res.Trailer.Get("x-gateway-ms") == "" {
			t.Errorf("trailers %v", res.Trailer)
		}
	})

	t.Run("every response has x-request-id and JSON errors", func(t *testing.T) {
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/nope"}, {"GET", "/v1/audio/speech"}, {"DELETE", "/v1/models"}, {"GET", "/v1/models/nobody"},
			{"GET", "/v1/models"}, {"PUT", "/v1/audio/speech"},
		} {
			req, _ := http.NewRequest(c.method, e.url(c.path), nil)
			res, err := e.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, res)
			if res.Header.Get("x-request-id") == "" {
				t.Errorf("%s %s: no x-request-id", c.method, c.path)
			}
			if _, err := checkError(res.Header, body); err != nil {
				t.Errorf("%s %s: %d %v", c.method, c.path, res.StatusCode, err)
			}
			if res.StatusCode == 405 && res.Header.Get("Allow") == "" {
				t.Errorf("%s %s: 405 without Allow", c.method, c.path)
			}
		}
	})
}
