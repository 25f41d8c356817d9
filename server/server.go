package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/admin"
	"github.com/voxkit/voxkit/server/internal/cartesia"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/elevenlabs"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/internal/openai"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/socket"
	"github.com/voxkit/voxkit/server/internal/sockets"
	"github.com/voxkit/voxkit/server/internal/wyoming"
)

// Server is the HTTP API. It is an http.Handler, safe for concurrent use.
type Server struct {
	aliases map[string]string // as New kept them
	core    *core.Core
	mux     *http.ServeMux
	ready   func(context.Context) error
	wyoming *wyoming.Door
	jobs    *runner.Runner // nil without Options.Jobs
}

var _ http.Handler = (*Server)(nil)

// New returns a Server for opts: an http.Handler serving the OpenAI-
// compatible API (/v1/audio/speech, /v1/models, /v1/voices, ...), voxkit's
// WebSocket, the playground at / and, as opts asks, the ElevenLabs and
// Cartesia doors, all routed on their own ServeMux (mount it under a
// prefix with http.StripPrefix). opts.Synthesizer is required, and so is
// a Store (API keys, accounts, clones, lexicons), an Authenticate hook
// (the host application's own sign-in), or both; zero values of the other
// fields take the Default constants. New reads the Store's clones into the
// Synthesizer's catalog and checks opts.Aliases against it (an alias of a
// voice the catalog lacks is logged and dropped). It loads no model and
// starts no listener: call ServeHTTP through an http.Server, and Shutdown
// when it stops. Closing the Synthesizer and the Store is the caller's.
func New(opts Options) (*Server, error) {
	if opts.Synthesizer == nil {
		return nil, errors.New("server: Options.Synthesizer is required")
	}
	if opts.Store == nil && opts.Authenticate == nil {
		return nil, errors.New("server: Options needs a Store (for API keys) or an Authenticate hook")
	}
	if opts.DefaultFormat != "" {
		if _, err := opts.Synthesizer.Codec(encode.Format{Name: opts.DefaultFormat}); err != nil {
			return nil, fmt.Errorf("server: Options.DefaultFormat: %w", err)
		}
	}
	log := cmp.Or(opts.Logger, slog.Default())
	catalog := opts.Synthesizer.Voices()
	aliases := opts.Aliases
	if aliases == nil {
		aliases = DefaultAliases()
	}
	checked := make(map[string]string, len(aliases))
	for name, id := range aliases {
		if _, err := catalog.Lookup("", id); err != nil {
			if opts.Store == nil {
				log.Warn("server: alias of a voice the catalog lacks, dropped (there are no clones without a store)", "alias", name, "voice", id)
				continue
			}
			// A clone's id: clones are each account's, made at any time,
			// so the alias is resolved at each request (Core.Resolve).
			log.Info("server: alias of no global voice, taken as each account's clone of that id", "alias", name, "voice", id)
		}
		checked[name] = id
	}
	cfg := core.Config{
		Synth:               opts.Synthesizer,
		Store:               opts.Store,
		Host:                opts.Authenticate,
		Aliases:             checked,
		DefaultFormat:       opts.DefaultFormat,
		Log:                 log,
		MaxBody:             opts.MaxBody,
		ReadTimeout:         opts.ReadTimeout,
		WriteTimeout:        opts.WriteTimeout,
		KeyCheck:            cmp.Or(opts.KeyCheckTimeout, DefaultKeyCheckTimeout),
		SocketIdle:          opts.WSIdleTimeout,
		SocketAuth:          opts.SocketAuthTimeout,
		RecheckGap:          opts.KeyRecheckInterval,
		MaxVoices:           cmp.Or(opts.MaxVoicesPerAccount, DefaultMaxVoicesPerAccount),
		MaxLexicons:         cmp.Or(opts.MaxLexiconsPerAccount, DefaultMaxLexiconsPerAccount),
		VoiceLoadsPerMinute: cmp.Or(opts.VoiceLoadsPerMinute, DefaultVoiceLoadsPerMinute),
		Origins:             slices.Clone(opts.WebSocketOrigins),
		Limits:              opts.Limits,
		MaxQueue:            opts.MaxQueue,
		Gateway:             opts.Gateway,
		Metrics:             opts.Metrics,
		MaxUploads:          cmp.Or(opts.MaxUploadsPerAccount, DefaultMaxUploadsPerAccount),
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.SocketAuth <= 0 {
		cfg.SocketAuth = DefaultSocketAuthTimeout
	}
	if cfg.RecheckGap <= 0 {
		cfg.RecheckGap = DefaultKeyRecheckInterval
	}
	switch {
	case cfg.SocketIdle == 0:
		cfg.SocketIdle = DefaultWSIdleTimeout
	case cfg.SocketIdle < 0:
		cfg.SocketIdle = math.MaxInt64 // none
	}
	switch {
	case opts.CrashCooldown == 0:
		cfg.CrashCooldown = DefaultCrashCooldown
	case opts.CrashCooldown > 0:
		cfg.CrashCooldown = opts.CrashCooldown
	}
	switch {
	case cfg.MaxQueue == 0:
		cfg.MaxQueue = DefaultMaxQueue
	case cfg.MaxQueue < 0:
		cfg.MaxQueue = math.MaxInt
	}
	cfg.LexiconStorage = max(0, cmp.Or(opts.LexiconStoragePerAccount, DefaultLexiconStoragePerAccount)) // negative: none
	c, err := core.New(cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{
		aliases: checked,
		core:    c,
		mux:     http.NewServeMux(),
		ready:   opts.Ready,
		wyoming: wyomingDoor(c, opts),
	}
	s.routes(opts)
	if err := s.mountJobs(opts); err != nil {
		c.Shutdown(context.Background())
		return nil, err
	}
	return s, nil
}

// routes mounts the doors on the mux.
func (s *Server) routes(opts Options) {
	c := s.core
	handle := func(path string, m route.Methods) { route.Route(s.mux, c.Log, path, m) }
	openai.Mount(s.mux, openai.Rooms{Speech: c, Auth: c.Auth, Voices: c.Catalog, Lexicons: c.Lexicons, Text: c.Synth,
		Aliases: c.Aliases, DefaultFormat: c.DefaultFormat, Log: c.Log, Body: c.Body})
	rt := sockets.New(c)
	socket.Mount(s.mux, socket.Rooms{Speech: c, Sockets: rt, Auth: c.Auth, Voices: c.Catalog, Log: c.Log})
	if opts.ElevenLabs {
		elevenlabs.Mount(s.mux, elevenlabs.Rooms{Speech: c, Sockets: rt, Auth: c.Auth, Voices: c.Catalog, Lexicons: c.Lexicons,
			Store: c.Store, Log: c.Log, Body: c.Body})
	}
	if opts.Cartesia {
		cartesia.Mount(s.mux, cartesia.Rooms{Speech: c, Sockets: rt, Auth: c.Auth, Voices: c.Catalog, Lexicons: c.Lexicons,
			Store: c.Store, Log: c.Log, Body: c.Body})
	}
	handle("/healthz", route.Methods{http.MethodGet: s.healthz})
	handle("/readyz", route.Methods{http.MethodGet: s.readyz})
	admin.Mount(s.mux, admin.Rooms{Auth: c.Auth, Logins: c.Auth.Logins, Store: c.Store, Voices: c.Catalog, Lexicons: c.Lexicons,
		Log: c.Log, Body: c.Body}, admin.Options{MaxKeys: cmp.Or(opts.MaxKeysPerAccount, DefaultMaxKeysPerAccount),
		Signup: opts.AllowSignup, Proxies: opts.TrustedProxies, Playground: !opts.DisablePlayground})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		respond.WriteError(w, fault.NotFound(r.Method, r.URL.Path))
	})
}

// Aliases returns the voice aliases the Server serves: Options.Aliases
// (or DefaultAliases) less those New dropped. An alias of a voice that is
// not a global voice of the catalog, kept when there is a Store, names
// each account's clone of that id, looked up at each request.
func (s *Server) Aliases() map[string]string { return maps.Clone(s.aliases) }

// ServeHTTP implements http.Handler: the core's middleware (request id,
// panic recovery, the access log) around the doors' routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.core.Handle(w, r, s.mux)
}

// RequestID returns the id of the request being served by ctx, "" outside
// a request. It is also sent as the x-request-id header.
func RequestID(ctx context.Context) string { return route.RequestID(ctx) }

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

// Shutdown stops the long-form jobs' workers (Options.Jobs: a segment
// being rendered goes back to the queue, for this server's next start or
// another replica) and ends their event streams, ends the WebSocket
// sessions — each finishes the utterance in progress and is closed with
// status 1001 — and stops following the store's clone changes
// (store.VoiceWatcher), and waits for both or for ctx. Once it has
// returned nil, only requests still being served call the store.
// http.Server.Shutdown does not track hijacked connections, and waits
// for event streams: call both at once.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	if s.jobs != nil {
		err = s.jobs.Stop(ctx) // the segments rendering go back to the queue
	}
	return errors.Join(err, s.core.Shutdown(ctx))
}

// DefaultMaxQueue is how many pieces of text may wait for a render slot
// when Options.MaxQueue is 0.
const DefaultMaxQueue = 64

// DefaultCrashCooldown is how long an account whose requests keep
// crashing engines is refused speech when Options.CrashCooldown is 0.
const DefaultCrashCooldown = 30 * time.Second

// CrashesPerMinute is how many engine crashes one account's requests may
// cause within a minute before its cooldown (Options.CrashCooldown).
const CrashesPerMinute = core.CrashesPerMinute

// DefaultWSIdleTimeout is how long an authenticated WebSocket session may
// stay without a message from the client and without work in progress
// when Options.WSIdleTimeout is 0.
const DefaultWSIdleTimeout = 5 * time.Minute

// DefaultSocketAuthTimeout is how long a WebSocket opened without
// credentials has to send its key when Options.SocketAuthTimeout is 0.
const DefaultSocketAuthTimeout = 10 * time.Second

// DefaultKeyRecheckInterval is how often an open WebSocket checks its
// credentials again when Options.KeyRecheckInterval is 0.
const DefaultKeyRecheckInterval = 5 * time.Second

// DefaultMaxBufferDelay is how long text of an input stream that does not
// end a sentence waits for more before it is spoken, when the client
// names no delay (voxkit's max_buffer_delay_ms, Cartesia's).
const DefaultMaxBufferDelay = core.DefaultBufferDelay

// DefaultWSContextIdle is how long an input stream may go without an
// input message before it is closed with an idle_timeout error; a shorter
// Options.WSIdleTimeout shortens it.
const DefaultWSContextIdle = core.DefaultStreamIdle

// SessionCookie is the name of the playground's sign-in cookie.
const SessionCookie = credentials.SessionCookie

// SessionLifetime is how long a sign-in lasts.
const SessionLifetime = admin.SessionLifetime

// DefaultWyomingMaxConns is the most Wyoming connections held at once
// when Options.WyomingMaxConns is 0: far more than Home Assistant opens
// (one per synthesis), few enough that what they may hold is bounded (an
// idle connection costs about 10 KiB; one reading an event at most its
// header line and data, 1.1 MiB, for at most the event timeout).
const DefaultWyomingMaxConns = 256

// DefaultWyomingEventTimeout is the time a Wyoming event may take from
// its first byte to its last when Options.WyomingEventTimeout is 0.
const DefaultWyomingEventTimeout = 10 * time.Second

// wyomingDoor is the Wyoming door of c, with the limits of opts.
func wyomingDoor(c *core.Core, opts Options) *wyoming.Door {
	maxConns := opts.WyomingMaxConns
	switch {
	case maxConns == 0:
		maxConns = DefaultWyomingMaxConns
	case maxConns < 0:
		maxConns = 0 // none
	}
	maxPeer := opts.WyomingMaxPeerConns
	switch {
	case maxPeer == 0 && maxConns > 0:
		maxPeer = max(1, maxConns/WyomingPeerShare)
	case maxPeer < 0:
		maxPeer = 0 // none
	}
	eventTimeout := opts.WyomingEventTimeout
	if eventTimeout <= 0 {
		eventTimeout = DefaultWyomingEventTimeout
	}
	return wyoming.New(wyoming.Rooms{Core: c, Voices: c.Catalog, Log: c.Log, Idle: c.SocketIdle, WriteTimeout: c.WriteTimeout}, maxConns, maxPeer, eventTimeout)
}

// WyomingPeerShare divides Options.WyomingMaxConns into the most
// connections one peer address may hold when Options.WyomingMaxPeerConns
// is 0: a quarter (64 of the default 256, far more than Home Assistant
// opens), so that one client filling its share leaves room for others.
const WyomingPeerShare = 4

// ServeWyoming serves Home Assistant's Wyoming protocol on l: describe
// (the voices of account, which may be "" for the global voices only),
// synthesize, and streaming synthesis (synthesize-start, -chunk, -stop).
// Wyoming has no authentication: every connection speaks as account, so
// bind l where only trusted clients reach it. Requests count against
// account's limits and the queue as its HTTP requests do; connections
// over Options.WyomingMaxConns (for all of the server's listeners) are
// refused with an error event. Each event written gets
// Options.WriteTimeout, and a connection may wait Options.WSIdleTimeout
// for its next event. ServeWyoming returns when l fails or the server
// shuts down (nil then).
func (s *Server) ServeWyoming(l net.Listener, account string) error {
	return s.wyoming.Serve(l, account)
}
