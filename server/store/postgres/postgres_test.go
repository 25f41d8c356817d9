package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/storetest"
)

// open opens a store on dsn, closed when t ends.
func open(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	var dsns sync.Map // store → its database
	storetest.Suite{
		Open: func(t *testing.T) store.Store {
			dsn := pgtest.Start(t)
			s := open(t, dsn)
			dsns.Store(s, dsn)
			return s
		},
		Reopen: func(t *testing.T, s store.Store) store.Store {
			dsn, _ := dsns.Load(s)
			s.Close()
			s2 := open(t, dsn.(string))
			dsns.Store(s2, dsn)
			return s2
		},
		Persisted: func(t *testing.T, s store.Store) []byte { return dump(t, s.(*Store)) },
		SetNow:    func(s store.Store, now func() time.Time) { s.(*Store).now = now },
	}.Run(t)
}

// dump returns every row of every table of the store's schema as text.
func dump(t *testing.T, s *Store) []byte {
	t.Helper()
	ctx := context.Background()
	rows, _ := s.pool.Query(ctx, "SELECT quote_ident(table_name) FROM information_schema.tables WHERE table_schema = current_schema()")
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		t.Fatalf("tables %v: %v", tables, err)
	}
	var b bytes.Buffer
	for _, table := range tables {
		rows, _ := s.pool.Query(ctx, "SELECT t::text FROM "+table+" t")
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			fmt.Fprintln(&b, table, l)
		}
	}
	return b.Bytes()
}

// Two stores on one database, as two replicas of a server, see each
// other's accounts, keys and voices at once.
func TestReplicasShareTheDatabase(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Start(t)
	a, b := open(t, dsn), open(t, dsn)
	if _, err := a.CreateAccount(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CreateAccount(ctx, "acme"); !errors.Is(err, store.ErrAccountExists) {
		t.Errorf("the account again on the other replica: %v", err)
	}
	k, plain, err := b.CreateKey(ctx, store.NewKey{Account: "acme", Name: "ci", Scope: store.ScopeSpeech})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := a.VerifyKey(ctx, plain); err != nil || got.Prefix != k.Prefix || got.Scope != store.ScopeSpeech {
		t.Fatalf("a verifies b's key: %+v, %v", got, err)
	}
	if _, err := a.RevokeKey(ctx, "acme", k.Prefix); err != nil {
		t.Fatal(err)
	}
	if _, err := b.VerifyKey(ctx, plain); !errors.Is(err, store.ErrRevokedKey) {
		t.Errorf("b verifies the key a revoked: %v", err)
	}
	v, err := a.CreateVoice(ctx, storetest.Voice("acme", "quick"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Voice(ctx, "acme", "quick"); err != nil || !storetest.SameVoice(got, v) {
		t.Errorf("b finds a's voice: %+v, %v; want %+v", got, err, v)
	}
	if _, err := b.CreateVoice(ctx, storetest.Voice("acme", "quick"), 0); !errors.Is(err, store.ErrVoiceExists) {
		t.Errorf("the voice again on the other replica: %v", err)
	}
	if _, err := b.DeleteVoice(ctx, "acme", "quick"); err != nil {
		t.Fatal(err)
	}
	if list, err := a.Voices(ctx, ""); err != nil || len(list) != 0 {
		t.Errorf("a's voices after b deleted: %+v, %v", list, err)
	}
	l, err := a.CreateLexicon(ctx, store.Lexicon{Account: "acme", PLS: storetest.PLS("WHO"), Lexemes: 1}, store.LexiconQuota{})
	if err != nil {
		t.Fatal(err)
	}
	v2, err := b.AddLexiconVersion(ctx, "acme", l.ID, storetest.PLS("WHO", "SQL"), 2, store.LexiconQuota{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := a.Lexicon(ctx, "acme", l.ID, ""); err != nil || got.Version != v2.Version || got.Lexemes != 2 {
		t.Errorf("a reads the version b added: %+v, %v", got, err)
	}
}

// Creations from two stores at once, each with its pool of connections,
// stay within the limits.
func TestReplicasKeepTheLimits(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Start(t)
	stores := []*Store{open(t, dsn), open(t, dsn)}
	for round := range 3 {
		account := fmt.Sprintf("acme%d", round)
		if _, err := stores[0].CreateAccount(ctx, account); err != nil {
			t.Fatal(err)
		}
		storetest.CheckLimit(t, 60, 5, func(i int) error {
			_, _, err := stores[i%2].CreateKey(ctx, store.NewKey{Account: account, Scope: store.ScopeSpeech, Max: 5})
			return err
		}, func() (int, error) { keys, err := stores[1].Keys(ctx, account); return len(keys), err })
		storetest.CheckLimit(t, 60, 5, func(i int) error {
			_, err := stores[i%2].CreateVoice(ctx, storetest.Voice(account, fmt.Sprint(i)), 5)
			return err
		}, func() (int, error) { voices, err := stores[0].Voices(ctx, account); return len(voices), err })
	}
}

// Replicas starting together on an empty database migrate it once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Start(t)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			s, err := Open(ctx, dsn)
			if err != nil {
				t.Error(err)
				return
			}
			s.Close()
		})
	}
	wg.Wait()
	s := open(t, dsn)
	rows, _ := s.pool.Query(ctx, "SELECT version FROM schema_migrations ORDER BY version")
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil || len(versions) != len(migrations) || versions[len(versions)-1] != int32(len(migrations)) {
		t.Errorf("schema_migrations = %v, %v; want 1 to %d", versions, err, len(migrations))
	}
}

// A database migrated by a newer program is refused, and a failed
// migration leaves nothing.
func TestMigrationVersions(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Start(t)
	s := open(t, dsn)
	if _, err := s.pool.Exec(ctx, "INSERT INTO schema_migrations(version) VALUES($1)", len(migrations)+1); err != nil {
		t.Fatal(err)
	}
	var se *SchemaError
	if s2, err := Open(ctx, dsn); err == nil {
		s2.Close()
		t.Error("a database of a newer schema was opened")
	} else if !errors.As(err, &se) || se.Database != len(migrations)+1 || se.Program != len(migrations) {
		t.Errorf("a newer schema: %v, want a *SchemaError", err)
	}

	dsn = pgtest.Start(t)
	saved := migrations
	defer func() { migrations = saved }()
	migrations = append(saved[:len(saved):len(saved)], "CREATE TABLE extra (x int); SELECT nonsense")
	if s2, err := Open(ctx, dsn); err == nil {
		s2.Close()
		t.Fatal("a failing migration passed")
	}
	migrations = saved
	s = open(t, dsn)
	var tables int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'extra'").Scan(&tables); err != nil || tables != 0 {
		t.Errorf("the failed migration left %d tables: %v", tables, err)
	}
}

// TestLexiconsMigration upgrades a database of schema version 3, the
// last before lexicons, keeping its keys, voices and sessions.
func TestLexiconsMigration(t *testing.T) {
	dsn := pgtest.Start(t)
	saved := migrations
	defer func() { migrations = saved }()
	storetest.CheckUpgrade(t, func(t *testing.T) store.Store {
		migrations = saved[:3]
		defer func() { migrations = saved }()
		return open(t, dsn)
	}, func(t *testing.T) store.Store { return open(t, dsn) })
}
