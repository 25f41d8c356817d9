package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/jackc/pgx/v5"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/postgres"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// replica is one server of a fleet on a shared PostgreSQL database, with
// a store of its own.
type replica struct {
	t  *testing.T
	ts *httptest.Server
	st *postgres.Store
}

func newReplica(t *testing.T, dsn string, limits store.Limits) *replica {
	t.Helper()
	return newReplicaWith(t, dsn, limits, nil)
}

// newReplicaWith is newReplica with more engines, listed in the catalog.
func newReplicaWith(t *testing.T, dsn string, limits store.Limits, more map[string]engine.Engine) *replica {
	t.Helper()
	ctx := context.Background()
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	slow := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"slow"}, SentenceDelay: 40 * time.Millisecond})
	engines := map[string]engine.Engine{"espeak": es, "slow": slow}
	cat := new(voices.Catalog)
	if err := cat.AddEngine(ctx, "slow", slow, time.Unix(1700000000, 0)); err != nil {
		t.Fatal(err)
	}
	for name, e := range more {
		engines[name] = e
		if err := cat.AddEngine(ctx, name, e, time.Unix(1700000000, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := cat.Add(voices.Voice{ID: "en-us", Engine: "espeak", EngineVoice: "en-us"}); err != nil {
		t.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: engines, Voices: cat})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Synthesizer: synth, Store: st, Limits: limits, Aliases: map[string]string{},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		srv.Shutdown(context.Background())
		st.Close()
		es.Close()
	})
	return &replica{t: t, ts: ts, st: st}
}

func (r *replica) call(method, path, key, body string) (int, []byte) {
	r.t.Helper()
	req, _ := http.NewRequest(method, r.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := r.ts.Client().Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// within polls ok until it holds, failing after limit; it returns how
// long that took.
func within(t *testing.T, limit time.Duration, what string, ok func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	if !wait.For(limit, ok) {
		t.Fatalf("%s: not within %v", what, limit)
	}
	return time.Since(start)
}

// TestReplicasShareState: two servers on one PostgreSQL database behave as
// one service — keys, revocations and voice clones made on one hold on
// the other within a second.
func TestReplicasShareState(t *testing.T) {
	dsn := pgtest.Start(t)
	a, b := newReplica(t, dsn, store.Limits{}), newReplica(t, dsn, store.Limits{})
	ctx := context.Background()
	if _, err := a.st.CreateAccount(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	_, admin, err := a.st.CreateKey(ctx, store.NewKey{Account: "acme", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}

	// A key made on A works on B.
	st, body := a.call("POST", "/v1/keys", admin, `{"name":"made on a"}`)
	var k struct{ Key, Prefix string }
	json.Unmarshal(body, &k)
	if st != 201 {
		t.Fatalf("key on A: %d %s", st, body)
	}
	if st, body := b.call("GET", "/v1/models", k.Key, ""); st != 200 {
		t.Fatalf("A's key on B: %d %s", st, body)
	}
	// Revoked on A, refused on B.
	if st, body := a.call("DELETE", "/v1/keys/"+k.Prefix, admin, ""); st != 200 {
		t.Fatalf("revoke on A: %d %s", st, body)
	}
	revoked := within(t, time.Second, "revocation seen by B", func() bool {
		st, _ := b.call("GET", "/v1/models", k.Key, "")
		return st == 401
	})

	// A clone made on A is listed and speaks on B.
	if st, body := a.call("POST", "/v1/voices", admin, `{"id":"fast-anna","name":"Fast Anna","base_voice":"en-us","speed":1.5}`); st != 201 {
		t.Fatalf("clone on A: %d %s", st, body)
	}
	speech := `{"model":"tts-1","voice":"fast-anna","input":"Made on the other server.","response_format":"pcm"}`
	listed := func(r *replica, id string) bool {
		_, models := r.call("GET", "/v1/models", admin, "")
		return strings.Contains(string(models), `"`+id+`"`)
	}
	created := within(t, time.Second, "clone listed on B", func() bool { return listed(b, "fast-anna") })
	if st, body := b.call("POST", "/v1/audio/speech", admin, speech); st != 200 {
		t.Fatalf("A's clone spoken on B: %d %s", st, body)
	}
	// Deleted on A, gone on B.
	if st, body := a.call("DELETE", "/v1/voices/fast-anna", admin, ""); st != 200 {
		t.Fatalf("delete on A: %d %s", st, body)
	}
	deleted := within(t, time.Second, "clone gone on B", func() bool { return !listed(b, "fast-anna") })
	if st, body := b.call("POST", "/v1/audio/speech", admin, speech); st != 404 {
		t.Errorf("A's deleted clone spoken on B: %d %s", st, body)
	}
	t.Logf("seen by the other replica after: revocation %v, clone %v, deletion %v", revoked, created, deleted)

	// B's listening connection is cut (a database restart or a network
	// failure would do it): B listens again and reloads the clones, so one
	// made on A meanwhile reaches it too.
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var cut int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %') t").Scan(&cut); err != nil || cut != 2 {
		t.Fatalf("cutting the replicas' listeners: %d, %v", cut, err)
	}
	if st, body := a.call("POST", "/v1/voices", admin, `{"id":"slow-bob","name":"Slow Bob","base_voice":"en-us","speed":0.8}`); st != 201 {
		t.Fatalf("clone on A: %d %s", st, body)
	}
	within(t, 10*time.Second, "clone made while B reconnected listed on B", func() bool { return listed(b, "slow-bob") })
}

// TestLimitsAcrossReplicas: an account's concurrency limit holds across
// two servers sharing the database, and another account is unaffected.
func TestLimitsAcrossReplicas(t *testing.T) {
	t.Parallel() // a long test, waiting on the slow engine or its own server most of the time
	dsn := pgtest.Start(t)
	limits := store.Limits{Concurrent: 1, RequestsPerMinute: 100}
	a, b := newReplica(t, dsn, limits), newReplica(t, dsn, limits)
	ctx := context.Background()
	keys := map[string]string{}
	for _, name := range []string{"acme", "other"} {
		if _, err := a.st.CreateAccount(ctx, name); err != nil {
			t.Fatal(err)
		}
		_, keys[name], _ = a.st.CreateKey(ctx, store.NewKey{Account: name, Scope: store.ScopeSpeech})
	}
	// A long stream of acme's on A...
	req, _ := http.NewRequest("POST", a.ts.URL+"/v1/audio/speech", strings.NewReader(
		`{"model":"tts-1","voice":"slow","input":"`+strings.Repeat("Slow sentence. ", 50)+`","response_format":"pcm"}`))
	req.Header.Set("Authorization", "Bearer "+keys["acme"])
	req.Header.Set("Content-Type", "application/json")
	long, err := a.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer long.Body.Close()
	if long.StatusCode != 200 {
		t.Fatalf("long request: %d", long.StatusCode)
	}
	// ...holds acme's one slot on B too, with Retry-After; other is free.
	quick := `{"model":"tts-1","voice":"en-us","input":"Quick.","response_format":"pcm"}`
	req, _ = http.NewRequest("POST", b.ts.URL+"/v1/audio/speech", strings.NewReader(quick))
	req.Header.Set("Authorization", "Bearer "+keys["acme"])
	req.Header.Set("Content-Type", "application/json")
	res, err := b.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	testserver.APIError(t, res, 429, "rate_limit_exceeded")
	if st, body := b.call("POST", "/v1/audio/speech", keys["other"], quick); st != 200 {
		t.Errorf("another account on B: %d %s", st, body)
	}
	// When the stream ends, acme may speak on B.
	io.Copy(io.Discard, long.Body)
	long.Body.Close()
	within(t, 5*time.Second, "acme's slot freed", func() bool {
		st, _ := b.call("POST", "/v1/audio/speech", keys["acme"], quick)
		return st == 200
	})
}
