package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Two Starts in one test binary share a server and get two databases.
func TestStart(t *testing.T) {
	t.Parallel() // each waits on a server starting: the shared one, its own
	ctx := context.Background()
	var names []string
	for range 2 {
		dsn := Start(t)
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		var name string
		var tables int
		err = conn.QueryRow(ctx, "SELECT current_database(), (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')").Scan(&name, &tables)
		conn.Close(ctx)
		if err != nil || tables != 0 {
			t.Fatalf("%s: %d tables, %v", dsn, tables, err)
		}
		names = append(names, name)
	}
	if names[0] == names[1] {
		t.Errorf("two Starts gave the database %s", names[0])
	}
}

// Without Main, a server is the test's: it is gone, with its directory,
// when the test ends.
func TestStartAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server; skipped by -short, as Start's tests are (make test runs it)")
	}
	t.Parallel() // each waits on a server starting: the shared one, its own
	var srv *server
	t.Run("server", func(t *testing.T) {
		var err error
		if srv, err = start(); err != nil {
			fail(t, err)
		}
		t.Cleanup(srv.stop)
	})
	if srv == nil {
		t.FailNow()
	}
	select {
	case <-srv.exit:
	default:
		t.Error("the server runs after its test")
	}
	if _, err := os.Stat(srv.dir); !os.IsNotExist(err) {
		t.Errorf("%s is left: %v", srv.dir, err)
	}
}

func TestMain(m *testing.M) { Main(m) }
