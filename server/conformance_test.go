package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/throttle"
	"github.com/voxkit/voxkit/server/internal/wyoming"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// The door-conformance table: every situation a speech request can meet
// (a revoked key, the limits, an unknown voice, a slow or vanished
// client, a shutdown, the metrics) run against every front door — the
// OpenAI HTTP API (clip, pcm stream, SSE), voxkit's WebSocket, the
// ElevenLabs HTTP API and sockets, the Cartesia HTTP API and socket, and
// Wyoming — each answer checked in that door's own shape. The error
// bodies are golden, one file per door: testdata/conformance_<door>.json
// (regenerate with -update).

// failure is an error a door answered, read by the door's shape.
type failure struct {
	status     int // the HTTP status, or the one the body names; 0 for none
	code       string
	message    string
	param      string // OpenAI's param; "" for none or a door without one
	retryAfter string // the Retry-After header of an HTTP answer
	body       string // exactly as sent, what varies between runs replaced
}

// piece is one thing read from a door's answer: audio, an error, its
// whole end, or the connection's end.
type piece struct {
	audio int // bytes of audio
	fail  *failure
	done  bool  // the answer ended whole, as the door ends one
	end   error // the connection or body ended (io.EOF when cleanly)
}

// empty reports whether p holds nothing (an event of no interest).
func (p piece) empty() bool { return p.audio == 0 && p.fail == nil && !p.done && p.end == nil }

// stallLimit is how long a test waits for the next piece of an answer
// before it takes the answer as hung: long, because a clip of minutes is
// made whole before its first byte, and the race detector on a loaded
// machine makes it slowly.
const stallLimit = 90 * time.Second

// talk is a door's answer being read.
type talk interface {
	// next reads the next piece; it gives up (end) after stallLimit
	// without one.
	next(t *testing.T) piece
	// leave drops the connection, as a client that goes away does.
	leave()
}

// caller is who speaks: by key, and (Wyoming, which takes no key) by the
// account its listener serves.
type caller struct{ key, account string }

// doorKind tells the doors apart where a situation differs between them.
type doorKind int

const (
	httpDoor   doorKind = iota // one request, one answer
	socketDoor                 // a WebSocket, admitted by key
	tcpDoor                    // Wyoming: a TCP connection without keys
)

// door is one front door as the table drives it.
type door struct {
	name string
	kind doorKind
	// field is the door's name for the text to speak.
	field string
	// format is the metrics' format label of what speak asks for.
	format string
	// events marks an HTTP door whose answer is events (SSE), which can
	// carry an error after audio.
	events bool
	// speak asks the door, as who, to speak text with voice.
	speak func(t *testing.T, e *conformEnv, who caller, voice, text string) talk
}

// conformEnv is a server whose admitted speech requests are counted:
// the store is a store.Limiter that counts what it lets in until it
// ends, so a test sees when a door's work for a request stops; and
// whose voice "fake" counts the sentences it is asked for, so a test
// sees whether synthesis goes on.
type conformEnv struct {
	*testserver.Env
	adm       *admissions
	reg       *prometheus.Registry
	sentences *atomic.Int64 // of the voice "fake"

	mu       sync.Mutex
	wyomings map[string]string // listener address by account
}

// admissions is the SQLite store with the server's own in-process
// limiter, counting the speech requests running.
type admissions struct {
	*sqlite.Store
	limiter *throttle.Limiter
	running atomic.Int64
}

var _ store.Limiter = (*admissions)(nil)

func (a *admissions) Begin(ctx context.Context, account string, l store.Limits) (func(), error) {
	end, err := a.limiter.Begin(ctx, account, l)
	if err != nil {
		return nil, err
	}
	a.running.Add(1)
	return sync.OnceFunc(func() {
		a.running.Add(-1)
		end()
	}), nil
}

// countingEngine counts the sentences it is asked for.
type countingEngine struct {
	engine.Engine
	n *atomic.Int64
}

func (c countingEngine) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	c.n.Add(1)
	return c.Engine.Synthesize(ctx, req, emit)
}

func newConformEnv(t *testing.T, o testserver.Options) *conformEnv {
	t.Helper()
	adm := &admissions{limiter: throttle.NewLimiter()}
	o.Wrap = func(st *sqlite.Store) store.Store {
		adm.Store = st
		return adm
	}
	reg := prometheus.NewRegistry()
	o.Metrics = reg
	sentences := new(atomic.Int64)
	adjust := o.Synth
	o.Synth = func(so *tts.Options) {
		if adjust != nil {
			adjust(so)
		}
		so.Engines["fake"] = countingEngine{so.Engines["fake"], sentences}
	}
	e := testserver.New(t, o)
	e.TS = serveSmall(t, e.TS.Config.Handler)
	return &conformEnv{Env: e, adm: adm, reg: reg, sentences: sentences, wyomings: map[string]string{}}
}

// socketBuffer is the kernel's buffer of the tests' connections: what a
// server sends through (SO_SNDBUF) and a client receives through
// (SO_RCVBUF), which Linux doubles. Fixed, so that what a client that
// stops reading still gets does not depend on the machine's autotuning
// (here up to 4 MB sent and 32 MB received).
const socketBuffer = 64 << 10

// smallBuffers is a listener whose connections send through
// socketBuffer.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(socketBuffer)
	}
	return c, err
}

// receiveSmall makes c receive through socketBuffer.
func receiveSmall(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetReadBuffer(socketBuffer)
	}
}

// serveSmall serves h on loopback through socketBuffer both ways: its
// Client's connections receive through it too.
func serveSmall(t *testing.T, h http.Handler) *httptest.Server {
	ts := httptest.NewUnstartedServer(h)
	ts.Listener = smallBuffers{ts.Listener}
	ts.Start()
	t.Cleanup(ts.Close)
	ts.Client().Transport.(*http.Transport).DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := new(net.Dialer).DialContext(ctx, network, addr)
		if err == nil {
			receiveSmall(c)
		}
		return c, err
	}
	return ts
}

// gatewayTwin is a second server over e's synthesizer and store, marked
// Options.Gateway (its engines' time is its upstream time), with its own
// metrics.
func (e *conformEnv) gatewayTwin(t *testing.T) *conformEnv {
	t.Helper()
	reg := prometheus.NewRegistry()
	srv, err := server.New(server.Options{Synthesizer: e.Synth, Store: e.Store, Aliases: map[string]string{},
		ElevenLabs: true, Cartesia: true, Gateway: true, Metrics: reg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	g := &testserver.Env{T: t, TS: serveSmall(t, srv), Server: srv, Store: e.Store, Slow: e.Slow, Catalog: e.Catalog, Synth: e.Synth,
		Key: e.Key, OtherKey: e.OtherKey, Revoked: e.Revoked, Done: make(chan string, 1000)}
	return &conformEnv{Env: g, adm: e.adm, reg: reg, sentences: e.sentences, wyomings: map[string]string{}}
}

// me is the caller of account "local".
func (e *conformEnv) me() caller { return caller{key: e.Key, account: "local"} }

// newCaller makes an account of its own, with a key.
func (e *conformEnv) newCaller(t *testing.T, account string) caller {
	t.Helper()
	if _, err := e.Store.CreateAccount(t.Context(), account); err != nil {
		t.Fatal(err)
	}
	_, key, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: account, Name: "conformance", Scope: store.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	return caller{key: key, account: account}
}

// wyomingAddr is the address of a Wyoming listener speaking as account.
func (e *conformEnv) wyomingAddr(t *testing.T, account string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if a, ok := e.wyomings[account]; ok {
		return a
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- e.Server.ServeWyoming(smallBuffers{l}, account) }()
	t.Cleanup(func() {
		l.Close()
		if err := <-served; err != nil && !errors.Is(err, net.ErrClosed) {
			t.Errorf("ServeWyoming: %v", err)
		}
	})
	e.wyomings[account] = l.Addr().String()
	return l.Addr().String()
}

// idle reports whether no speech request runs within 10 s.
func (e *conformEnv) idle() bool {
	return wait.For(10*time.Second, func() bool { return e.adm.running.Load() == 0 })
}

// cutOff waits for the request running to end, and reports whether it
// did; it reports false once the request's synthesis (of the voice
// "fake") has made no progress for 5 s while the request runs: the
// server holds it, blocked on a client that does not read.
func (e *conformEnv) cutOff() bool {
	for {
		before := e.sentences.Load()
		if wait.For(5*time.Second, func() bool { return e.adm.running.Load() == 0 }) {
			return true
		}
		if e.sentences.Load() == before {
			return false
		}
	}
}

// varyingRetry matches the wait a rate-limit message names.
var varyingRetry = regexp.MustCompile(`retry in \d+ s`)

// errorShape reads an error body in a door's shape, strictly.
type errorShape func(b []byte) (failure, error)

// readFailure reads b, an error the door sent (with HTTP status, 0
// when in-band), by shape; a body out of shape fails the test.
func readFailure(t *testing.T, shape errorShape, b []byte, status int) *failure {
	t.Helper()
	f, err := shape(b)
	if err != nil {
		t.Errorf("error %.400s is not in the door's shape: %v", b, err)
	}
	if status != 0 {
		if f.status != 0 && f.status != status {
			t.Errorf("error %.400s names status %d, the answer's is %d", b, f.status, status)
		}
		f.status = status
	}
	f.body = varyingRetry.ReplaceAllString(testserver.Varying.ReplaceAllString(string(b), "ID"), "retry in N s")
	return &f
}

// httpFailure reads an HTTP answer that is an error, JSON by shape.
func httpFailure(t *testing.T, shape errorShape, res *http.Response) *failure {
	t.Helper()
	b, _ := io.ReadAll(res.Body)
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("error %d %.200s has Content-Type %q, want application/json", res.StatusCode, b, ct)
	}
	f := readFailure(t, shape, b, res.StatusCode)
	f.retryAfter = res.Header.Get("Retry-After")
	return f
}

// fieldsOf decodes b, a JSON object that must have the required keys and
// no keys but those and the optional ones.
func fieldsOf(b []byte, required, optional []string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("no %q", k)
		}
	}
	for k := range m {
		if !slices.Contains(required, k) && !slices.Contains(optional, k) {
			return nil, fmt.Errorf("a field %q", k)
		}
	}
	return m, nil
}

// stringFields reads the named fields of m, each a non-empty string, into
// the pointers.
func stringFields(m map[string]json.RawMessage, into map[string]*string) error {
	for k, p := range into {
		if err := json.Unmarshal(m[k], p); err != nil || *p == "" {
			return fmt.Errorf("%s is not a non-empty string: %s", k, m[k])
		}
	}
	return nil
}

// openAIShape: {"error": {"message", "type", "param", "code"}}, param
// and code strings or null.
func openAIShape(b []byte) (failure, error) {
	top, err := fieldsOf(b, []string{"error"}, nil)
	if err != nil {
		return failure{}, err
	}
	return openAIObject(top["error"])
}

func openAIObject(b []byte) (failure, error) {
	var f failure
	o, err := fieldsOf(b, []string{"message", "type", "param", "code"}, nil)
	if err != nil {
		return f, fmt.Errorf("error object: %w", err)
	}
	var typ string
	if err := stringFields(o, map[string]*string{"message": &f.message, "type": &typ}); err != nil {
		return f, err
	}
	var param, code *string
	if json.Unmarshal(o["param"], &param) != nil || json.Unmarshal(o["code"], &code) != nil {
		return f, errors.New("param and code are strings or null")
	}
	if param != nil {
		f.param = *param
	}
	if code != nil {
		f.code = *code
	}
	return f, nil
}

// openAIWSShape: voxkit's socket, {"type": "error", "id", "error": {...}}.
func openAIWSShape(b []byte) (failure, error) {
	top, err := fieldsOf(b, []string{"type", "error"}, []string{"id"})
	if err != nil {
		return failure{}, err
	}
	if string(top["type"]) != `"error"` {
		return failure{}, fmt.Errorf("type %s", top["type"])
	}
	return openAIObject(top["error"])
}

// elevenShape: ElevenLabs' HTTP {"detail": {"status", "message"}}.
func elevenShape(b []byte) (failure, error) {
	var f failure
	top, err := fieldsOf(b, []string{"detail"}, nil)
	if err != nil {
		return f, err
	}
	d, err := fieldsOf(top["detail"], []string{"status", "message"}, nil)
	if err != nil {
		return f, fmt.Errorf("detail: %w", err)
	}
	return f, stringFields(d, map[string]*string{"status": &f.code, "message": &f.message})
}

// elevenSocketShape: ElevenLabs' socket {"error", "code"}, with the
// context of a multi-stream socket.
func elevenSocketShape(b []byte) (failure, error) {
	var f failure
	m, err := fieldsOf(b, []string{"error", "code"}, []string{"contextId"})
	if err != nil {
		return f, err
	}
	return f, stringFields(m, map[string]*string{"error": &f.message, "code": &f.code})
}

// cartesiaShape: Cartesia's {"type": "error", "status_code",
// "error_code", "title", "message", ...}, over HTTP and in events.
func cartesiaShape(b []byte) (failure, error) {
	var f failure
	m, err := fieldsOf(b, []string{"type", "status_code", "error_code", "title", "message"}, []string{"done", "request_id", "context_id"})
	if err != nil {
		return f, err
	}
	var typ, title string
	if err := stringFields(m, map[string]*string{"type": &typ, "error_code": &f.code, "title": &title, "message": &f.message}); err != nil {
		return f, err
	}
	if typ != "error" {
		return f, fmt.Errorf("type %q", typ)
	}
	if err := json.Unmarshal(m["status_code"], &f.status); err != nil || f.status < 400 {
		return f, fmt.Errorf("status_code %s", m["status_code"])
	}
	return f, nil
}

// wyomingShape: the data of Wyoming's error event, {"text", "code"}.
func wyomingShape(b []byte) (failure, error) {
	var f failure
	m, err := fieldsOf(b, []string{"text", "code"}, nil)
	if err != nil {
		return f, err
	}
	return f, stringFields(m, map[string]*string{"text": &f.message, "code": &f.code})
}

// httpTalk is an HTTP answer: raw audio, or (event set) SSE events.
type httpTalk struct {
	cancel   context.CancelFunc
	ready    chan struct{} // closed when res, err are set
	res      *http.Response
	err      error
	r        *bufio.Reader
	shape    errorShape
	event    func(t *testing.T, data []byte) piece // an SSE event's data; nil for raw audio
	answered bool
}

// post sends body to path with header h, in the background: the answer
// is read through the talk (a clip's headers come only once it is made).
func (e *conformEnv) post(t *testing.T, path string, h http.Header, body any, shape errorShape,
	event func(*testing.T, []byte) piece) talk {
	b, _ := json.Marshal(body)
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.TS.URL+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	req.Header.Set("Content-Type", "application/json")
	ht := &httpTalk{cancel: cancel, ready: make(chan struct{}), shape: shape, event: event}
	client := e.TS.Client()
	go func() {
		ht.res, ht.err = client.Do(req)
		close(ht.ready)
	}()
	t.Cleanup(func() {
		cancel()
		<-ht.ready
		if ht.res != nil {
			ht.res.Body.Close()
		}
	})
	return ht
}

func (h *httpTalk) next(t *testing.T) piece {
	t.Helper()
	stall := time.AfterFunc(stallLimit, h.cancel) // the answer is dropped: it reads as cut
	defer stall.Stop()
	<-h.ready
	if h.err != nil {
		return piece{end: h.err}
	}
	if h.res.StatusCode != http.StatusOK {
		if h.answered {
			return piece{end: io.EOF}
		}
		h.answered = true
		return piece{fail: httpFailure(t, h.shape, h.res)}
	}
	if h.r == nil {
		h.r = bufio.NewReaderSize(h.res.Body, 64<<10)
	}
	if h.event == nil {
		buf := make([]byte, 64<<10)
		n, err := h.r.Read(buf)
		switch {
		case n > 0:
			return piece{audio: n}
		case err == io.EOF:
			return piece{done: true}
		default:
			return piece{end: err}
		}
	}
	for {
		data, err := sseData(h.r)
		if err != nil {
			return piece{end: err}
		}
		if p := h.event(t, data); !p.empty() {
			return p
		}
	}
}

func (h *httpTalk) leave() {
	h.cancel()
	select {
	case <-h.ready:
		if h.res != nil {
			h.res.Body.Close()
		}
	default:
	}
}

// sseData reads the data of the next server-sent event.
func sseData(r *bufio.Reader) ([]byte, error) {
	var data []byte
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 && data != nil {
			return data, nil
		}
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
		}
	}
}

// decoded is the length of base64 text s decodes to.
func decoded(t *testing.T, s string) int {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Errorf("audio is not base64: %v", err)
	}
	return len(b)
}

// openAISSE reads an event of the OpenAI SSE stream.
func openAISSE(t *testing.T, data []byte) piece {
	if string(data) == "[DONE]" {
		return piece{done: true}
	}
	var m struct {
		Type  string          `json:"type"`
		Audio string          `json:"audio"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("event %.200s: %v", data, err)
	}
	switch {
	case m.Error != nil:
		return piece{fail: readFailure(t, openAIShape, data, 0)}
	case m.Type == wire.EventAudioDelta:
		return piece{audio: decoded(t, m.Audio)}
	}
	return piece{}
}

// cartesiaPiece reads an event of Cartesia's SSE stream or socket.
func cartesiaPiece(t *testing.T, data []byte) piece {
	var m struct {
		Type string `json:"type"`
		Data string `json:"data"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("event %.200s: %v", data, err)
	}
	switch m.Type {
	case "chunk":
		return piece{audio: decoded(t, m.Data)}
	case "done":
		return piece{done: true}
	case "error":
		return piece{fail: readFailure(t, cartesiaShape, data, 0)}
	}
	return piece{}
}

// elevenPiece reads a message of an ElevenLabs socket.
func elevenPiece(t *testing.T, data []byte) piece {
	var m struct {
		Audio   string  `json:"audio"`
		IsFinal *bool   `json:"isFinal"`
		Error   *string `json:"error"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("message %.200s: %v", data, err)
	}
	switch {
	case m.Error != nil:
		return piece{fail: readFailure(t, elevenSocketShape, data, 0)}
	case m.Audio != "":
		return piece{audio: decoded(t, m.Audio)}
	case m.IsFinal != nil && *m.IsFinal:
		return piece{done: true}
	}
	return piece{}
}

// openAIWSEvent reads a message of voxkit's socket.
func openAIWSEvent(t *testing.T, data []byte) piece {
	var m struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("message %.200s: %v", data, err)
	}
	switch m.Type {
	case wire.WSDone:
		return piece{done: true}
	case wire.WSErrorMessage:
		return piece{fail: readFailure(t, openAIWSShape, data, 0)}
	}
	return piece{}
}

// socketTalk is a WebSocket's answer: binary messages are audio, text
// messages are read by event.
type socketTalk struct {
	c     *websocket.Conn
	event func(t *testing.T, data []byte) piece
}

func (s *socketTalk) next(t *testing.T) piece {
	t.Helper()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), stallLimit)
		typ, data, err := s.c.Read(ctx)
		cancel()
		switch {
		case err != nil:
			return piece{end: err}
		case typ == websocket.MessageBinary:
			return piece{audio: len(data)}
		}
		if p := s.event(t, data); !p.empty() {
			return p
		}
	}
}

func (s *socketTalk) leave() { s.c.CloseNow() }

// refusedTalk is a handshake the door refused: its error, then the end.
type refusedTalk struct{ fail *failure }

func (r *refusedTalk) next(*testing.T) piece {
	f := r.fail
	r.fail = nil
	if f == nil {
		return piece{end: io.EOF}
	}
	return piece{fail: f}
}

func (*refusedTalk) leave() {}

// dial opens a socket at path with header h; a refused handshake is
// read by shape.
func (e *conformEnv) dial(t *testing.T, path string, h http.Header, shape errorShape) (*websocket.Conn, *failure) {
	t.Helper()
	c, res, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(e.TS.URL, "http")+path,
		&websocket.DialOptions{HTTPClient: e.TS.Client(), HTTPHeader: h})
	if err != nil {
		if res == nil {
			t.Fatalf("dial %s: %v", path, err)
		}
		return nil, httpFailure(t, shape, res)
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c, nil
}

// send writes the JSON messages to c.
func send(t *testing.T, c *websocket.Conn, msgs ...map[string]any) {
	t.Helper()
	for _, m := range msgs {
		testserver.SendJSON(t, c, m)
	}
}

// wyomingTalk is a Wyoming connection's answer.
type wyomingTalk struct{ c *testserver.WyomingClient }

func (w *wyomingTalk) next(t *testing.T) piece {
	t.Helper()
	for {
		w.c.C.SetReadDeadline(time.Now().Add(stallLimit))
		ev, err := wyoming.Read(w.c.R)
		if err != nil {
			return piece{end: err}
		}
		switch ev.Type {
		case "audio-chunk":
			return piece{audio: len(ev.Payload)}
		case "audio-stop":
			return piece{done: true}
		case "error":
			data, _ := json.Marshal(ev.Data)
			return piece{fail: readFailure(t, wyomingShape, data, 0)}
		}
	}
}

func (w *wyomingTalk) leave() { w.c.C.Close() }

// cartesiaRequestOf is a Cartesia generation request for raw 24 kHz pcm.
func cartesiaRequestOf(voice, text string) map[string]any {
	return map[string]any{"transcript": text, "voice": map[string]any{"mode": "id", "id": voice},
		"output_format": map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 24000}}
}

func openAIHTTP(name, format string, sse bool) door {
	event := openAISSE
	if !sse {
		event = nil
	}
	return door{name: name, kind: httpDoor, field: "input", format: format, events: sse,
		speak: func(t *testing.T, e *conformEnv, who caller, voice, text string) talk {
			body := map[string]any{"voice": voice, "input": text, "response_format": format}
			if sse {
				body["stream_format"] = "sse"
			}
			return e.post(t, "/v1/audio/speech", http.Header{"Authorization": {"Bearer " + who.key}}, body, openAIShape, event)
		}}
}

func elevenHTTP(name, suffix string) door {
	return door{name: name, kind: httpDoor, field: "text", format: "pcm",
		speak: func(t *testing.T, e *conformEnv, who caller, voice, text string) talk {
			return e.post(t, "/elevenlabs/v1/text-to-speech/"+voice+suffix+"?output_format=pcm_24000",
				http.Header{"Xi-Api-Key": {who.key}}, map[string]any{"text": text}, elevenShape, nil)
		}}
}

func cartesiaHTTP(name, path string, sse bool) door {
	event := cartesiaPiece
	if !sse {
		event = nil
	}
	return door{name: name, kind: httpDoor, field: "transcript", format: "pcm", events: sse,
		speak: func(t *testing.T, e *conformEnv, who caller, voice, text string) talk {
			return e.post(t, path, http.Header{"X-Api-Key": {who.key}}, cartesiaRequestOf(voice, text), cartesiaShape, event)
		}}
}

// elevenSocket is stream-input (one context per socket) or (multi)
// multi-stream-input.
func elevenSocket(name string, multi bool) door {
	return door{name: name, kind: socketDoor, field: "text", format: "pcm",
		speak: func(t *testing.T, e *conformEnv, who caller, voice, text string) talk {
			path := "/elevenlabs/v1/text-to-speech/" + voice + "/stream-input?output_format=pcm_24000"
			if multi {
				path = strings.Replace(path, "/stream-input", "/multi-stream-input", 1)
			}
			c, refused := e.dial(t, path, http.Header{"Xi-Api-Key": {who.key}}, elevenShape)
			if refused != nil {
				return &refusedTalk{refused}
			}
			msgs := []map[string]any{{"text": " "}, {"text": text + " ", "flush": true}, {"text": ""}}
			if multi {
				for _, m := range msgs {
					m["context_id"] = "c"
				}
				msgs[2] = map[string]any{"context_id": "c", "close_context": true}
			}
			send(t, c, msgs...)
			return &socketTalk{c: c, event: elevenPiece}
		}}
}

// openAIPCM is the OpenAI API's pcm stream, which also holds a request
// open where a situation needs one.
var openAIPCM = openAIHTTP("openai-pcm", "pcm", false)

var doors = []door{
	openAIHTTP("openai-clip", "wav", false),
	openAIPCM,
	openAIHTTP("openai-sse", "pcm", true),
	elevenHTTP("elevenlabs", ""),
	elevenHTTP("elevenlabs-stream", "/stream"),
	cartesiaHTTP("cartesia-bytes", "/cartesia/tts/bytes", false),
	cartesiaHTTP("cartesia-sse", "/cartesia/tts/sse", true),
	{name: "openai-ws", kind: socketDoor, field: "input", format: "pcm",
		speak: func(t *testing.T, e *conformEnv, who caller, voice, text string) talk {
			c, refused := e.dial(t, "/v1/audio/speech/ws", http.Header{"Authorization": {"Bearer " + who.key}}, openAIShape)
			if refused != nil {
				return &refusedTalk{refused}
			}
			if m := testserver.Next(t, c); m.Type != wire.WSReady {
				t.Fatalf("first message %+v", m)
			}
			send(t, c, map[string]any{"type": "speech.create", "id": "c", "voice": voice, "input": text, "response_format": "pcm"})
			return &socketTalk{c: c, event: openAIWSEvent}
		}},
	elevenSocket("elevenlabs-stream-input", false),
	elevenSocket("elevenlabs-multi-stream-input", true),
	{name: "cartesia-websocket", kind: socketDoor, field: "transcript", format: "pcm",
		speak: func(t *testing.T, e *conformEnv, who caller, voice, text string) talk {
			c, refused := e.dial(t, "/cartesia/tts/websocket", http.Header{"X-Api-Key": {who.key}}, cartesiaShape)
			if refused != nil {
				return &refusedTalk{refused}
			}
			m := cartesiaRequestOf(voice, text)
			m["context_id"], m["continue"] = "c", false
			send(t, c, m)
			return &socketTalk{c: c, event: cartesiaPiece}
		}},
	{name: "wyoming", kind: tcpDoor, field: "text", format: "pcm",
		speak: func(t *testing.T, e *conformEnv, who caller, voice, text string) talk {
			c := testserver.DialWyoming(t, e.wyomingAddr(t, who.account))
			receiveSmall(c.C)
			c.Send("synthesize", map[string]any{"text": text, "voice": map[string]any{"name": voice}})
			return &wyomingTalk{c}
		}},
}

// heard is an answer read to its end: its audio, and its error, whole
// end or connection's end, whichever came first.
type heard struct {
	audio int
	fail  *failure
	done  bool
	end   error
}

func hear(t *testing.T, tk talk) heard {
	t.Helper()
	var h heard
	for {
		p := tk.next(t)
		h.audio += p.audio
		switch {
		case p.fail != nil:
			h.fail = p.fail
			return h
		case p.done:
			h.done = true
			return h
		case p.end != nil:
			h.end = p.end
			return h
		}
	}
}

// speaks checks that the door speaks text whole, and returns its bytes
// of audio.
func speaks(t *testing.T, d door, e *conformEnv, who caller, voice, text string) int {
	t.Helper()
	h := hear(t, d.speak(t, e, who, voice, text))
	if !h.done || h.fail != nil {
		t.Fatalf("%s did not speak %q whole: %+v", d.name, text, h)
	}
	return h.audio
}

// refused checks that h is the error code (with status, where the door
// sends one) before any audio, and returns it.
func refused(t *testing.T, h heard, status int, code string) *failure {
	t.Helper()
	if h.fail == nil {
		t.Fatalf("want %s, got %+v", code, h)
	}
	if h.fail.code != code || h.fail.status != 0 && h.fail.status != status {
		t.Errorf("error %s; want %d %s", h.fail.body, status, code)
	}
	if h.audio > 0 {
		t.Errorf("%d bytes of audio before the error", h.audio)
	}
	return h.fail
}

// firstAudio reads tk until audio comes, and returns its bytes.
func firstAudio(t *testing.T, tk talk) int {
	t.Helper()
	for {
		p := tk.next(t)
		switch {
		case p.audio > 0:
			return p.audio
		case !p.empty():
			t.Fatalf("before any audio: %+v", p)
		}
	}
}

// readToEnd reads tk to the connection's end and returns the errors met,
// whether the answer ended whole, and how the connection ended.
func readToEnd(t *testing.T, tk talk) (fails []*failure, done bool, end error) {
	t.Helper()
	for {
		p := tk.next(t)
		switch {
		case p.fail != nil:
			fails = append(fails, p.fail)
		case p.done:
			done = true
		case p.end != nil:
			return fails, done, p.end
		}
	}
}

// situation is a row of the table: run checks one door in it, and
// returns the error the door answered, for the door's golden file.
type situation struct {
	name string
	// env makes the server the doors share; with fresh, each door gets
	// its own, and the doors run in parallel: for the situations where a
	// door waits (timeouts, the slow voice), so that the doors wait
	// together.
	env   func(t *testing.T) *conformEnv
	fresh bool
	// skip says why a door has no such situation, "" when it has.
	skip func(d door) string
	run  func(t *testing.T, d door, e *conformEnv) *failure
}

// keyed skips Wyoming, which takes no key.
func keyed(d door) string {
	if d.kind == tcpDoor {
		return "Wyoming takes no key: every connection speaks as its listener's account"
	}
	return ""
}

func envWith(o testserver.Options) func(t *testing.T) *conformEnv {
	return func(t *testing.T) *conformEnv { return newConformEnv(t, o) }
}

const (
	hello     = "Hello there."
	longSlow  = "One more sentence. "
	slowCount = 100
)

// bigAnswer is about 100 s of audio (20 × 5 s of pause and a short tone
// of the fake voice) that costs little to make: 5 MB of 24 kHz pcm, far
// more than the connection's buffers (socketBuffer) and the client's
// hold.
var bigAnswer = strings.Repeat("Hi. <|pause:5s|> ", 20)

const bigSeconds = 20 * 5.15

var situations = []situation{
	{
		name: "revoked key", env: envWith(testserver.Options{}), skip: keyed,
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			return refused(t, hear(t, d.speak(t, e, caller{key: e.Revoked, account: "local"}, "en-us", hello)), 401, wire.CodeInvalidAPIKey)
		},
	},
	{
		// Revoked while a long utterance speaks: the socket's periodic
		// check stops it with an error, then close code 1008.
		name: "revoked while open", fresh: true, env: envWith(testserver.Options{Recheck: 100 * time.Millisecond}),
		skip: func(d door) string {
			if d.kind != socketDoor {
				return "not a socket"
			}
			return ""
		},
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			k, key, err := e.Store.CreateKey(t.Context(), store.NewKey{Account: "local", Name: "open", Scope: store.ScopeSpeech})
			if err != nil {
				t.Fatal(err)
			}
			tk := d.speak(t, e, caller{key: key, account: "local"}, "slow", strings.Repeat(longSlow, slowCount))
			firstAudio(t, tk)
			if _, err := e.Store.RevokeKey(t.Context(), "local", k.Prefix); err != nil {
				t.Fatal(err)
			}
			fails, done, end := readToEnd(t, tk)
			if done {
				t.Error("the utterance of the revoked key went on to its end")
			}
			if st := websocket.CloseStatus(end); st != websocket.StatusPolicyViolation {
				t.Errorf("closed with %v (%v), want 1008", st, end)
			}
			if len(fails) != 1 || fails[0].code != wire.CodeInvalidAPIKey {
				t.Errorf("errors %+v; want one, invalid_api_key", fails)
				return nil
			}
			return fails[0]
		},
	},
	{
		name: "over the rate limit", env: envWith(testserver.Options{Limits: store.Limits{RequestsPerMinute: 1}}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			who := e.newCaller(t, "rate-"+d.name)
			speaks(t, d, e, who, "fake", hello)
			f := refused(t, hear(t, d.speak(t, e, who, "fake", hello)), 429, wire.CodeRateLimit)
			if d.kind == httpDoor && f.retryAfter == "" {
				t.Error("no Retry-After")
			}
			return f
		},
	},
	{
		// One request of the account runs (a pcm stream of the slow
		// voice) when the door is asked.
		name: "over the concurrency limit", fresh: true, env: envWith(testserver.Options{Limits: store.Limits{Concurrent: 1}}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			who := e.newCaller(t, "busy-"+d.name)
			hold := openAIPCM.speak(t, e, who, "slow", strings.Repeat(longSlow, slowCount))
			firstAudio(t, hold)
			f := refused(t, hear(t, d.speak(t, e, who, "fake", hello)), 429, wire.CodeRateLimit)
			if d.kind == httpDoor && f.retryAfter == "" {
				t.Error("no Retry-After")
			}
			hold.leave()
			if !e.idle() {
				t.Fatal("the holding request still runs 10 s after its client left")
			}
			return f
		},
	},
	{
		// 25 s of pauses against a limit of 20 s.
		name: "over the audio limit", env: envWith(testserver.Options{Synth: func(o *tts.Options) { o.MaxAudio = 20 * time.Second }}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			h := hear(t, d.speak(t, e, e.me(), "en-us", "Hi."+strings.Repeat(" <|pause:5s|>", 5)+" Bye."))
			if h.fail == nil || h.fail.code != wire.CodeAudioTooLong || h.fail.status != 0 && h.fail.status != 400 {
				t.Fatalf("%+v; want audio_too_long", h)
			}
			return h.fail
		},
	},
	{
		name: "unknown voice", env: envWith(testserver.Options{}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			return refused(t, hear(t, d.speak(t, e, e.me(), "nobody", hello)), 404, wire.CodeVoiceNotFound)
		},
	},
	{
		// Another account's clone is answered word for word as the same
		// name is once no voice has it: the answer does not tell that it
		// exists.
		name: "another account's clone", env: envWith(testserver.Options{}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			f := refused(t, hear(t, d.speak(t, e, e.me(), "other-clone", hello)), 404, wire.CodeVoiceNotFound)
			clone, err := e.Catalog.Lookup("other", "other-clone")
			if err != nil {
				t.Fatal(err)
			}
			e.Catalog.Remove("other", "other-clone")
			unknown := refused(t, hear(t, d.speak(t, e, e.me(), "other-clone", hello)), 404, wire.CodeVoiceNotFound)
			if err := e.Catalog.Add(clone); err != nil {
				t.Fatal(err)
			}
			if f.body != unknown.body {
				t.Errorf("another account's clone:\n got %s\nwant %s (as no such voice)", f.body, unknown.body)
			}
			return f
		},
	},
	{
		// 150 characters without a sentence end against a limit of 100:
		// the error names the door's own field.
		name: "over-long input", env: envWith(testserver.Options{Synth: func(o *tts.Options) { o.MaxInput = 100 }}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			f := refused(t, hear(t, d.speak(t, e, e.me(), "en-us", strings.Repeat("word ", 30))), 400, wire.CodeStringTooLong)
			named := regexp.MustCompile(`\b` + d.field + `\b`)
			switch {
			case d.field == "input" && f.param != "input":
				t.Errorf("param %q, want input: %s", f.param, f.body)
			case d.field != "input" && (!named.MatchString(f.message) || regexp.MustCompile(`\binput\b`).MatchString(f.message)):
				t.Errorf("the message does not name the door's field %q (and not \"input\"): %s", d.field, f.message)
			}
			return f
		},
	},
	{
		// The engine fails at the second sentence, after the first was
		// sent: the answer must not look whole. A door says so in its
		// error shape (an SSE or socket event, or the whole answer of a
		// clip); a raw audio stream, whose status is sent, is cut.
		name: "engine fails mid-stream", env: envWith(testserver.Options{}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			h := hear(t, d.speak(t, e, e.me(), "faulty", "Hello there. Please FAIL now."))
			switch {
			case h.done:
				t.Errorf("the answer ended whole (%d bytes) though its synthesis failed", h.audio)
			case h.fail != nil:
				if h.fail.code != wire.CodeEngineError || h.fail.status != 0 && h.fail.status != http.StatusBadGateway {
					t.Errorf("error %s; want 502 engine_error", h.fail.body)
				}
				return h.fail
			case d.kind != httpDoor || d.events:
				t.Errorf("no engine_error; the answer ended with %v", h.end)
			}
			return nil
		},
	},
	{
		// A client that stops reading is cut off after the write timeout:
		// the request ends while the client reads nothing, and what the
		// client then reads stops short of the whole answer.
		name: "slow reader", fresh: true,
		env: envWith(testserver.Options{WriteTimeout: 200 * time.Millisecond}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			tk := d.speak(t, e, e.me(), "fake", bigAnswer)
			got := firstAudio(t, tk)
			if !e.cutOff() {
				t.Error("not cut off: the server holds a client that reads nothing, its synthesis stalled for 5 s")
			}
			h := hear(t, tk)
			got += h.audio
			whole := int(bigSeconds * 24000 * 2) // 16-bit, 24 kHz on every door
			t.Logf("%.2f MB of %.2f MB received", float64(got)/1e6, float64(whole)/1e6)
			if h.done || got >= whole/2 {
				t.Errorf("the answer reached the client whole (%d bytes, done %v): want it cut short", got, h.done)
			}
			if h.fail != nil {
				t.Errorf("error %s", h.fail.body)
			}
			return nil
		},
	},
	{
		// The client leaves after two sentences of a hundred: the
		// request ends, and the engine is asked for few more.
		name: "client gone mid-stream", fresh: true, env: envWith(testserver.Options{}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			before := len(e.Slow.Requests())
			tk := d.speak(t, e, e.me(), "slow", strings.Repeat(longSlow, slowCount))
			if !wait.For(10*time.Second, func() bool { return len(e.Slow.Requests())-before >= 2 }) {
				t.Fatal("the slow voice did not begin")
			}
			tk.leave()
			if !e.idle() {
				t.Error("the request still runs 10 s after its client left")
			}
			if n := len(e.Slow.Requests()) - before; n >= slowCount {
				t.Errorf("all %d sentences were rendered for a client that left", n)
			}
			return nil
		},
	},
	{
		// Server.Shutdown while an utterance of four sentences speaks:
		// an HTTP answer and voxkit's socket finish it; another socket
		// finishes it or closes with 1001 (going away); Wyoming ends its
		// connection between events. Shutdown returns.
		name: "shutdown drain", fresh: true, env: envWith(testserver.Options{}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			before := len(e.Slow.Requests())
			tk := d.speak(t, e, e.me(), "slow", "One. Two. Three. Four.")
			if !wait.For(10*time.Second, func() bool { return len(e.Slow.Requests()) > before }) {
				t.Fatal("the slow voice did not begin")
			}
			shut := make(chan error, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				shut <- e.Server.Shutdown(ctx)
			}()
			switch d.kind {
			case httpDoor:
				if h := hear(t, tk); !h.done || h.fail != nil {
					t.Errorf("the answer did not finish: %+v", h)
				}
			default:
				fails, done, end := readToEnd(t, tk)
				if len(fails) > 0 {
					t.Errorf("error %s", fails[0].body)
				}
				st := websocket.CloseStatus(end)
				t.Logf("finished %v; the connection ended with %v", done, end)
				switch {
				case d.kind == tcpDoor && !done && !errors.Is(end, io.EOF):
					t.Errorf("the connection ended mid-event: %v", end)
				case d.name == "openai-ws" && (!done || st != websocket.StatusGoingAway):
					t.Errorf("finished %v, closed with %v (%v); want speech.done, then 1001", done, st, end)
				case d.kind == socketDoor && !done && st != websocket.StatusGoingAway:
					t.Errorf("the utterance neither finished nor was the socket closed with 1001: %v (%v)", st, end)
				}
			}
			if err := <-shut; err != nil {
				t.Errorf("Shutdown: %v", err)
			}
			return nil
		},
	},
	{
		// One utterance is counted: its synthesis and gateway overhead
		// timed once, its audio added, under its format.
		name: "metrics recorded", env: envWith(testserver.Options{}),
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			before := e.speechMetrics(t, d.format)
			speaks(t, d, e, e.me(), "en-us", hello)
			after := e.counted(t, d.format, before)
			if after.synthesis != before.synthesis+1 || after.overhead != before.overhead+1 {
				t.Errorf("before %+v, after %+v; want one more synthesis and overhead timed", before, after)
			}
			return nil
		},
	},
	{
		// On a gateway (Options.Gateway) a synthesis's upstream time is
		// its engines' time: the metrics time it so on every door.
		name: "gateway timing", fresh: true, // sums from zero: the same times add to the same sum
		env: func(t *testing.T) *conformEnv { return newConformEnv(t, testserver.Options{}).gatewayTwin(t) },
		run: func(t *testing.T, d door, e *conformEnv) *failure {
			before := e.speechMetrics(t, d.format)
			speaks(t, d, e, e.me(), "en-us", hello)
			after := e.counted(t, d.format, before)
			synthesis, engine := after.synthesisSum-before.synthesisSum, after.engineSum-before.engineSum
			if synthesis != engine || after.overhead != before.overhead+1 {
				t.Errorf("synthesis %.6f s, engines %.6f s, overhead timed %d times; want the engines' time as synthesis, and the overhead timed",
					synthesis, engine, after.overhead-before.overhead)
			}
			return nil
		},
	},
}

// speechMetrics are the speech collectors of one format.
type speechMetrics struct {
	synthesis, overhead     uint64 // samples
	synthesisSum, engineSum float64
	audio                   float64
}

// counted waits until a synthesis of format more than before is
// counted (its audio, added last), and returns the metrics then.
func (e *conformEnv) counted(t *testing.T, format string, before speechMetrics) speechMetrics {
	t.Helper()
	var after speechMetrics
	if !wait.For(5*time.Second, func() bool {
		after = e.speechMetrics(t, format)
		return after.audio > before.audio
	}) {
		t.Fatalf("no synthesis counted: before %+v, after %+v", before, after)
	}
	// Read again: the read that saw the audio (which the server adds
	// last) may have read the histograms before their observations.
	return e.speechMetrics(t, format)
}

func (e *conformEnv) speechMetrics(t *testing.T, format string) speechMetrics {
	t.Helper()
	var m speechMetrics
	label := map[string]string{"format": format}
	for _, h := range testserver.Labelled(testserver.Gathered(t, e.reg, "voxkit_synthesis_seconds"), label) {
		m.synthesis += h.GetHistogram().GetSampleCount()
		m.synthesisSum += h.GetHistogram().GetSampleSum()
	}
	for _, h := range testserver.Labelled(testserver.Gathered(t, e.reg, "voxkit_engine_seconds"), label) {
		m.engineSum += h.GetHistogram().GetSampleSum()
	}
	for _, h := range testserver.Labelled(testserver.Gathered(t, e.reg, "voxkit_gateway_overhead_seconds"), label) {
		m.overhead += h.GetHistogram().GetSampleCount()
	}
	for _, c := range testserver.Labelled(testserver.Gathered(t, e.reg, "voxkit_audio_seconds_total"), label) {
		m.audio += c.GetCounter().GetValue()
	}
	return m
}

// TestDoorConformance runs every situation against every door; the
// errors they answer are compared with testdata/conformance_<door>.json.
func TestDoorConformance(t *testing.T) {
	t.Parallel() // its own servers, one per situation; no wall-clock bound
	var mu sync.Mutex
	bodies := map[string]map[string]string{}
	for _, d := range doors {
		bodies[d.name] = map[string]string{}
	}
	for _, s := range situations {
		t.Run(s.name, func(t *testing.T) {
			var shared *conformEnv
			if !s.fresh {
				shared = s.env(t)
			}
			for _, d := range doors {
				t.Run(d.name, func(t *testing.T) {
					if s.skip != nil {
						if why := s.skip(d); why != "" {
							t.Skip(why)
						}
					}
					e := shared
					if s.fresh {
						t.Parallel()
						e = s.env(t)
					}
					if f := s.run(t, d, e); f != nil {
						mu.Lock()
						bodies[d.name][s.name] = f.body
						mu.Unlock()
					}
				})
			}
		})
	}
	if f := flag.Lookup("test.run").Value.String(); strings.Contains(f, "/") && !strings.Contains(f, "golden") {
		return // part of the table ran: the golden files hold all of it
	}
	for _, d := range doors {
		t.Run("golden/"+d.name, func(t *testing.T) {
			testserver.CheckGolden(t, "testdata/conformance_"+d.name+".json", bodies[d.name])
		})
	}
}
