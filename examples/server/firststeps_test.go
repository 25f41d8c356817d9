package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/voxkit/voxkit/internal/pgtest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/postgres"
)

// composeSteps returns the server commands of docs/deploy.md's compose
// steps: the arguments after "run --rm worker1", in order.
func composeSteps(t *testing.T) [][]string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	var steps [][]string
	for line := range strings.Lines(string(doc)) {
		if _, args, ok := strings.Cut(line, "compose.yaml run --rm worker1 "); ok {
			steps = append(steps, strings.Fields(args))
		}
	}
	return steps
}

// TestDeployFirstSteps runs docs/deploy.md's first steps verbatim (each
// "docker compose … run --rm worker1 ARGS" as the binary with ARGS) on an
// empty PostgreSQL database, then serves on it: the gateway's key is
// accepted, init's password and admin key are the account's, and init
// run again changes nothing. With $VOXKIT_INITIAL_PASSWORD, init prints
// no password and the account has that one.
func TestDeployFirstSteps(t *testing.T) {
	steps := composeSteps(t)
	if len(steps) != 2 || steps[0][0] != "init" || steps[1][0] != "keys" {
		t.Fatalf("docs/deploy.md's steps: %q, want init then keys create", steps)
	}
	dsn := pgtest.Start(t)
	run := func(env map[string]string, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		a := newApp(&out, &errOut)
		a.getenv = func(k string) string { return env[k] }
		if err := a.run(context.Background(), append([]string{"-store", dsn, "-log", "off"}, args...)); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}
	initOut := run(nil, steps[0]...)
	gatewayKey := strings.TrimSpace(run(nil, steps[1]...))
	password, adminKey := passwordOf(initOut), keyOf(initOut)
	if !store.WellFormed(gatewayKey) || !store.WellFormed(adminKey) || password == "" {
		t.Fatalf("init printed %q, keys create %q", initOut, gatewayKey)
	}
	if again := run(nil, steps[0]...); again != "" {
		t.Errorf("init again printed %q", again)
	}

	checkPassword := func(password string) {
		t.Helper()
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		hash, err := st.PasswordHash(context.Background(), "local")
		if ok, _ := store.CheckPassword(hash, password); err != nil || !ok {
			t.Errorf("the password is not local's (%v)", err)
		}
	}
	checkPassword(password)

	var stdout, stderr bytes.Buffer
	addr, cancel, done := serve(t, newApp(&stdout, &stderr), &stderr, "-store", dsn)
	get := func(path, key string) int {
		req, _ := http.NewRequest("GET", "http://"+addr.String()+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := get("/v1/models", gatewayKey); got != 200 {
		t.Errorf("the gateway's key on /v1/models: %d", got)
	}
	if got := get("/v1/account", adminKey); got != 200 {
		t.Errorf("init's admin key on /v1/account: %d", got)
	}
	if err := newApp(io.Discard, io.Discard).run(context.Background(), []string{"-addr", addr.String(), "-log", "off", "healthcheck"}); err != nil {
		t.Errorf("healthcheck of the running server: %v", err)
	}
	if strings.Contains(stdout.String(), "password") {
		t.Errorf("the server printed a password on a store init made: %q", stdout.String())
	}
	cancel()
	<-done

	// A cluster's Secret: init prints no password and sets that one.
	dsn = pgtest.Start(t)
	out := run(map[string]string{"VOXKIT_INITIAL_PASSWORD": "correct horse battery"}, "init")
	if strings.Contains(out, "correct horse") || !store.WellFormed(keyOf(out)) {
		t.Errorf("init with $VOXKIT_INITIAL_PASSWORD printed %q", out)
	}
	checkPassword("correct horse battery")

	// Refusals say what to do and store nothing half-made.
	dsn = pgtest.Start(t)
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"keys", "create", "--account", "gateway", "--scope", "speech"}, "--create-account"},
		{map[string]string{"VOXKIT_INITIAL_PASSWORD": "short"}, []string{"init"}, "VOXKIT_INITIAL_PASSWORD"},
	} {
		a := newApp(&bytes.Buffer{}, &bytes.Buffer{})
		a.getenv = func(k string) string { return c.env[k] }
		if err := a.run(context.Background(), append([]string{"-store", dsn, "-log", "off"}, c.args...)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error naming %s", c.args, err, c.want)
		}
	}
	if got := run(nil, "accounts", "list"); got != "" {
		t.Errorf("accounts after the refusals: %q", got)
	}
}

// TestNewerSchemaNotReady: a server whose PostgreSQL database a newer
// version migrated stays up, alive and not ready, says why in its log and
// to every request, and exits cleanly when stopped — not a crash loop.
func TestNewerSchemaNotReady(t *testing.T) {
	dsn := pgtest.Start(t)
	st, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := pgx.Connect(context.Background(), dsn) // a newer version's migration, by hand
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(context.Background(), "INSERT INTO schema_migrations(version) SELECT max(version) + 1 FROM schema_migrations")
	db.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	var stderr bytes.Buffer
	a := newApp(io.Discard, &stderr)
	addrc := make(chan net.Addr, 1)
	a.ready = func(addr net.Addr) { addrc <- addr }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.run(ctx, []string{"-store", dsn, "-addr", "127.0.0.1:0", "-log", "json"}) }()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("the server exited: %v\n%s", err, stderr.String())
	}
	get := func(path string) (int, string) {
		res, err := http.Get("http://" + addr.String() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("/healthz: %d, want 200 (alive)", code)
	}
	for _, path := range []string{"/readyz", "/v1/models"} {
		if code, body := get(path); code != 503 || !strings.Contains(body, "newer than this program") || !strings.Contains(body, `"code":"schema_too_new"`) {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
	if !strings.Contains(stderr.String(), "not serving") || !strings.Contains(stderr.String(), "newer than this program") {
		t.Errorf("log: %s", stderr.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("stopped: %v", err)
	}
	// Subcommands fail plainly.
	if err := newApp(io.Discard, io.Discard).run(context.Background(), []string{"-store", dsn, "-log", "off", "accounts", "list"}); err == nil {
		t.Error("accounts list on a newer schema succeeded")
	}
}
