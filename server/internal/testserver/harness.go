//go:build cgo

package testserver

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/internal/testkit/supertonictest"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/servertest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// Faulty is an engine seam for failures the real engines do not make on
// demand: it panics on text containing "PANIC" and fails on text
// containing "FAIL"; other sentences are a short tone.
type Faulty struct{}

var _ engine.Engine = Faulty{}

func (Faulty) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	switch {
	case strings.Contains(req.Text, "PANIC"):
		panic("faulty engine: asked to panic")
	case strings.Contains(req.Text, "FAIL"):
		return errors.New("faulty engine: asked to fail")
	}
	return emit(engine.Chunk{Samples: make([]float32, 1600), SampleRate: 16000})
}

func (Faulty) Close() error { return nil }

// Env is a running server on loopback with its store and keys.
type Env struct {
	T        testing.TB
	TS       *httptest.Server
	Server   *server.Server
	Store    *sqlite.Store
	DBPath   string
	Slow     *enginetest.Fake
	Catalog  *voices.Catalog
	Synth    *tts.Synthesizer
	Key      string      // account "local"
	OtherKey string      // account "other"
	Revoked  string      // account "local", revoked
	Done     chan string // paths of finished requests
	mu       sync.Mutex
}

type Options struct {
	DBPath       string
	Signup       bool
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	Log          io.Writer // the server's log, as JSON lines; nil discards it
	WSIdle       time.Duration
	MaxKeys      int
	MaxVoices    int
	// lexiconStorage is Options.LexiconStoragePerAccount.
	LexiconStorage int64
	// synth, if set, adjusts the Synthesizer's options.
	Synth func(*tts.Options)
	// metrics, if set, receives the server's collectors.
	Metrics  prometheus.Registerer
	Limits   store.Limits
	MaxQueue int
	KeyCheck time.Duration // Options.KeyCheckTimeout
	// wrap, if set, gives the server its store in place of the SQLite one
	// (which it may wrap).
	Wrap func(*sqlite.Store) store.Store
	// proxies are Options.TrustedProxies.
	Proxies []netip.Prefix
	// unguarded sends text to libespeak-ng as written (espeak.Options),
	// so that its known crashes happen.
	Unguarded bool
	// socketAuth and recheck are Options.SocketAuthTimeout and
	// Options.KeyRecheckInterval.
	SocketAuth, Recheck time.Duration
	// wyomingConns and wyomingEvent are Options.WyomingMaxConns and
	// WyomingEventTimeout.
	WyomingConns int
	WyomingEvent time.Duration
	WyomingPeer  int // Options.WyomingMaxPeerConns
	MaxUploads   int // Options.MaxUploadsPerAccount
	// defaultFormat is Options.DefaultFormat.
	DefaultFormat string
	// Jobs is Options.Jobs (long-form jobs).
	Jobs server.JobOptions
}

func New(t testing.TB, o Options) *Env {
	t.Helper()
	ctx := context.Background()
	es, err := espeak.New(espeak.Options{Unguarded: o.Unguarded})
	if err != nil {
		t.Fatal(err)
	}
	slow := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"slow"}, SentenceDelay: 40 * time.Millisecond})
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake"}})
	engines := map[string]engine.Engine{"espeak": es, "slow": slow, "fake": fake, "faulty": Faulty{}}
	cat := new(voices.Catalog)
	created := time.Unix(1700000000, 0)
	for _, name := range []string{"slow", "fake"} {
		if err := cat.AddEngine(ctx, name, engines[name], created); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []voices.Voice{
		{ID: "en-us", Engine: "espeak", EngineVoice: "en-us", Created: created, SampleRate: es.SampleRate()},
		{ID: "en-gb", Engine: "espeak", EngineVoice: "en-gb", Created: created, SampleRate: es.SampleRate()},
		{ID: "faulty", Engine: "faulty", EngineVoice: "x", Created: created},
		{ID: "local-clone", Owner: "local", Engine: "fake", EngineVoice: "fake", Created: created},
		{ID: "other-clone", Owner: "other", Engine: "fake", EngineVoice: "fake", Created: created},
	} {
		if err := cat.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	opts := tts.Options{Engines: engines, Voices: cat}
	if o.Synth != nil {
		o.Synth(&opts)
	}
	synth, err := tts.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	aliases := map[string]string{}
	for _, n := range server.OpenAIVoiceNames() {
		aliases[n] = "en-us"
	}
	if o.DBPath == "" && !o.Jobs.Enabled {
		// Not with jobs: their tests were timed on disk, where a worker
		// takes a job later (on tmpfs, a job was running by the answer to
		// its POST in 1 of 6 runs of TestJobBook, 0 of 6 on disk).
		o.DBPath = filepath.Join(DBDir(t), sqlite.FileName)
		data, err := migrated()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(o.DBPath, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	se := servertest.Start(t, servertest.Options{Synthesizer: synth, Accounts: []string{"local", "other"}, DBPath: o.DBPath, Wrap: o.Wrap,
		Server: server.Options{
			Aliases: aliases, AllowSignup: o.Signup, ReadTimeout: o.ReadTimeout, ElevenLabs: true, Cartesia: true, TrustedProxies: o.Proxies,
			WriteTimeout: o.WriteTimeout, WSIdleTimeout: o.WSIdle, MaxKeysPerAccount: o.MaxKeys,
			MaxVoicesPerAccount: o.MaxVoices, LexiconStoragePerAccount: o.LexiconStorage, Metrics: o.Metrics, Limits: o.Limits, MaxQueue: o.MaxQueue, KeyCheckTimeout: o.KeyCheck,
			SocketAuthTimeout: o.SocketAuth, KeyRecheckInterval: o.Recheck,
			WyomingMaxConns: o.WyomingConns, WyomingEventTimeout: o.WyomingEvent, WyomingMaxPeerConns: o.WyomingPeer,
			MaxUploadsPerAccount: o.MaxUploads, DefaultFormat: o.DefaultFormat, Jobs: o.Jobs,
			Logger: slog.New(slog.NewJSONHandler(cmp.Or(o.Log, io.Discard), nil)),
		}})
	e := &Env{T: t, Server: se.Server, Store: se.Store, DBPath: se.DBPath, Slow: slow, Catalog: cat, Synth: synth, Done: make(chan string, 1000),
		Key: se.Keys["local"], OtherKey: se.Keys["other"]}
	k, revoked, err := se.Store.CreateKey(ctx, store.NewKey{Account: "local", Name: "revoked", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := se.Store.RevokeKey(ctx, "local", k.Prefix); err != nil {
		t.Fatal(err)
	}
	e.Revoked = revoked
	e.TS = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			select {
			case e.Done <- r.URL.Path:
			default: // nobody is waiting (benchmarks)
			}
		}()
		e.Server.ServeHTTP(w, r)
	}))
	t.Cleanup(e.TS.Close)
	return e
}

// Do sends a raw request.
func (e *Env) Do(method, path, key, contentType string, body io.Reader) *http.Response {
	e.T.Helper()
	req, err := http.NewRequest(method, e.TS.URL+path, body)
	if err != nil {
		e.T.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := e.TS.Client().Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	return res
}

// NewPiperEnv is newEnv with the generated Piper voices of engine/onnx's
// testdata beside espeak-ng's.
func NewPiperEnv(t *testing.T) *Env {
	t.Helper()
	piper := onnxtest.Load(t, onnx.Options{Strict: true, VoicesDir: filepath.Join(Root(), "engine", "onnx", "testdata", "voices")})
	return New(t, Options{Synth: func(o *tts.Options) {
		o.Engines["onnx"] = piper
		if err := o.Voices.AddEngine(context.Background(), "onnx", piper, time.Now()); err != nil {
			t.Fatal(err)
		}
	}})
}

// Main is the TestMain of a package whose tests start servers: the tests
// that need PostgreSQL share one server, a database each; those that need
// the generated PocketTTS or Supertonic model share one directory of it.
func Main(m *testing.M) {
	code := pgtest.Run(m)
	pockettest.RemoveShared()
	supertonictest.RemoveShared()
	os.Exit(code)
}

// ShortParallel lets n of a package's parallel tests run at once under
// go test -short, unless -parallel is given. Call it first in TestMain.
// Tests that mostly wait (on timeouts, the slow voice, River's poll, a
// child server starting) leave cores idle at the default of one per core;
// make test keeps that default beside the race detector.
func ShortParallel(n int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if testing.Short() && !given {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// DBDir returns a new directory for a test's SQLite store, removed when
// the test ends: on tmpfs (/dev/shm) where the machine has one with a
// GiB free (a container's is often 64 MiB), since the fsyncs of creating
// and migrating a store on disk were most of a server's start (about
// 200-350 ms against 60 ms on tmpfs, at load 25); else t.TempDir(). No
// test here measures durability on disk.
func DBDir(t testing.TB) string {
	t.Helper()
	var fs syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &fs); err == nil && uint64(fs.Bavail)*uint64(fs.Bsize) >= 1<<30 {
		if dir, err := os.MkdirTemp("/dev/shm", "voxkit-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// migrated returns the bytes of a new, migrated SQLite store, made once
// per test binary: New writes them where a server's store opens, which is
// cheaper than migrating each store (about a tenth of the server
// package's test CPU was migrations). The store finds its schema current
// and runs no migration.
var migrated = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "voxkit-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, sqlite.FileName)
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
})

// Long skips, under go test -short, a test that takes seconds by design:
// it waits out a timeout or a window in which something must not happen,
// or puts load on the server. make test runs it.
func Long(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds by design; skipped by -short (make test runs it)")
	}
}

// Root is the module's directory, found from this file's, so that a test
// in any package reaches the module's testdata and .cache.
func Root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testserver: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}
