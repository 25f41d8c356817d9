package server

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/throttle"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// DefaultMaxBody is the largest request body accepted when Options.MaxBody
// is 0: 1 MiB. A larger body gets 413.
const DefaultMaxBody = 1 << 20

// DefaultReadTimeout is the time allowed to read a request body when
// Options.ReadTimeout is 0.
const DefaultReadTimeout = 30 * time.Second

// DefaultMaxVoicesPerAccount is the most voice clones an account may hold
// when Options.MaxVoicesPerAccount is 0.
const DefaultMaxVoicesPerAccount = 200

// DefaultMaxKeysPerAccount is the most live API keys an account may hold
// when Options.MaxKeysPerAccount is 0.
const DefaultMaxKeysPerAccount = 100

// DefaultKeyCheckTimeout is how long a request waits for the store to
// verify its API key when Options.KeyCheckTimeout is 0.
const DefaultKeyCheckTimeout = 5 * time.Second

// DefaultWriteTimeout is the time allowed for one write of a response when
// Options.WriteTimeout is 0.
const DefaultWriteTimeout = 30 * time.Second

// Options configure a Server.
type Options struct {
	// Synthesizer renders speech. Required. The server serves its voices
	// (Voices), formats (Formats) and input limit (MaxInput): there is no
	// second copy to disagree with it.
	Synthesizer *tts.Synthesizer
	// Store holds accounts, API keys and voice clones. The Server does not
	// close it. New adds the clones it holds to the Synthesizer's catalog
	// (those whose base voice it has). Without a Store there are no API
	// keys, accounts or clones: the /v1/keys, /v1/voices and /v1/accounts
	// routes do not exist (404), and requests are admitted by Authenticate.
	Store store.Store
	// Authenticate, if set, admits requests by the host application's own
	// credentials (a session cookie, its own tokens). It returns the
	// account of r, which may then do everything an admin key may; "" and
	// no error to leave r to the API keys of Store (when there is one);
	// or an error to refuse r with a 401 whose message is the error's
	// text. The WebSocket calls it at the handshake and again before each
	// request of the session.
	Authenticate func(r *http.Request) (account string, err error)
	// Aliases maps extra voice names to catalog voice ids. nil means
	// DefaultAliases (the OpenAI voice names, so unmodified SDK samples
	// work); an empty map means none. Aliases of voices the catalog does
	// not have are dropped (and logged). A catalog voice of the same id
	// wins over an alias.
	Aliases map[string]string
	// MaxBody is the largest request body in bytes; 0 means
	// DefaultMaxBody.
	MaxBody int64
	// ReadTimeout bounds the time to read a request body, so a client
	// sending it byte by byte cannot hold a connection; 0 means
	// DefaultReadTimeout, negative means none. It does not limit the
	// response.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of a response (every sentence of a
	// stream gets its own), so a client that stops reading cannot hold a
	// handler; 0 means DefaultWriteTimeout, negative means none.
	WriteTimeout time.Duration
	// ElevenLabs serves the ElevenLabs-compatible API under /elevenlabs
	// (an ElevenLabs SDK's base URL is then http://host:port/elevenlabs):
	// voices, text-to-speech with its stream and timestamp forms, and the
	// stream-input and multi-stream-input WebSockets, with voxkit's keys
	// in xi-api-key. See docs/agents.md.
	ElevenLabs bool
	// Cartesia serves the Cartesia-compatible API under /cartesia (a
	// Cartesia SDK's base URL is then http://host:port/cartesia): voices,
	// /tts/bytes, /tts/sse and the /tts/websocket with its contexts,
	// with voxkit's keys in X-API-Key or Authorization. See
	// docs/agents.md.
	Cartesia bool
	// KeyCheckTimeout bounds the store's check of a request's API key:
	// past it the request is refused with 503 (and any work begun for
	// it is dropped), so a stalled store cannot hold requests and their
	// connections. 0 means DefaultKeyCheckTimeout.
	KeyCheckTimeout time.Duration
	// MaxVoicesPerAccount is the most voice clones one account may hold;
	// 0 means DefaultMaxVoicesPerAccount.
	MaxVoicesPerAccount int
	// MaxKeysPerAccount is the most live API keys one account may hold;
	// 0 means DefaultMaxKeysPerAccount.
	MaxKeysPerAccount int
	// AllowSignup lets anyone create an account (and its first key) with
	// POST /v1/accounts, from the playground's "create account" form.
	// Off by default: accounts are then made by the operator.
	AllowSignup bool
	// DisablePlayground turns off the web playground at "/".
	DisablePlayground bool
	// WSIdleTimeout ends an authenticated WebSocket session that has had
	// no message from the client and no work in progress for that long;
	// 0 means DefaultWSIdleTimeout, negative means none.
	WSIdleTimeout time.Duration
	// SocketAuthTimeout is how long a WebSocket opened without credentials
	// (voxkit's, whose first message is then its auth message, or
	// ElevenLabs', whose first message then carries xi_api_key) has to
	// send its key before it is closed with 1008; 0 or less means
	// DefaultSocketAuthTimeout.
	SocketAuthTimeout time.Duration
	// KeyRecheckInterval is how often every open WebSocket checks the
	// credentials that admitted it again (it also does before each request
	// or context it opens): a key revoked meanwhile ends the socket with an
	// error and close code 1008. 0 or less means
	// DefaultKeyRecheckInterval.
	KeyRecheckInterval time.Duration
	// TrustedProxies are the addresses of the reverse proxies in front of
	// the server (a TLS-terminating one, say). From a peer among them the
	// server believes X-Forwarded-For (the client's address, by which
	// sign-ins are throttled) and X-Forwarded-Proto (https: the session
	// cookie is Secure). Empty: both headers are ignored.
	TrustedProxies []netip.Prefix
	// WebSocketOrigins are host patterns (path.Match syntax) of other
	// origins allowed to open the WebSocket; the server's own origin
	// always is.
	WebSocketOrigins []string
	// Limits bound each account's speech requests (per minute, at once);
	// over them a request gets 429 rate_limit_exceeded with Retry-After.
	// The zero value limits nothing. When Store is a store.Limiter the
	// counts are kept there, shared by every server on the store;
	// otherwise in this process.
	Limits store.Limits
	// MaxQueue is how many pieces of text may wait for a render slot
	// (tts.Options.MaxParallel) before new speech requests are refused
	// with 503 server_busy; 0 means DefaultMaxQueue, negative none.
	MaxQueue int
	// Gateway marks a server whose engines are other servers (package
	// server/upstream): x-upstream-ms (and upstream_ms) then report the
	// time spent in those workers as the gateway saw it (the engines'
	// time) rather than all of synthesis.
	Gateway bool
	// Ready, if set, is one more condition of Server.Ready and /readyz
	// (for a gateway: at least one healthy worker).
	Ready func(context.Context) error
	// WyomingMaxConns is the most Wyoming connections ServeWyoming holds
	// at once; one over it gets an error event (server_busy) and is
	// closed. 0 means DefaultWyomingMaxConns, negative none.
	WyomingMaxConns int
	// WyomingEventTimeout bounds the time from the first byte of a
	// Wyoming event to its last, so a half-sent event cannot hold a
	// connection; 0 means DefaultWyomingEventTimeout.
	WyomingEventTimeout time.Duration
	// Metrics, if set, receives the server's Prometheus collectors
	// (requests, synthesis and overhead latencies, audio produced, render
	// slots; see docs/server.md "Metrics"). Serve it on a listener of its
	// own: the server does not expose it.
	Metrics prometheus.Registerer
	// Logger receives one line per request and the errors; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Server is the HTTP API. It is an http.Handler, safe for concurrent use.
type Server struct {
	synth    *tts.Synthesizer
	voices   *voices.Catalog
	store    store.Store
	logins   store.Sessions     // the store's, nil if it keeps none
	attempts *throttle.Throttle // sign-in and sign-up attempts
	hashing  chan struct{}      // bounds concurrent password hashing
	// hashWaiting counts the attempts waiting for hashing (maxHashQueue).
	hashWaiting atomic.Int64
	auth        []authenticator // the optional providers, asked in turn (auth.go)
	keys        *keyAuth        // asked when none of auth claims a request
	host        hostAuth        // Options.Authenticate, the first of auth; nil if none
	formats     *encode.Registry
	aliases     map[string]string
	maxBody     int64
	readTime    time.Duration
	writeTime   time.Duration
	keyCheck    time.Duration
	wsIdle      time.Duration
	socketAuth  time.Duration // Options.SocketAuthTimeout
	recheckGap  time.Duration // Options.KeyRecheckInterval
	maxKeys     int
	maxVoices   int
	voiceMu     sync.Mutex // serializes clone changes to the store and catalog
	signup      bool
	origins     []string
	proxies     []netip.Prefix
	log         *slog.Logger
	metrics     *metrics // nil: none
	limits      store.Limits
	limiter     store.Limiter
	maxQueue    int
	gateway     bool
	ready       func(context.Context) error
	wyoming     *wyomingLimits
	mux         *http.ServeMux

	// closing is cancelled by Shutdown; WebSocket sessions watch it.
	closing  context.Context
	shutdown context.CancelFunc
	sessions sync.WaitGroup
	// watching counts the goroutine following the store's clone changes
	// (store.VoiceWatcher), which ends with closing.
	watching sync.WaitGroup
}

var _ http.Handler = (*Server)(nil)

// New returns a Server.
func New(opts Options) (*Server, error) {
	if opts.Synthesizer == nil {
		return nil, errors.New("server: Options.Synthesizer is required")
	}
	if opts.Store == nil && opts.Authenticate == nil {
		return nil, errors.New("server: Options needs a Store (for API keys) or an Authenticate hook")
	}
	s := &Server{
		synth:     opts.Synthesizer,
		voices:    opts.Synthesizer.Voices(),
		store:     opts.Store,
		attempts:  throttle.New(),
		hashing:   make(chan struct{}, maxHashing),
		formats:   opts.Synthesizer.Formats(),
		aliases:   make(map[string]string, len(opts.Aliases)),
		maxBody:   opts.MaxBody,
		readTime:  opts.ReadTimeout,
		writeTime: opts.WriteTimeout,
		keyCheck:  cmp.Or(opts.KeyCheckTimeout, DefaultKeyCheckTimeout),
		wsIdle:    opts.WSIdleTimeout,
		maxKeys:   cmp.Or(opts.MaxKeysPerAccount, DefaultMaxKeysPerAccount),
		maxVoices: cmp.Or(opts.MaxVoicesPerAccount, DefaultMaxVoicesPerAccount),
		signup:    opts.AllowSignup,
		origins:   slices.Clone(opts.WebSocketOrigins),
		proxies:   slices.Clone(opts.TrustedProxies),
		log:       opts.Logger,
		mux:       http.NewServeMux(),
	}
	if s.log == nil { // before the aliases, which may warn
		s.log = slog.Default()
	}
	aliases := opts.Aliases
	if aliases == nil {
		aliases = DefaultAliases()
	}
	for name, id := range aliases {
		if _, err := s.voices.Lookup("", id); err != nil {
			s.log.Warn("server: alias of a voice the catalog lacks, dropped", "alias", name, "voice", id)
			continue
		}
		s.aliases[name] = id
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBody
	}
	if s.readTime == 0 {
		s.readTime = DefaultReadTimeout
	}
	if s.writeTime == 0 {
		s.writeTime = DefaultWriteTimeout
	}
	s.socketAuth, s.recheckGap = opts.SocketAuthTimeout, opts.KeyRecheckInterval
	if s.socketAuth <= 0 {
		s.socketAuth = DefaultSocketAuthTimeout
	}
	if s.recheckGap <= 0 {
		s.recheckGap = DefaultKeyRecheckInterval
	}
	switch {
	case s.wsIdle == 0:
		s.wsIdle = DefaultWSIdleTimeout
	case s.wsIdle < 0:
		s.wsIdle = math.MaxInt64 // none
	}
	s.logins, _ = s.store.(store.Sessions)
	s.keys = &keyAuth{store: s.store, timeout: s.keyCheck, log: s.log}
	if opts.Authenticate != nil {
		s.host = hostAuth(opts.Authenticate)
		s.auth = append(s.auth, s.host)
	}
	if s.logins != nil {
		s.auth = append(s.auth, sessionAuth{s})
	}
	s.limits = opts.Limits
	s.gateway, s.ready = opts.Gateway, opts.Ready
	s.wyoming = newWyomingLimits(opts.WyomingMaxConns, opts.WyomingEventTimeout)
	if l, ok := s.store.(store.Limiter); ok {
		s.limiter = l
	} else {
		s.limiter = throttle.NewLimiter()
	}
	switch s.maxQueue = opts.MaxQueue; {
	case s.maxQueue == 0:
		s.maxQueue = DefaultMaxQueue
	case s.maxQueue < 0:
		s.maxQueue = math.MaxInt
	}
	if opts.Metrics != nil {
		m, err := newMetrics(opts.Metrics, s.synth)
		if err != nil {
			return nil, fmt.Errorf("server: registering metrics: %w", err)
		}
		s.metrics = m
	}
	if s.store != nil {
		if err := s.loadVoices(context.Background()); err != nil {
			return nil, fmt.Errorf("server: loading voice clones: %w", err)
		}
	}
	s.closing, s.shutdown = context.WithCancel(context.Background())
	if w, ok := s.store.(store.VoiceWatcher); ok {
		s.watching.Go(func() { w.WatchVoices(s.closing, s.voiceChanged) })
	}

	s.route("/v1/audio/speech", methods{http.MethodPost: s.authedAlongside(store.ScopeSpeech, s.speech)})
	s.route("/v1/audio/speech/ws", methods{http.MethodGet: s.websocket})
	s.route("/v1/models", methods{http.MethodGet: s.authed(store.ScopeSpeech, s.listModels)})
	s.route("/v1/models/{id}", methods{http.MethodGet: s.authed(store.ScopeSpeech, s.getModel)})
	s.route("/v1/account", methods{http.MethodGet: s.authed(store.ScopeSpeech, s.getAccount)})
	s.route("/v1/tags", methods{http.MethodGet: s.listTags})
	s.route("/v1/normalize", methods{http.MethodGet: s.authed(store.ScopeSpeech, s.normalizeText)})
	if opts.ElevenLabs {
		s.elevenRoutes()
	}
	if opts.Cartesia {
		s.cartesiaRoutes()
	}
	s.route("/healthz", methods{http.MethodGet: s.healthz})
	s.route("/readyz", methods{http.MethodGet: s.readyz})
	if s.logins == nil {
		s.route("/v1/session", methods{http.MethodGet: s.getSession})
	} else {
		s.route("/v1/session", methods{http.MethodGet: s.getSession, http.MethodPost: s.signIn, http.MethodDelete: s.signOut})
		s.route("/v1/account/password", methods{http.MethodPost: s.authed(store.ScopeAdmin, s.changePassword)})
	}
	if s.store != nil {
		s.route("/v1/accounts", methods{http.MethodPost: s.createAccount})
		s.route("/v1/keys", methods{http.MethodGet: s.authed(store.ScopeAdmin, s.listKeys), http.MethodPost: s.authed(store.ScopeAdmin, s.createKey)})
		s.route("/v1/keys/{prefix}", methods{http.MethodDelete: s.authed(store.ScopeAdmin, s.revokeKey)})
		s.route("/v1/voices", methods{http.MethodGet: s.authed(store.ScopeAdmin, s.listVoices), http.MethodPost: s.authed(store.ScopeAdmin, s.createVoice)})
		s.route("/v1/voices/{id}", methods{http.MethodGet: s.authed(store.ScopeAdmin, s.getVoice), http.MethodDelete: s.authed(store.ScopeAdmin, s.deleteVoice)})
	}
	if !opts.DisablePlayground {
		s.route("/{$}", methods{http.MethodGet: s.playground})
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, wire.NotFound(r.Method, r.URL.Path))
	})
	return s, nil
}

// OpenAIVoiceNames returns the built-in voice names of OpenAI's speech
// endpoint, which SDK samples use; DefaultAliases maps them to real
// voices.
func OpenAIVoiceNames() []string {
	return []string{"alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse", "marin", "cedar"}
}

// DefaultAliases returns the aliases a Server has when Options.Aliases is
// nil: each OpenAI voice name (OpenAIVoiceNames) to an English espeak-ng
// voice, a variety of accents so that they sound apart. Copy and change
// it to map them to other voices (Piper or Kokoro ones, say).
func DefaultAliases() map[string]string {
	return map[string]string{
		"alloy": "en-us", "ash": "en-gb", "ballad": "en-gb-scotland", "coral": "en-us-nyc",
		"echo": "en-gb-x-rp", "fable": "en-gb-x-gbclan", "onyx": "en-029", "nova": "en-gb-x-gbcwmd",
		"sage": "en-us", "shimmer": "en-gb", "verse": "en-gb-x-rp", "marin": "en-us-nyc", "cedar": "en-029",
	}
}

// Shutdown ends the WebSocket sessions — each finishes the utterance in
// progress and is closed with status 1001 — and stops following the
// store's clone changes (store.VoiceWatcher), and waits for both or for
// ctx. Once it has returned nil, only requests still being served call
// the store.
// http.Server.Shutdown does not track hijacked connections; call both.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutdown()
	done := make(chan struct{})
	go func() { s.sessions.Wait(); s.watching.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// handler serves a route: it writes the answer, or returns the error to
// answer with — a *wire.Error as it is, any other error as a logged 500 —
// so that one place (fail) turns errors into responses.
type handler func(http.ResponseWriter, *http.Request) error

// methods maps HTTP methods to handlers for one path.
type methods map[string]handler

// route registers path with its own method dispatch, so that a wrong
// method gets a JSON 405 with Allow rather than falling through to 404.
func (s *Server) route(path string, m methods) {
	s.doorRoute(path, m, func(w http.ResponseWriter, _ *http.Request, e *wire.Error) { writeError(w, e) })
}

// doorRoute is route for a door that answers errors in a shape of its
// own (a vendor's): answer writes its 405.
func (s *Server) doorRoute(path string, m methods, answer func(http.ResponseWriter, *http.Request, *wire.Error)) {
	if get, ok := m[http.MethodGet]; ok {
		m[http.MethodHead] = get // net/http discards the body of a HEAD answer
	}
	allow := make([]string, 0, len(m))
	for k := range m {
		allow = append(allow, k)
	}
	slices.Sort(allow)
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		h, ok := m[r.Method]
		if !ok && r.Method == http.MethodOptions {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if !ok {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			answer(w, r, wire.MethodNotAllowed(r.Method, r.URL.Path, allow))
			return
		}
		info(r.Context()).route = path
		if err := h(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
}

// reqInfo is what the middleware knows about a request.
type reqInfo struct {
	id      string
	start   time.Time
	account string
	route   string  // the pattern it was routed by, "" for none
	format  string  // the audio format of a speech request
	timing  *timing // a finished synthesis's, set with its timing headers
	// abort, if set, is why a response already under way (a WebSocket
	// session) was cut: the access log reports it aborted.
	abort error
}

type ctxKey struct{}

func info(ctx context.Context) *reqInfo {
	if ri, ok := ctx.Value(ctxKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{start: time.Now()}
}

// RequestID returns the id of the request being served by ctx, "" outside
// a request. It is also sent as the x-request-id header.
func RequestID(ctx context.Context) string { return info(ctx).id }

// ServeHTTP implements http.Handler: request id, panic recovery and the
// access log around the routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ri := &reqInfo{id: requestID(r), start: time.Now()}
	w.Header().Set("x-request-id", ri.id)
	if cors(w, r) {
		return
	}
	r, clean := cleanPath(r)
	rec := &recorder{ResponseWriter: w}
	r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, ri))
	s.metrics.begin()
	defer func() {
		p := recover()
		abort := p == http.ErrAbortHandler
		if p != nil && !abort {
			s.log.Error("server: panic", "request_id", ri.id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if rec.status == 0 {
				writeError(rec, wire.Internal(ri.id))
			} else {
				abort = true // too late for a status: cut the response
			}
		}
		status := rec.status
		if abort && status == 0 {
			status = http.StatusInternalServerError
		}
		// A response the client did not get whole: a write failed (the
		// write deadline passed, the connection broke) or the client went
		// away before the handler finished.
		cut := rec.writeErr != nil || r.Context().Err() != nil || ri.abort != nil
		if cut && status == 0 {
			status = statusClientClosed
		}
		attrs := []any{"request_id", ri.id, "method", r.Method, "path", r.URL.Path, "status", status,
			"bytes", rec.bytes, "ms", ms(time.Since(ri.start)), "account", ri.account, "aborted", abort || cut}
		if cut {
			cause := context.Cause(r.Context())
			switch {
			case rec.writeErr != nil:
				cause = rec.writeErr
			case ri.abort != nil:
				cause = ri.abort
			}
			attrs = append(attrs, "abort_reason", cause.Error())
		}
		level := slog.LevelInfo
		if probe(r) {
			level = slog.LevelDebug
		}
		s.log.Log(context.Background(), level, "request", attrs...)
		s.metrics.end()
		s.metrics.served(r, ri, status, rec.firstByte)
		if abort {
			panic(http.ErrAbortHandler)
		}
	}()
	if !clean {
		writeError(rec, wire.NotFound(r.Method, r.URL.EscapedPath()))
		return
	}
	s.mux.ServeHTTP(rec, r)
}

// timing is what a finished speech response reported in its timing
// headers.
type timing struct {
	res     tts.Result
	gateway time.Duration
}

// cors lets pages on other origins call the API, as OpenAI's does: the
// credential is a bearer key, never a cookie, so any origin is safe. It
// answers a preflight request itself and reports whether it did.
func cors(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Origin") == "" {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "x-request-id, x-upstream-ms, x-engine-ms, x-gateway-ms, x-voice-load-ms, x-ignored-tags, x-clamped-tags")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, DELETE")
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		h.Set("Access-Control-Allow-Headers", req)
	}
	h.Set("Access-Control-Max-Age", "86400")
	h.Add("Vary", "Access-Control-Request-Headers")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// cleanPath serves "//v1/audio/speech" as its clean form instead of
// letting ServeMux answer it with a bodiless redirect. ok is false for a
// path with a dot segment ("/v1/audio/speech/../../keys", "/v1/./models")
// or an encoded slash, backslash or dot ("%2F", "%5C", "%2E"): resolved,
// those would name another route than the one a proxy in front, which
// routes on the path as sent, allowed ("/v1/audio/speech/../../keys" is
// not /v1/keys). Such a path names no route: 404.
func cleanPath(r *http.Request) (_ *http.Request, ok bool) {
	if raw := strings.ToLower(r.URL.EscapedPath()); strings.Contains(raw, "%2f") ||
		strings.Contains(raw, "%5c") || strings.Contains(raw, "%2e") {
		return r, false
	}
	p := r.URL.Path
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "." || seg == ".." {
			return r, false
		}
	}
	c := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	if c == p {
		return r, true
	}
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = c, ""
	r2.URL = &u
	return r2, true
}

// requestID takes the client's X-Request-Id when it is short and plain,
// else makes one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 128 && strings.Trim(id,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") == "" {
		return id
	}
	var b [12]byte
	rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}

// statusClientClosed is logged for a request whose client went away
// before any response was sent (nginx's 499); it is never sent.
const statusClientClosed = 499

// recorder notes the status and size of a response, and the first write
// that failed. Unwrap lets http.ResponseController and the WebSocket
// upgrade reach the connection.
type recorder struct {
	http.ResponseWriter
	status    int
	bytes     int64
	writeErr  error
	firstByte time.Time // of the body
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.firstByte.IsZero() && len(p) > 0 {
		r.firstByte = time.Now()
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	return n, err
}

func (r *recorder) Flush() { r.FlushError() }

// FlushError flushes, noting a failure like a failed write; the
// ResponseController of a handler calls it.
func (r *recorder) FlushError() error {
	err := http.NewResponseController(r.ResponseWriter).Flush()
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	return err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// ms formats a duration as milliseconds with microsecond precision, the
// form of x-upstream-ms and x-gateway-ms.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}

// probe reports whether r is a health check: GET /healthz or /readyz, or
// a request marked with wire.HeaderProbe (a gateway's).
func probe(r *http.Request) bool {
	return r.Method == http.MethodGet && (r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || r.Header.Get(wire.HeaderProbe) != "")
}

// writeError sends e as JSON with its status, and e.RetryAfter.
func writeError(w http.ResponseWriter, e *wire.Error) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	writeJSON(w, e.Status, e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("server: " + err.Error()) // our own types always marshal
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// fail answers err: a *wire.Error as it is, anything else as a 500 whose
// cause is logged with the request id.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var we *wire.Error
	if errors.As(err, &we) {
		writeError(w, we)
		return
	}
	s.log.Error("server: internal error", "request_id", RequestID(r.Context()), "err", err)
	writeError(w, wire.Internal(RequestID(r.Context())))
}
