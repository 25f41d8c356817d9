package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
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

// localPassword reports whether password is the account local's in the
// database at dsn.
func localPassword(t *testing.T, dsn, password string) bool {
	t.Helper()
	st, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hash, err := st.PasswordHash(context.Background(), "local")
	ok, _ := store.CheckPassword(hash, password)
	return err == nil && ok
}

// TestDeployFirstSteps runs docs/deploy.md's first steps verbatim (each
// "docker compose … run --rm worker1 ARGS" as the example binary with
// ARGS) on an empty PostgreSQL database, then serves on it: the gateway's
// key is accepted, init's password and admin key are the account's, init
// run again changes nothing, and healthcheck passes. With
// $VOXKIT_INITIAL_PASSWORD, init prints no password and the account has
// that one. Refusals say what to do and store nothing.
func TestDeployFirstSteps(t *testing.T) {
	steps := composeSteps(t)
	if len(steps) != 2 || steps[0][0] != "init" || steps[1][0] != "keys" {
		t.Fatalf("docs/deploy.md's steps: %q, want init then keys create", steps)
	}
	dsn := pgtest.Start(t)
	run := func(env []string, args ...string) string {
		t.Helper()
		out, err := exampleCommand(t, env, append([]string{"-store", dsn}, args...)...)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return out
	}
	initOut := run(nil, steps[0]...)
	gatewayKey := strings.TrimSpace(run(nil, steps[1]...))
	password, adminKey := printedAfter(initOut, "password:"), printedAfter(initOut, "api key:")
	if !store.WellFormed(gatewayKey) || !store.WellFormed(adminKey) || password == "" {
		t.Fatalf("init printed %q, keys create %q", initOut, gatewayKey)
	}
	if again := run(nil, steps[0]...); again != "" {
		t.Errorf("init again printed %q", again)
	}
	if !localPassword(t, dsn, password) {
		t.Errorf("init's password is not local's")
	}

	p := startExample(t, nil, "-store", dsn)
	get := func(path, key string) int {
		req, _ := http.NewRequest("GET", "http://"+p.addr+path, nil)
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
	if _, err := exampleCommand(t, nil, "-addr", p.addr, "healthcheck"); err != nil {
		t.Errorf("healthcheck of the running server: %v", err)
	}
	if _, err := exampleCommand(t, nil, "-addr", "127.0.0.1:1", "healthcheck"); err == nil {
		t.Errorf("healthcheck of a port with no server passed")
	}
	if err := p.Stop(); err != nil || strings.Contains(p.Stdout(), "password") {
		t.Errorf("the server on a store init made: exit %v, printed %q", err, p.Stdout())
	}

	// A cluster's Secret: init prints no password and sets that one.
	dsn = pgtest.Start(t)
	out := run([]string{"VOXKIT_INITIAL_PASSWORD=correct horse battery"}, "init")
	if strings.Contains(out, "correct horse") || !store.WellFormed(printedAfter(out, "api key:")) || !localPassword(t, dsn, "correct horse battery") {
		t.Errorf("init with $VOXKIT_INITIAL_PASSWORD printed %q", out)
	}

	dsn = pgtest.Start(t)
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"keys", "create", "--account", "gateway", "--scope", "gateway"}, "--create-account"},
		{[]string{"VOXKIT_INITIAL_PASSWORD=short"}, []string{"init"}, "VOXKIT_INITIAL_PASSWORD"},
	} {
		if _, err := exampleCommand(t, c.env, append([]string{"-store", dsn}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
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

	p := startExample(t, nil, "-store", dsn)
	get := func(path string) (int, string) {
		res, err := http.Get("http://" + p.addr + path)
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
	if err := p.Stop(); err != nil {
		t.Errorf("stopped: %v", err)
	}
	if log := p.Stderr(); !strings.Contains(log, "not serving") || !strings.Contains(log, "newer than this program") {
		t.Errorf("log: %s", log)
	}
	if _, err := exampleCommand(t, nil, "-store", dsn, "accounts", "list"); err == nil {
		t.Error("accounts list on a newer schema succeeded")
	}
}
