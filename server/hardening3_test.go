package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/server/wire"
)

// untilError reads messages until an error message and returns it.
func untilError(t *testing.T, c *websocket.Conn) testserver.WSMsg {
	t.Helper()
	for {
		m := testserver.Next(t, c)
		if m.Type == "error" {
			return m
		}
	}
}

// busyWith starts a long request on c, so that what is sent next waits
// behind it.
func busyWith(t *testing.T, c *websocket.Conn) {
	t.Helper()
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "busy", "voice": "slow", "response_format": "pcm",
		"input": strings.Repeat("A slow sentence to keep the connection busy. ", 40)})
}

// TestWSClientIDsBounded: ids and flush ids the server would echo are
// refused past wire.MaxClientID bytes, and a queued input stream holds a
// bounded number of messages however small their text, so a flood of
// input.flush messages with large ids cannot grow the server.
func TestWSClientIDsBounded(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	busyWith(t, c)
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "q", "voice": "en-us", "input_stream": true})

	long := strings.Repeat("f", wire.MaxClientID+1)
	testserver.SendWS(t, c, map[string]any{"type": "input.flush", "id": "q", "flush_id": long})
	m := untilError(t, c)
	if m.Error["code"] != wire.CodeInvalidValue || m.Error["param"] != "flush_id" || m.ID != "" {
		t.Errorf("long flush_id: %+v", m)
	}
	if b, _ := json.Marshal(m); strings.Contains(string(b), long) {
		t.Error("the error echoes the long flush_id")
	}
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": strings.Repeat("i", 200), "voice": "en-us", "input": "Hi."})
	if m := untilError(t, c); m.Error["code"] != wire.CodeInvalidValue || m.Error["param"] != "id" || m.ID != "" {
		t.Errorf("long id: %+v", m)
	}
	testserver.SendWS(t, c, map[string]any{"type": strings.Repeat("t", 200), "id": "q"})
	if m := untilError(t, c); m.Error["code"] != wire.CodeInvalidValue || m.Error["param"] != "type" {
		t.Errorf("long type: %+v", m)
	}
	// A message too large to be an input message is refused unread.
	testserver.SendWS(t, c, map[string]any{"type": "input.flush", "id": "q", "flush_id": strings.Repeat("f", 100<<10)})
	if m := untilError(t, c); m.Error["code"] != wire.CodeInvalidValue || len(fmt.Sprint(m.Error["message"])) > 200 {
		t.Errorf("100 KB flush: %+v", m)
	}

	// Many flushes of the queued stream, each within the id limit.
	id := strings.Repeat("x", wire.MaxClientID)
	for range 300 {
		testserver.SendWS(t, c, map[string]any{"type": "input.flush", "id": "q", "flush_id": id})
	}
	if m := untilError(t, c); m.Error["code"] != wire.CodeBufferFull || m.ID != "q" {
		t.Errorf("300 queued flushes: %+v, want input_buffer_full for q", m)
	}
	testserver.SendWS(t, c, map[string]any{"type": "speech.cancel", "id": "busy"})
}

// TestWSAppendsJoin: appends waiting in a queued input stream are one
// message, so a stream fed word by word while it waits is not refused
// for the number of its messages.
func TestWSAppendsJoin(t *testing.T) {
	t.Parallel() // a long test, alongside the others that wait on the slow engine
	e := testserver.New(t, testserver.Options{})
	c := testserver.DialWS(t, e, e.Key)
	testserver.Next(t, c) // ready
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "busy", "voice": "slow", "response_format": "pcm",
		"input": strings.Repeat("A slow sentence. ", 10)})
	testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "q", "voice": "fake", "input_stream": true})
	for range 1000 {
		testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "q", "text": "Word. "})
	}
	testserver.SendWS(t, c, map[string]any{"type": "input.done", "id": "q"})
	for _, want := range []string{"busy", "q"} {
		for {
			m := testserver.Next(t, c)
			if m.Type == "error" {
				t.Fatalf("%+v", m)
			}
			if m.Type == "speech.done" {
				if m.ID != want {
					t.Fatalf("speech.done of %q, want %q", m.ID, want)
				}
				break
			}
		}
	}
}

// TestWSBadKeyHeader: a handshake whose Sec-WebSocket-Key is not 16
// bytes of base64 gets the JSON 400, which does not echo the key.
func TestWSBadKeyHeader(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for name, keys := range map[string][]string{
		"100 KB":   {strings.Repeat("A", 100<<10)},
		"not b64":  {"this is not base64!!"},
		"8 bytes":  {"AAAAAAAAAAA="},
		"two keys": {"dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25jZQ=="},
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", e.TS.URL+"/v1/audio/speech/ws", nil)
			req.Header.Set("Authorization", "Bearer "+e.Key)
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
			req.Header.Set("Sec-WebSocket-Version", "13")
			req.Header["Sec-WebSocket-Key"] = keys
			res, err := e.TS.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var we wire.Error
			if res.StatusCode != 400 || res.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &we) != nil ||
				we.Param != "Sec-WebSocket-Key" || len(body) > 512 {
				t.Errorf("%d %s %.300q", res.StatusCode, res.Header.Get("Content-Type"), body)
			}
		})
	}
}

// TestMetricsMethodsBounded: methods a client makes up are counted as
// "other", so random methods cannot grow /metrics.
func TestMetricsMethodsBounded(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := testserver.New(t, testserver.Options{Metrics: reg})
	const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for i := range 500 {
		m := make([]byte, 8+rand.IntN(16))
		for j := range m {
			m[j] = letters[rand.IntN(len(letters))]
		}
		res := e.Do(string(m), fmt.Sprintf("/v1/x%d", i), "", "", nil)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	mf := testserver.Gathered(t, reg, "voxkit_http_requests_total")
	methods := map[string]float64{}
	for _, m := range mf.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "method" {
				methods[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	if len(methods) != 1 || methods["other"] != 500 {
		t.Errorf("%d method labels, other: %v; want only other: 500", len(methods), methods["other"])
	}
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if n := rec.Body.Len(); n > 200<<10 {
		t.Errorf("/metrics is %d bytes after 500 random methods", n)
	}
}

// TestKeyCheckDeadline: a known key whose check the store does not
// answer is refused with 503 when the check's deadline passes, and its
// work stops then; a request whose client leaves while its check is
// under way ends at once, holding nothing until the store answers.
func TestKeyCheckDeadline(t *testing.T) {
	t.Run("late", func(t *testing.T) {
		cs := new(checkingStore)
		e := testserver.New(t, testserver.Options{KeyCheck: 300 * time.Millisecond, Wrap: func(st *sqlite.Store) store.Store { cs.Store = st; return cs }})
		if res, _ := e.SpeechRequest(e.Key, `{"voice":"fake","input":"Known now."}`); res.StatusCode != http.StatusOK {
			t.Fatalf("status %d", res.StatusCode)
		}
		release := cs.holdChecks()
		defer release()
		before := len(e.Slow.Requests())
		res, body := e.SpeechRequest(e.Key, `{"voice":"slow","input":"`+strings.Repeat("One more slow sentence. ", 60)+`","response_format":"wav"}`)
		var we wire.Error
		if res.StatusCode != http.StatusServiceUnavailable || json.Unmarshal(body, &we) != nil || we.Code != wire.CodeServiceUnavailable {
			t.Fatalf("status %d, body %.200q; want 503 service_unavailable", res.StatusCode, body)
		}
		if res.Header.Get("x-upstream-ms") != "" {
			t.Error("timing headers on a refusal")
		}
		if n := len(e.Slow.Requests()) - before; n >= 60 {
			t.Errorf("all %d sentences rendered past the check's deadline", n)
		}
	})
	t.Run("client gone", func(t *testing.T) {
		cs := new(checkingStore)
		e := testserver.New(t, testserver.Options{KeyCheck: time.Hour, Wrap: func(st *sqlite.Store) store.Store { cs.Store = st; return cs }})
		if res, _ := e.SpeechRequest(e.Key, `{"voice":"fake","input":"Known now."}`); res.StatusCode != http.StatusOK {
			t.Fatalf("status %d", res.StatusCode)
		}
		<-e.Done
		release := cs.holdChecks()
		defer release()
		ctx, cancel := context.WithCancel(t.Context())
		req, _ := http.NewRequestWithContext(ctx, "POST", e.TS.URL+"/v1/audio/speech",
			strings.NewReader(`{"voice":"fake","input":"Quick.","response_format":"wav"}`))
		req.Header.Set("Authorization", "Bearer "+e.Key)
		errc := make(chan error, 1)
		go func() {
			res, err := e.TS.Client().Do(req)
			if err == nil {
				res.Body.Close()
			}
			errc <- err
		}()
		<-cs.entered
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("request: %v", err)
		}
		select {
		case <-e.Done: // the handler returned while the store still holds the check
		case <-time.After(10 * time.Second):
			t.Fatal("the handler still waits for the key check after its client left")
		}
	})
}

// failingPing is the SQLite store whose Ping fails with an error that
// names a host and a user, as a database driver's does.
type failingPing struct{ *sqlite.Store }

func (failingPing) Ping(context.Context) error {
	return errors.New(`failed to connect to host=db.internal user=voxkit_admin database=voxkit: dial tcp 10.1.2.3:5432: connection refused`)
}

// TestReadyzGenericReason: /readyz on the API says that the store is
// unreachable, not where it is or as whom the server connects.
func TestReadyzGenericReason(t *testing.T) {
	e := testserver.New(t, testserver.Options{Wrap: func(st *sqlite.Store) store.Store { return failingPing{st} }})
	res := e.Do("GET", "/readyz", "", "", nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var h wire.Health
	if res.StatusCode != http.StatusServiceUnavailable || json.Unmarshal(body, &h) != nil || h.Reason != "store unreachable" {
		t.Errorf("%d %q; want 503 with reason \"store unreachable\"", res.StatusCode, body)
	}
	for _, leak := range []string{"db.internal", "voxkit_admin", "10.1.2.3", "5432"} {
		if strings.Contains(string(body), leak) {
			t.Errorf("/readyz tells %q: %s", leak, body)
		}
	}
	if err := e.Server.Ready(t.Context()); err == nil || !strings.Contains(err.Error(), "db.internal") {
		t.Errorf("Ready: %v; want the details", err)
	}
}

// TestInputStreamRechecksKey: an input stream whose key is revoked while
// it is open is refused at its next input.flush or input.done with
// invalid_api_key and closed with 1008, as a request would be.
func TestInputStreamRechecksKey(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	for _, end := range []string{"input.flush", "input.done"} {
		t.Run(end, func(t *testing.T) {
			k, key, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: "local", Name: "stream", Scope: store.ScopeSpeech})
			if err != nil {
				t.Fatal(err)
			}
			c := testserver.DialWS(t, e, key)
			testserver.Next(t, c) // ready
			testserver.SendWS(t, c, map[string]any{"type": "speech.create", "id": "s", "voice": "fake", "input_stream": true, "response_format": "pcm"})
			testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "s", "text": "Hello there. "})
			if m := testserver.Next(t, c); m.Type != "speech.started" {
				t.Fatalf("%+v", m)
			}
			if _, err := e.Store.RevokeKey(t.Context(), "local", k.Prefix); err != nil {
				t.Fatal(err)
			}
			testserver.SendWS(t, c, map[string]any{"type": "input.append", "id": "s", "text": "More text"})
			testserver.SendWS(t, c, map[string]any{"type": end, "id": "s"})
			if m := untilError(t, c); m.Error["code"] != wire.CodeInvalidAPIKey || m.ID != "s" {
				t.Errorf("%+v; want invalid_api_key for s", m)
			}
			closedWith(t, c, websocket.StatusPolicyViolation)
		})
	}
}

// TestSignInConcurrentGuesses: guesses sent at once take their attempts
// before any is hashed, so no more than the account's allowance (10) is
// checked, whichever of them holds the right password; the rest get 429
// at once, and the wait they are told is at most one refill (30 s), not
// a lockout that grows with every refused guess.
func TestSignInConcurrentGuesses(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	e.SetPassword("local", testserver.TestPassword)
	const n = 100
	statuses := make(chan *http.Response, n)
	start := make(chan struct{})
	for i := range n {
		go func() {
			<-start
			password := fmt.Sprintf("guess %d", i)
			if i == n/2 {
				password = testserver.TestPassword
			}
			body, _ := json.Marshal(map[string]string{"account": "local", "password": password})
			req, _ := http.NewRequest("POST", e.TS.URL+"/v1/session", strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
			res, err := e.TS.Client().Do(req)
			if err != nil {
				t.Error(err)
				statuses <- nil
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			statuses <- res
		}()
	}
	close(start)
	count := map[int]int{}
	for range n {
		res := <-statuses
		if res == nil {
			continue
		}
		count[res.StatusCode]++
		if res.StatusCode == http.StatusTooManyRequests {
			if ra, err := time.ParseDuration(res.Header.Get("Retry-After") + "s"); err != nil || ra > 30*time.Second {
				t.Errorf("Retry-After %q", res.Header.Get("Retry-After"))
			}
		}
	}
	if checked := count[200] + count[401]; checked > 10 || count[429] < n-10 {
		t.Errorf("of %d concurrent guesses %d were checked (%v); want at most 10", n, checked, count)
	}
	// The right password, if it was among those checked, refunded its
	// attempt: one more guess may be checked, and then none.
	res, _ := e.SignIn("local", "one more guess")
	if count[200] == 1 && res.StatusCode == http.StatusUnauthorized {
		res.Body.Close()
		res, _ = e.SignIn("local", "and one more")
	}
	if ra, err := time.ParseDuration(res.Header.Get("Retry-After") + "s"); res.StatusCode != 429 || err != nil || ra > 30*time.Second {
		t.Errorf("after the burst: %d, Retry-After %q; want 429 within 30 s", res.StatusCode, res.Header.Get("Retry-After"))
	}
	res.Body.Close()
}

// TestSignupThrottled: sign-ups from one address are throttled like
// sign-ins (5, then one a minute).
func TestSignupThrottled(t *testing.T) {
	e := testserver.New(t, testserver.Options{Signup: true})
	for i := range 6 {
		res := e.Do("POST", "/v1/accounts", "", "application/json",
			strings.NewReader(fmt.Sprintf(`{"name":"user-%d","password":"%s"}`, i, testserver.TestPassword)))
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		want := http.StatusCreated
		if i == 5 {
			want = http.StatusTooManyRequests
		}
		if res.StatusCode != want {
			t.Errorf("sign-up %d: %d, want %d", i, res.StatusCode, want)
		}
	}
	if _, err := e.Store.Account(t.Context(), "user-5"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a throttled sign-up made its account: %v", err)
	}
}
