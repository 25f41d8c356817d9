package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/postgres"
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/tts"
)

// cloneFleet is a fleet on one PostgreSQL database: workers a and w, each
// an ordinary server with the generated PocketTTS model, and a gateway g
// whose only worker is w. user and other are admin keys of two accounts,
// gatewayKey the gateway's own (scope gateway).
type cloneFleet struct {
	a, w        *workerServer
	g           *httptest.Server
	pieces      *pieceLog // what w got
	st          store.Store
	dsn         string
	user, other string
	gatewayKey  string
}

func newCloneFleet(t testing.TB) *cloneFleet {
	t.Helper()
	dsn := pgtest.Start(t)
	ctx := context.Background()
	st := openStore(t, dsn)
	f := &cloneFleet{}
	keys := []struct {
		account string
		scope   store.Scope
		into    *string
	}{{"acme", store.ScopeAdmin, &f.user}, {"globex", store.ScopeAdmin, &f.other}, {"gateway", store.ScopeGateway, &f.gatewayKey}}
	for _, k := range keys {
		if _, err := st.CreateAccount(ctx, k.account); err != nil {
			t.Fatal(err)
		}
		var err error
		if _, *k.into, err = st.CreateKey(ctx, store.NewKey{Account: k.account, Scope: k.scope}); err != nil {
			t.Fatal(err)
		}
	}
	f.pieces = new(pieceLog)
	f.a, f.w = pocketWorker(t, dsn), pocketWorkerLogged(t, dsn, f.pieces)
	f.g = storeGateway(t, dsn, f.gatewayKey, f.w.URL)
	f.st, f.dsn = st, dsn
	return f
}

// storeGateway is a gateway on the store at dsn whose workers are urls,
// reached with key.
func storeGateway(t testing.TB, dsn, key string, urls ...string) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	p, err := upstream.New(ctx, upstream.Options{URLs: urls, Key: key, CheckEvery: 50 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"upstream": p}})
	if err != nil {
		t.Fatal(err)
	}
	fctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	go p.Follow(fctx, synth, "upstream")
	srv, err := server.New(server.Options{Synthesizer: synth, Store: openStore(t, dsn), Gateway: true, Ready: p.Ready, Logger: quiet,
		ElevenLabs: true, Cartesia: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		srv.Shutdown(context.Background())
	})
	return ts
}

func openStore(t testing.TB, dsn string) store.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// pocketWorker is an ordinary voxkit server with the generated PocketTTS
// model on the store at dsn, as a fleet's workers run.
func pocketWorker(t testing.TB, dsn string) *workerServer {
	t.Helper()
	return pocketWorkerLogged(t, dsn, nil)
}

// piece is a speech request a worker got: its body's size and whether it
// carried a sample.
type piece struct {
	bytes      int
	withSample bool
}

// workerServer is a worker whose server Restart replaces, at the same
// address, by a new one on its own engine (a worker restarted).
type workerServer struct {
	*httptest.Server
	t   testing.TB
	dsn string
	cur atomic.Pointer[server.Server]
}

// pocketWorkerLogged is pocketWorker noting the speech requests it gets
// in log, when log is not nil.
func pocketWorkerLogged(t testing.TB, dsn string, log *pieceLog) *workerServer {
	t.Helper()
	ws := &workerServer{t: t, dsn: dsn}
	ws.Restart()
	ws.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if log != nil && r.URL.Path == "/v1/audio/speech" {
			body, _ := io.ReadAll(r.Body)
			log.add(piece{len(body), bytes.Contains(body, []byte(`"voice_sample"`))})
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		ws.cur.Load().ServeHTTP(w, r)
	}))
	t.Cleanup(ws.Close)
	return ws
}

// Restart serves with a new server, engine and store connection.
func (ws *workerServer) Restart() {
	t := ws.t
	t.Helper()
	dir, err := pockettest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	pk, err := pocket.Load(context.Background(), pocket.Options{LibraryPath: onnxtest.Library(t), VoicesDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"pocket": pk}, CloseEngines: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { synth.Close() })
	srv, err := server.New(server.Options{Synthesizer: synth, Store: openStore(t, ws.dsn), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	ws.cur.Store(srv)
}

// pieceLog collects the pieces a worker got.
type pieceLog struct {
	mu     sync.Mutex
	pieces []piece
}

func (l *pieceLog) add(p piece) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pieces = append(l.pieces, p)
}

// take returns the pieces logged since the last take.
func (l *pieceLog) take() []piece {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.pieces
	l.pieces = nil
	return out
}

// call sends a request with key and returns the status and body.
func call(t testing.TB, method, url, key, contentType string, body io.Reader) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, body)
	req.Header.Set("Authorization", "Bearer "+key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// uploadClone sends POST /v1/voices with a recording of 2 s to url as
// key.
func uploadClone(t testing.TB, url, key, id string) (int, []byte) {
	t.Helper()
	return postRecording(t, url+"/v1/voices", key, id, 2)
}

// postRecording sends the multipart form of POST /v1/voices with a
// recording of seconds to url as key.
func postRecording(t testing.TB, url, key, id string, seconds float64) (int, []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("id", id)
	mw.WriteField("name", "Recorded")
	mw.WriteField("temperature", "0")
	mw.WriteField("steps", "2")
	fw, _ := mw.CreateFormFile("audio", "me.wav")
	fw.Write(pockettest.WAV(pockettest.Recording(seconds, 170), pockettest.SampleRate))
	mw.Close()
	return call(t, "POST", url, key, mw.FormDataContentType(), &body)
}

// speakPCM asks url for text in voice as pcm.
func speakPCM(t testing.TB, url, key, voice, text string) (int, []byte) {
	t.Helper()
	return call(t, "POST", url+"/v1/audio/speech", key, "application/json",
		strings.NewReader(`{"model":"tts-1","voice":"`+voice+`","input":"`+text+`","response_format":"pcm"}`))
}

// TestRecordingCloneThroughGateway: a voice cloned from a recording on
// one worker speaks through a gateway whose worker is another, the same
// audio as that worker speaks it directly; only for its account; not once
// deleted.
func TestRecordingCloneThroughGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("three servers on PostgreSQL and the ONNX engine: some 4 s")
	}
	t.Parallel() // its own fleet; waits on the ONNX engine
	f := newCloneFleet(t)
	if st, b := uploadClone(t, f.a.URL, f.user, "rec"); st != 201 {
		t.Fatalf("upload on worker a: %d %s", st, b)
	}
	const text = "Spoken through the gateway."
	var direct []byte
	if !wait.For(5*time.Second, func() bool {
		var st int
		st, direct = speakPCM(t, f.w.URL, f.user, "rec", text)
		return st == 200
	}) {
		t.Fatal("the clone never spoke on worker w")
	}
	var through []byte
	if !wait.For(5*time.Second, func() bool {
		var st int
		st, through = speakPCM(t, f.g.URL, f.user, "rec", text)
		return st == 200
	}) {
		t.Fatalf("through the gateway: %s", through)
	}
	if len(direct) < 24000 || !bytes.Equal(direct, through) {
		t.Errorf("through the gateway %d bytes, directly %d: the same audio %v", len(through), len(direct), bytes.Equal(direct, through))
	}
	// The first piece carried the sample; the next ones name it only.
	first := f.pieces.take()
	if len(first) == 0 || !first[len(first)-1].withSample {
		t.Errorf("the first piece in the voice did not carry the sample: %+v", first)
	} else {
		t.Logf("the first piece: %d bytes with the sample", first[len(first)-1].bytes)
	}
	const three = "One sentence here. And another one. And a third."
	st, threeThrough := speakPCM(t, f.g.URL, f.user, "rec", three)
	if st != 200 {
		t.Fatalf("three sentences through the gateway: %d %s", st, threeThrough)
	}
	pieces := f.pieces.take()
	for i, p := range pieces {
		t.Logf("piece %d: %d bytes, sample %v", i, p.bytes, p.withSample)
		if p.withSample {
			t.Errorf("piece %d of a warm worker carried the sample (%d bytes)", i, p.bytes)
		}
	}
	if len(pieces) != 3 {
		t.Errorf("%d pieces, want 3", len(pieces))
	}
	// Sentence by sentence through the gateway, the audio is the worker's
	// own for the whole text.
	if st, threeDirect := speakPCM(t, f.w.URL, f.user, "rec", three); st != 200 || !bytes.Equal(threeDirect, threeThrough) {
		t.Errorf("three sentences: %d bytes through the gateway, %d directly (%d): the same audio %v", len(threeThrough), len(threeDirect), st, bytes.Equal(threeDirect, threeThrough))
	}
	f.pieces.take()
	// The worker restarted holds no sample: it asks for it (409), and
	// gets the piece again with it.
	f.w.Restart()
	if st, again := speakPCM(t, f.g.URL, f.user, "rec", text); st != 200 || !bytes.Equal(again, through) {
		t.Errorf("through the gateway after the worker restarted: %d, the same audio %v %s", st, bytes.Equal(again, through), again[:min(len(again), 300)])
	}
	if p := f.pieces.take(); len(p) != 2 || p[0].withSample || !p[1].withSample {
		t.Errorf("pieces after the worker restarted: %+v, want one without the sample, then one with it", p)
	}
	if st, b := speakPCM(t, f.g.URL, f.other, "rec", text); st != 404 {
		t.Errorf("another account through the gateway: %d %s, want 404", st, b)
	}
	if st, b := call(t, "DELETE", f.a.URL+"/v1/voices/rec", f.user, "", nil); st != 200 {
		t.Fatalf("delete on a: %d %s", st, b)
	}
	if !wait.For(5*time.Second, func() bool {
		st, _ := speakPCM(t, f.g.URL, f.user, "rec", text)
		return st == 404
	}) {
		t.Error("the deleted clone still speaks through the gateway")
	}

	// A recording sent to the gateway is cloned by its worker and stored
	// by the gateway: it speaks there and on the other worker alike.
	if st, b := uploadClone(t, f.g.URL, f.user, "made-at-gateway"); st != 201 || !bytes.Contains(b, []byte(`"model":"`+pockettest.Model+`"`)) {
		t.Fatalf("upload to the gateway: %d %s", st, b)
	}
	st, through = speakPCM(t, f.g.URL, f.user, "made-at-gateway", text)
	if st != 200 {
		t.Fatalf("the clone made at the gateway, there: %d %s", st, through)
	}
	if !wait.For(5*time.Second, func() bool {
		var st int
		st, direct = speakPCM(t, f.a.URL, f.user, "made-at-gateway", text)
		return st == 200
	}) {
		t.Fatal("the clone made at the gateway never spoke on worker a")
	}
	if !bytes.Equal(direct, through) {
		t.Errorf("the clone made at the gateway: %d bytes there, %d on worker a, the same %v", len(through), len(direct), bytes.Equal(direct, through))
	}

	// The vendors' clone routes on the gateway make such voices too.
	for door, route := range map[string]struct{ path, file, id string }{
		"ElevenLabs": {"/elevenlabs/v1/voices/add", "files", "voice_id"},
		"Cartesia":   {"/cartesia/voices/clone", "clip", "id"},
	} {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("name", door+" voice")
		fw, _ := mw.CreateFormFile(route.file, "me.wav")
		fw.Write(pockettest.WAV(pockettest.Recording(2, 170), pockettest.SampleRate))
		mw.Close()
		st, b := call(t, "POST", f.g.URL+route.path, f.user, mw.FormDataContentType(), &body)
		var made map[string]any
		json.Unmarshal(b, &made)
		id, _ := made[route.id].(string)
		if st != 200 || id == "" {
			t.Errorf("%s's clone route on the gateway: %d %s", door, st, b)
			continue
		}
		if st, pcm := speakPCM(t, f.g.URL, f.user, id, text); st != 200 || len(pcm) < 24000 {
			t.Errorf("%s's clone through the gateway: %d, %d bytes", door, st, len(pcm))
		}
		if st, _ := speakPCM(t, f.g.URL, f.other, id, text); st != 404 {
			t.Errorf("%s's clone through the gateway, as another account: %d, want 404", door, st)
		}
	}

	// A gateway whose key has the speech scope only (as fleets made
	// before gateway keys had) says what its key lacks.
	_, speechKey, err := f.st.CreateKey(context.Background(), store.NewKey{Account: "gateway", Scope: store.ScopeSpeech})
	if err != nil {
		t.Fatal(err)
	}
	old := storeGateway(t, f.dsn, speechKey, f.w.URL)
	for what, st := range map[string]func() (int, []byte){
		"speaking": func() (int, []byte) { return speakPCM(t, old.URL, f.user, "made-at-gateway", text) },
		"cloning":  func() (int, []byte) { return uploadClone(t, old.URL, f.user, "another") },
	} {
		if st, b := st(); st != 502 || !bytes.Contains(b, []byte("needs the gateway scope")) {
			t.Errorf("%s through a gateway with a speech key: %d %s", what, st, b)
		}
	}
}

// cloningWorker is a fake worker (at the HTTP seam) whose model "m"
// clones, answering POST /v1/voice-samples with status and body, and
// counting them in asked.
func cloningWorker(t *testing.T, status int, body string, asked *atomic.Int64) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/readyz":
		case "/v1/models":
			io.WriteString(w, `{"object":"list","data":[],"clone_models":["m"]}`)
		case "/v1/voice-samples":
			asked.Add(1)
			io.Copy(io.Discard, r.Body)
			w.WriteHeader(status)
			io.WriteString(w, body)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestPoolCloneVoice: a recording goes to a worker whose model clones; a
// busy worker (503) is passed over for another, a worker's refusal of the
// recording (400) is the answer as it wrote it, with no other worker
// asked, and a refusal of the gateway's key (403) says the key needs the
// gateway scope.
func TestPoolCloneVoice(t *testing.T) {
	req := engine.CloneRequest{Model: "m", Samples: make([]float32, 24000), SampleRate: 24000}
	var busy, good, refusing, forbidding atomic.Int64
	p := newPool(t, cloningWorker(t, 503, `{"error":{"message":"busy"}}`, &busy), cloningWorker(t, 200, "SAMPLE", &good))
	if models := p.CloneModels(); len(models) != 1 || models[0] != "m" {
		t.Errorf("clone models %q, want [m]", models)
	}
	for range 4 {
		if sample, err := p.CloneVoice(context.Background(), req); err != nil || string(sample) != "SAMPLE" {
			t.Fatalf("%q, %v", sample, err)
		}
	}
	if good.Load() != 4 {
		t.Errorf("the worker that clones was asked %d times, want 4", good.Load())
	}

	refused := `{"error":{"message":"The recording is silent.","type":"invalid_request_error","param":"audio","code":"audio_silent"}}`
	p = newPool(t, cloningWorker(t, 400, refused, &refusing), cloningWorker(t, 400, refused, &refusing))
	var we *fault.Error
	if _, err := p.CloneVoice(context.Background(), req); !errors.As(err, &we) || we.Status != 400 || we.Code != fault.CodeAudioSilent || refusing.Load() != 1 {
		t.Errorf("a refused recording: %v (asked %d workers), want the worker's 400 from one", err, refusing.Load())
	}
	p = newPool(t, cloningWorker(t, 403, `{"error":{"message":"scope"}}`, &forbidding))
	if _, err := p.CloneVoice(context.Background(), req); !errors.As(err, &we) || we.Status != 502 || !strings.Contains(we.Message, "gateway scope") {
		t.Errorf("a refused key: %v, want the 502 that names the gateway scope", err)
	}
	if _, err := p.CloneVoice(context.Background(), engine.CloneRequest{Model: "other"}); !errors.Is(err, upstream.ErrNoWorker) {
		t.Errorf("a model no worker has: %v", err)
	}
}
