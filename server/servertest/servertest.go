// Package servertest builds a voxkit HTTP API for the tests of programs
// that serve or call it, as net/http/httptest does for HTTP servers: a
// server.Server over a fresh SQLite store in the test's temporary
// directory, with one admin API key. Mount it with httptest.NewServer. It
// needs no cgo; a test that serves mp3 or opus imports encode/mp3 and
// encode/opus itself.
package servertest

import (
	"context"
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
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.CreateAccount(ctx, "local"); err != nil {
		t.Fatal(err)
	}
	_, key, err := st.CreateKey(ctx, store.NewKey{Account: "local", Name: "", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{name: e}})
	if err != nil {
		t.Fatal(err)
	}
	api, err := server.New(server.Options{Synthesizer: synth, Store: st, Aliases: aliases,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return api, key
}
