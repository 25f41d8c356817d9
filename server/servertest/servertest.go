// Package servertest builds a voxkit HTTP API for the tests of programs
// that serve or call it, as net/http/httptest does for HTTP servers: a
// server.Server over a fresh SQLite store in the test's temporary
// directory, with an admin API key per account. Mount it with
// httptest.NewServer. It needs no cgo; a test that serves mp3 or opus
// imports encode/mp3 and encode/opus itself.
package servertest

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/tts"
)

// New returns the API over a new SQLite store in t.TempDir(), speaking
// with every voice e lists (as the engine named name), with the given
// voice aliases, and an API key of the account "local". The store is
// closed when the test ends.
func New(t testing.TB, name string, e engine.Engine, aliases map[string]string) (*server.Server, string) {
	t.Helper()
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{name: e}})
	if err != nil {
		t.Fatal(err)
	}
	env := Start(t, Options{Synthesizer: synth, Server: server.Options{Aliases: aliases}})
	return env.Server, env.Keys["local"]
}

// Options configure Start.
type Options struct {
	// Synthesizer speaks for the server; required.
	Synthesizer *tts.Synthesizer
	// Accounts are made (unless the store has them), each with a new
	// admin API key in Env.Keys; none means the one account "local".
	Accounts []string
	// DBPath is the SQLite file; "" means a new one in t.TempDir(). A
	// file from an earlier Start is opened again, with what it holds.
	DBPath string
	// Wrap, if set, gives the server its store in place of the SQLite one,
	// which it may wrap (to stall or count its calls, say).
	Wrap func(*sqlite.Store) store.Store
	// Server is the rest of the server's options: Start sets Synthesizer
	// and Store, and a Logger that discards when it has none.
	Server server.Options
}

// Env is a server over its SQLite store.
type Env struct {
	Server *server.Server
	Store  *sqlite.Store
	// DBPath is the store's file.
	DBPath string
	// Keys holds an admin API key of each account of Options.Accounts.
	Keys map[string]string
}

// Start builds the server of o. Every step of the set-up is checked; the
// server is shut down and the store closed when the test ends.
func Start(t testing.TB, o Options) *Env {
	t.Helper()
	ctx := context.Background()
	if o.DBPath == "" {
		o.DBPath = filepath.Join(t.TempDir(), sqlite.FileName)
	}
	if len(o.Accounts) == 0 {
		o.Accounts = []string{"local"}
	}
	st, err := sqlite.Open(ctx, o.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Store: st, DBPath: o.DBPath, Keys: make(map[string]string)}
	for _, account := range o.Accounts {
		if _, err := st.CreateAccount(ctx, account); err != nil && !errors.Is(err, store.ErrAccountExists) {
			t.Fatal(err)
		}
		if _, env.Keys[account], err = st.CreateKey(ctx, store.NewKey{Account: account, Name: "test", Scope: store.ScopeAdmin}); err != nil {
			t.Fatal(err)
		}
	}
	opts := o.Server
	opts.Synthesizer, opts.Store = o.Synthesizer, st
	if o.Wrap != nil {
		opts.Store = o.Wrap(st)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if env.Server, err = server.New(opts); err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		env.Server.Shutdown(context.Background())
		st.Close()
	})
	return env
}
