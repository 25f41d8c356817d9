package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/postgres"
)

// TestExampleServerPostgresStore: the example binary with -store on a
// PostgreSQL database keeps its first key, and the clones made over HTTP,
// there (not in -data), and serves a key that another replica made in
// the database.
func TestExampleServerPostgresStore(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Start(t)
	addr, key := exampleServer(t, "-store", dsn)
	client := &http.Client{Timeout: 30 * time.Second}
	call := func(key, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, string(readAll(t, res))
	}
	speech := `{"voice":"alloy","input":"Hello from PostgreSQL.","response_format":"pcm"}`
	if st, body := call(key, "/v1/audio/speech", speech); st != 200 {
		t.Fatalf("speech with the first key: %d %s", st, body)
	}
	if st, body := call(key, "/v1/voices", `{"id":"quick","name":"Quick","base_voice":"alloy","speed":2}`); st != 201 {
		t.Fatalf("create voice: %d %s", st, body)
	}

	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if k, err := st.VerifyKey(ctx, key); err != nil || k.Account != "local" {
		t.Errorf("the first key in PostgreSQL: %+v, %v", k, err)
	}
	if v, err := st.Voice(ctx, "local", "quick"); err != nil || v.Speed != 2 {
		t.Errorf("the clone in PostgreSQL: %+v, %v", v, err)
	}
	_, other, err := st.CreateKey(ctx, store.NewKey{Account: "local", Name: "replica", Scope: store.ScopeSpeech})
	if err != nil {
		t.Fatal(err)
	}
	if st, body := call(other, "/v1/audio/speech", speech); st != 200 {
		t.Errorf("speech with a key made in the database: %d %s", st, body)
	}
	if st, _ := call(other, "/v1/voices", `{"id":"slow","name":"Slow","base_voice":"alloy","speed":0.5}`); st != 403 {
		t.Errorf("a speech key made a clone: %d", st)
	}
	if matches, _ := filepath.Glob(filepath.Join(os.TempDir(), "*", "*", "data", "voxkit.db")); len(matches) > 0 {
		for _, m := range matches {
			if strings.Contains(m, t.Name()) {
				t.Errorf("a SQLite database was made: %s", m)
			}
		}
	}
}
