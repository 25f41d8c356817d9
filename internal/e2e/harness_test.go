package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/servertest"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// env is a voxkit server on 127.0.0.1 with a SQLite store in a temporary
// directory and keys for two accounts.
type env struct {
	t     testing.TB
	srv   *server.Server
	ts    *httptest.Server // nil for in-process only envs
	store *sqlite.Store
	fake  *enginetest.Fake
	// key belongs to the account "local", otherKey to "other".
	key, otherKey string
}

type envOptions struct {
	// espeak loads the real espeak-ng engine and its voices, as the
	// example server does; otherwise only the fake engine is there.
	espeak bool
	// tls serves HTTPS (with httptest's certificate), for clients that
	// take only wss:// WebSockets.
	tls bool
	// noListen skips the loopback listener (fuzzing calls ServeHTTP).
	noListen bool
	// letter is the fake engine's letter duration; 0 means 5 ms.
	letter time.Duration
	// guard, if set, sees every request the fake engine gets.
	guard func(engine.Request)
	// pocket loads the generated PocketTTS model (pockettest.Shared) as
	// the engine "pocket", so voices can be cloned from recordings.
	pocket bool
	// server, if set, changes the server's options.
	server func(*server.Options)
}

// guarded passes the fake engine's requests to a check first.
type guarded struct {
	*enginetest.Fake
	check func(engine.Request)
}

func (g guarded) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	g.check(req)
	return g.Fake.Synthesize(ctx, req, emit)
}

// openAIAliases maps the OpenAI voice names to voices that exist.
func openAIAliases(target string) map[string]string {
	m := map[string]string{}
	for _, n := range server.OpenAIVoiceNames() {
		m[n] = target
	}
	return m
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	ctx := context.Background()
	if o.letter == 0 {
		o.letter = 5 * time.Millisecond
	}
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake"}, LetterDuration: o.letter})
	var fakeEngine engine.Engine = fake
	if o.guard != nil {
		fakeEngine = guarded{fake, o.guard}
	}
	// slow takes 30 ms before each sentence, for cancellation tests.
	slow := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"slow"}, SentenceDelay: 30 * time.Millisecond})
	engines := map[string]engine.Engine{"fake": fakeEngine, "slow": slow}
	cat := new(voices.Catalog)
	aliasTarget := "fake"
	if o.espeak {
		es, err := espeak.New(espeak.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { es.Close() })
		engines["espeak"] = es
		if err := cat.AddEngine(ctx, "espeak", es, time.Unix(1700000000, 0)); err != nil {
			t.Fatal(err)
		}
		aliasTarget = "en-us"
	}
	for name, eng := range map[string]engine.Engine{"fake": fakeEngine, "slow": slow} {
		if err := cat.AddEngine(ctx, name, eng, time.Unix(1700000000, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if o.pocket {
		addPocket(t, engines, cat)
	}
	if err := cat.Add(voices.Voice{ID: "other-clone", Owner: "other", Engine: "fake", EngineVoice: "fake", Created: time.Unix(1700000000, 0)}); err != nil {
		t.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: engines, Voices: cat, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	opts := server.Options{Aliases: openAIAliases(aliasTarget), ElevenLabs: true, Cartesia: true}
	if o.server != nil {
		o.server(&opts)
	}
	se := servertest.Start(t, servertest.Options{Synthesizer: synth, Accounts: []string{"local", "other"}, Server: opts})
	e := &env{t: t, srv: se.Server, store: se.Store, fake: fake, key: se.Keys["local"], otherKey: se.Keys["other"]}
	if !o.noListen {
		e.ts = httptest.NewUnstartedServer(e.srv)
		e.ts.Config.ReadHeaderTimeout = 10 * time.Second
		if o.tls {
			e.ts.StartTLS()
		} else {
			e.ts.Start()
		}
		t.Cleanup(e.ts.Close)
	}
	return e
}

// addPocket loads the generated PocketTTS model as the engine "pocket".
func addPocket(t testing.TB, engines map[string]engine.Engine, cat *voices.Catalog) {
	t.Helper()
	dir, err := pockettest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	pk, err := pocket.Load(context.Background(), pocket.Options{LibraryPath: onnxtest.Library(t), VoicesDir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pk.Close() })
	engines["pocket"] = pk
	if err := cat.AddEngine(context.Background(), "pocket", pk, time.Unix(1700000000, 0)); err != nil {
		t.Fatal(err)
	}
}

// url returns the server's address joined with path.
func (e *env) url(path string) string { return e.ts.URL + path }

// post sends a JSON body to path with the local key.
func (e *env) post(path, body string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.url(path), strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// readAll reads and closes a response body.
func readAll(t testing.TB, res *http.Response) []byte {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return b
}

// expectGoroutines waits up to 10 s for the goroutine count, as settle
// measures it, to come back to within 2 of base, and fails with every
// goroutine's stack if it does not.
func expectGoroutines(t *testing.T, base int, settle func() int) {
	t.Helper()
	var n int
	if !wait.For(10*time.Second, func() bool { n = settle(); return n <= base+2 }) {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before, %d after\n%s", base, n, buf[:runtime.Stack(buf, true)])
	}
}
