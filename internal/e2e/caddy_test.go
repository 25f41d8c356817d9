package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
)

// caddy starts Debian's caddy with examples/deploy/Caddyfile in front of
// upstream, serving HTTPS on a free loopback port with a certificate of
// its own local authority, and returns the proxy's base URL and a client
// that trusts that authority. The test's global options only keep Caddy
// on loopback, without its admin endpoint, HTTP/3 or the system's trust
// store; the site block is the file's, as a reader would use it.
func caddy(t *testing.T, upstream string) (string, *http.Client) {
	t.Helper()
	bin, err := exec.LookPath("caddy")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("caddy is not installed (.ci/deps.sh test installs it)")
		}
		t.Skip("caddy is not installed (apt-get install caddy)")
	}
	site, err := os.ReadFile(filepath.Join("..", "..", "examples", "deploy", "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	https, plain := freeAddr(t), freeAddr(t)
	port := func(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }
	global := "{\n\tadmin off\n\tskip_install_trust\n\tlocal_certs\n\tdefault_bind 127.0.0.1\n" +
		"\thttp_port " + port(plain) + "\n\thttps_port " + port(https) + "\n\tservers {\n\t\tprotocols h1 h2\n\t}\n}\n"
	config := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(config, append([]byte(global), site...), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "run", "--config", config, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"VOXKIT_SITE=https://"+https, "VOXKIT_UPSTREAM="+upstream)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })

	root := filepath.Join(dir, "data", "caddy", "pki", "authorities", "local", "root.crt")
	url := "https://" + https
	var client *http.Client
	if !wait.For(30*time.Second, func() bool {
		pem, err := os.ReadFile(root)
		if err != nil {
			return false
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
		res, err := client.Get(url + "/healthz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	}) {
		t.Fatalf("caddy did not proxy /healthz:\n%s", log.String())
	}
	return url, client
}

// TestBehindCaddy puts Caddy, configured by examples/deploy/Caddyfile, in
// front of the example server started with -trusted-proxies 127.0.0.1 as
// docs/deploy.md says, and goes through it as a user would: speech
// streamed over HTTP/2 and heard by the recognizer, the WebSocket (an
// upgrade through the proxy) with its audio, and the playground's
// sign-in, whose cookie is Secure because the proxy said https and
// voxkit believes it.
func TestBehindCaddy(t *testing.T) {
	audiotest.Require(t, "ffprobe", "pocketsphinx_continuous")
	addr, key, password := exampleServerPassword(t, "-trusted-proxies", "127.0.0.1")
	url, client := caddy(t, addr)

	t.Run("speech", func(t *testing.T) {
		sentence := 2
		body := `{"model":"tts-1","voice":"en-us","response_format":"wav","input":"` + sentences()[sentence] + `"}`
		req, _ := http.NewRequest("POST", url+"/v1/audio/speech", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		audio := readAll(t, res)
		if res.StatusCode != 200 || res.ProtoMajor != 2 || res.Header.Get("Content-Type") != "audio/wav" {
			t.Fatalf("%s %d %q: %.200s", res.Proto, res.StatusCode, res.Header.Get("Content-Type"), audio)
		}
		if got := audiotest.Recognize(t, audiotest.WriteTemp(t, audio, "wav"), audiotest.Candidates); got != audiotest.Candidates[sentence] {
			t.Errorf("through caddy the recognizer heard %q, want %q", got, audiotest.Candidates[sentence])
		}
	})

	t.Run("socket", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "wss"+strings.TrimPrefix(url, "https")+"/v1/audio/speech/ws", &websocket.DialOptions{
			HTTPClient: client, HTTPHeader: http.Header{"Authorization": {"Bearer " + key}}})
		if err != nil {
			t.Fatalf("WebSocket through caddy: %v", err)
		}
		defer c.CloseNow()
		c.SetReadLimit(64 << 20)
		w := &wsConn{t, c}
		b, _ := json.Marshal(map[string]string{"type": "speech.create", "id": "one", "voice": "en-us", "input": "Through the proxy. And out again."})
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
		if _, audio := w.until("speech.done"); audio < 24000 {
			t.Errorf("%d bytes of audio over the socket", audio)
		}
		c.Close(websocket.StatusNormalClosure, "")
	})

	t.Run("sign-in", func(t *testing.T) {
		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Transport: client.Transport, Jar: jar}
		res, err := browser.Post(url+"/v1/session", "application/json",
			strings.NewReader(`{"account":"local","password":"`+password+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, res)
		if res.StatusCode != 200 {
			t.Fatalf("sign-in: %d %s", res.StatusCode, body)
		}
		cookies := res.Cookies()
		if len(cookies) == 0 || !cookies[0].Secure || !cookies[0].HttpOnly {
			t.Errorf("session cookie %+v: want Secure (X-Forwarded-Proto https from a trusted proxy) and HttpOnly", cookies)
		}
		res, err = browser.Get(url + "/v1/session")
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			SignedIn bool   `json:"signed_in"`
			Account  string `json:"account"`
		}
		if err := json.Unmarshal(readAll(t, res), &s); err != nil || !s.SignedIn || s.Account != "local" {
			t.Errorf("after sign-in through caddy: %+v %v", s, err)
		}
	})
}
