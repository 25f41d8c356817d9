package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
)

// checkingStore is the SQLite store with a VerifyKey that counts its calls
// and, while held, waits to answer (telling entered when it starts) or
// answers with fail.
type checkingStore struct {
	*sqlite.Store
	mu      sync.Mutex
	calls   int
	hold    chan struct{} // non-nil: VerifyKey waits for it to close
	entered chan struct{} // receives when a held VerifyKey starts
	fail    error
}

func (c *checkingStore) VerifyKey(ctx context.Context, key string) (store.Key, error) {
	c.mu.Lock()
	c.calls++
	hold, entered, fail := c.hold, c.entered, c.fail
	c.mu.Unlock()
	if hold != nil {
		entered <- struct{}{}
		<-hold
	}
	if fail != nil {
		return store.Key{}, fail
	}
	return c.Store.VerifyKey(ctx, key)
}

// holdChecks makes the next key checks wait until the returned function
// is called.
func (c *checkingStore) holdChecks() (release func()) {
	hold := make(chan struct{})
	c.mu.Lock()
	c.hold, c.entered = hold, make(chan struct{}, 16)
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.hold = nil
		c.mu.Unlock()
		close(hold)
	}
}

func (c *checkingStore) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

func newCheckingEnv(t *testing.T) (*testserver.Env, *checkingStore) {
	cs := new(checkingStore)
	e := testserver.New(t, testserver.Options{Wrap: func(st *sqlite.Store) store.Store { cs.Store = st; return cs }})
	return e, cs
}

// refusal checks that res is the 401 of a revoked or unknown key with
// nothing of the audio response in it.
func refusal(t *testing.T, res *http.Response, body []byte) {
	t.Helper()
	var e struct {
		Error struct{ Code, Type string } `json:"error"`
	}
	if res.StatusCode != http.StatusUnauthorized || json.Unmarshal(body, &e) != nil || e.Error.Code != "invalid_api_key" {
		t.Fatalf("status %d, body %.200q; want 401 invalid_api_key", res.StatusCode, body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	if res.Header.Get("WWW-Authenticate") == "" {
		t.Error("no WWW-Authenticate header")
	}
	for _, h := range []string{"x-upstream-ms", "x-gateway-ms", "Trailer"} {
		if v := res.Header.Get(h); v != "" {
			t.Errorf("header %s: %q on a refusal", h, v)
		}
	}
}

// TestRevokedKnownKeyRefused: a key this server has seen is still checked
// by the store on every speech request, so one revoked behind the
// server's back (by the CLI, another replica) is refused at once, in
// every kind of response, and nothing of the audio leaves.
func TestRevokedKnownKeyRefused(t *testing.T) {
	e, cs := newCheckingEnv(t)
	for _, tc := range []struct{ name, body string }{
		{"wav clip", `{"voice":"en-us","input":"Hello there.","response_format":"wav"}`},
		{"mp3 clip", `{"voice":"en-us","input":"Hello there.","response_format":"mp3"}`},
		{"pcm stream", `{"voice":"en-us","input":"Hello there. And more.","response_format":"pcm"}`},
		{"sse", `{"voice":"en-us","input":"Hello there.","response_format":"pcm","stream_format":"sse"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, key, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: "local", Name: "to revoke", Scope: store.ScopeSpeech})
			if err != nil {
				t.Fatal(err)
			}
			before := cs.count()
			for range 3 {
				if res, body := e.SpeechRequest(key, tc.body); res.StatusCode != http.StatusOK || len(body) < 100 {
					t.Fatalf("status %d, %d bytes before revoking", res.StatusCode, len(body))
				}
			}
			if n := cs.count() - before; n != 3 {
				t.Errorf("the store checked the key %d times for 3 requests", n)
			}
			if _, err := e.Store.RevokeKey(t.Context(), "local", k.Prefix); err != nil {
				t.Fatal(err)
			}
			res, body := e.SpeechRequest(key, tc.body)
			refusal(t, res, body)
		})
	}
}

// TestRefusalCutsWorkShort: a known key's speech starts before the store
// has answered, and a refusal stops it: of 30 slow sentences, only those
// begun before the check answered are rendered.
func TestRefusalCutsWorkShort(t *testing.T) {
	e, cs := newCheckingEnv(t)
	k, key, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: "local", Name: "to revoke", Scope: store.ScopeSpeech})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := e.SpeechRequest(key, `{"voice":"fake","input":"Known now."}`); res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	if _, err := e.Store.RevokeKey(t.Context(), "local", k.Prefix); err != nil {
		t.Fatal(err)
	}
	release := cs.holdChecks()
	defer func() {
		if release != nil {
			release()
		}
	}()
	input := strings.Repeat("One more slow sentence. ", 30)
	type answer struct {
		res  *http.Response
		body []byte
	}
	done := make(chan answer, 1)
	before := len(e.Slow.Requests())
	go func() {
		res, body := e.SpeechRequest(key, `{"voice":"slow","input":"`+input+`","response_format":"wav"}`)
		done <- answer{res, body}
	}()
	<-cs.entered
	if !wait.For(10*time.Second, func() bool { return len(e.Slow.Requests()) > before }) {
		t.Fatal("no synthesis started while the key check was under way")
	}
	release()
	release = nil
	a := <-done
	refusal(t, a.res, a.body)
	if n := len(e.Slow.Requests()) - before; n >= 30 {
		t.Errorf("%d of 30 sentences rendered for a refused key", n)
	}
}

// TestUnknownKeyCheckedFirst: a key the server has not verified before is
// checked before any synthesis, so an unknown caller costs no work.
func TestUnknownKeyCheckedFirst(t *testing.T) {
	e, cs := newCheckingEnv(t)
	_, key, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: "local", Name: "new", Scope: store.ScopeSpeech})
	if err != nil {
		t.Fatal(err)
	}
	release := cs.holdChecks()
	before := len(e.Slow.Requests())
	done := make(chan int, 1)
	go func() {
		res, _ := e.SpeechRequest(key, `{"voice":"slow","input":"Only after the check."}`)
		done <- res.StatusCode
	}()
	<-cs.entered
	// Time enough to start, were it allowed to.
	if !wait.Never(200*time.Millisecond, func() bool { return len(e.Slow.Requests()) > before }) {
		t.Errorf("%d sentences rendered before an unknown key was checked", len(e.Slow.Requests())-before)
	}
	release()
	if st := <-done; st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if len(e.Slow.Requests()) == before {
		t.Error("nothing rendered once the key passed")
	}

	// A key that does not exist: refused, and nothing rendered.
	res, body := e.SpeechRequest("sk_notakeyofthisserveratall0000000000000000", `{"voice":"slow","input":"Never."}`)
	refusal(t, res, body)
}

// TestKeyCheckFailure: when the store cannot answer for a known key, the
// request gets the same 500 as an unknown key's would, and no audio.
func TestKeyCheckFailure(t *testing.T) {
	e, cs := newCheckingEnv(t)
	if res, _ := e.SpeechRequest(e.Key, `{"voice":"en-us","input":"Known now."}`); res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	cs.mu.Lock()
	cs.fail = errors.New("database is on fire")
	cs.mu.Unlock()
	for _, format := range []string{"pcm", "wav"} {
		res, body := e.SpeechRequest(e.Key, `{"voice":"en-us","input":"Hello.","response_format":"`+format+`"}`)
		if res.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), `"server_error"`) {
			t.Errorf("%s: status %d, body %.200q; want 500 server_error", format, res.StatusCode, body)
		}
	}
}
