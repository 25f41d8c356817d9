package server_test

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/servertest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// faulty is an engine seam for failures the real engines do not make on
// demand: it panics on text containing "PANIC" and fails on text
// containing "FAIL"; other sentences are a short tone.
type faulty struct{}

var _ engine.Engine = faulty{}

func (faulty) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	switch {
	case strings.Contains(req.Text, "PANIC"):
		panic("faulty engine: asked to panic")
	case strings.Contains(req.Text, "FAIL"):
		return errors.New("faulty engine: asked to fail")
	}
	return emit(engine.Chunk{Samples: make([]float32, 1600), SampleRate: 16000})
}

func (faulty) Close() error { return nil }

// env is a running server on loopback with its store and keys.
type env struct {
	t        testing.TB
	ts       *httptest.Server
	srv      *server.Server
	store    *sqlite.Store
	dbPath   string
	slow     *enginetest.Fake
	catalog  *voices.Catalog
	synth    *tts.Synthesizer
	key      string      // account "local"
	otherKey string      // account "other"
	revoked  string      // account "local", revoked
	done     chan string // paths of finished requests
	mu       sync.Mutex
}

type envOptions struct {
	dbPath       string
	signup       bool
	readTimeout  time.Duration
	writeTimeout time.Duration
	log          io.Writer // the server's log, as JSON lines; nil discards it
	wsIdle       time.Duration
	maxKeys      int
	maxVoices    int
	// lexiconStorage is Options.LexiconStoragePerAccount.
	lexiconStorage int64
	// synth, if set, adjusts the Synthesizer's options.
	synth func(*tts.Options)
	// metrics, if set, receives the server's collectors.
	metrics  prometheus.Registerer
	limits   store.Limits
	maxQueue int
	keyCheck time.Duration // Options.KeyCheckTimeout
	// wrap, if set, gives the server its store in place of the SQLite one
	// (which it may wrap).
	wrap func(*sqlite.Store) store.Store
	// proxies are Options.TrustedProxies.
	proxies []netip.Prefix
	// unguarded sends text to libespeak-ng as written (espeak.Options),
	// so that its known crashes happen.
	unguarded bool
	// socketAuth and recheck are Options.SocketAuthTimeout and
	// Options.KeyRecheckInterval.
	socketAuth, recheck time.Duration
	// wyomingConns and wyomingEvent are Options.WyomingMaxConns and
	// WyomingEventTimeout.
	wyomingConns int
	wyomingEvent time.Duration
	wyomingPeer  int // Options.WyomingMaxPeerConns
	maxUploads   int // Options.MaxUploadsPerAccount
	// defaultFormat is Options.DefaultFormat.
	defaultFormat string
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	ctx := context.Background()
	es, err := espeak.New(espeak.Options{Unguarded: o.unguarded})
	if err != nil {
		t.Fatal(err)
	}
	slow := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"slow"}, SentenceDelay: 40 * time.Millisecond})
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake"}})
	engines := map[string]engine.Engine{"espeak": es, "slow": slow, "fake": fake, "faulty": faulty{}}
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
	if o.synth != nil {
		o.synth(&opts)
	}
	synth, err := tts.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	aliases := map[string]string{}
	for _, n := range server.OpenAIVoiceNames() {
		aliases[n] = "en-us"
	}
	se := servertest.Start(t, servertest.Options{Synthesizer: synth, Accounts: []string{"local", "other"}, DBPath: o.dbPath, Wrap: o.wrap,
		Server: server.Options{
			Aliases: aliases, AllowSignup: o.signup, ReadTimeout: o.readTimeout, ElevenLabs: true, Cartesia: true, TrustedProxies: o.proxies,
			WriteTimeout: o.writeTimeout, WSIdleTimeout: o.wsIdle, MaxKeysPerAccount: o.maxKeys,
			MaxVoicesPerAccount: o.maxVoices, LexiconStoragePerAccount: o.lexiconStorage, Metrics: o.metrics, Limits: o.limits, MaxQueue: o.maxQueue, KeyCheckTimeout: o.keyCheck,
			SocketAuthTimeout: o.socketAuth, KeyRecheckInterval: o.recheck,
			WyomingMaxConns: o.wyomingConns, WyomingEventTimeout: o.wyomingEvent, WyomingMaxPeerConns: o.wyomingPeer,
			MaxUploadsPerAccount: o.maxUploads, DefaultFormat: o.defaultFormat,
			Logger: slog.New(slog.NewJSONHandler(cmp.Or(o.log, io.Discard), nil)),
		}})
	e := &env{t: t, srv: se.Server, store: se.Store, dbPath: se.DBPath, slow: slow, catalog: cat, synth: synth, done: make(chan string, 1000),
		key: se.Keys["local"], otherKey: se.Keys["other"]}
	k, revoked, err := se.Store.CreateKey(ctx, store.NewKey{Account: "local", Name: "revoked", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := se.Store.RevokeKey(ctx, "local", k.Prefix); err != nil {
		t.Fatal(err)
	}
	e.revoked = revoked
	e.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			select {
			case e.done <- r.URL.Path:
			default: // nobody is waiting (benchmarks)
			}
		}()
		e.srv.ServeHTTP(w, r)
	}))
	t.Cleanup(e.ts.Close)
	return e
}

// client returns an official OpenAI SDK client for the server.
func (e *env) client(key string) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(e.ts.URL+"/v1/"), option.WithAPIKey(key),
		option.WithMaxRetries(0), option.WithHTTPClient(e.ts.Client()))
	return &c
}

// do sends a raw request.
func (e *env) do(method, path, key, contentType string, body io.Reader) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}
