package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// DefaultMaxBody is the largest request body accepted when Options.MaxBody
// is 0: 1 MiB. A larger body gets 413.
const DefaultMaxBody = 1 << 20

// DefaultReadTimeout is the time allowed to read a request body when
// Options.ReadTimeout is 0.
const DefaultReadTimeout = 30 * time.Second

// DefaultMaxUploadsPerAccount is the most uploads of recordings one
// account has in hand at once when Options.MaxUploadsPerAccount is 0.
const DefaultMaxUploadsPerAccount = 2

// DefaultMaxVoicesPerAccount is the most voice clones an account may hold
// when Options.MaxVoicesPerAccount is 0.
const DefaultMaxVoicesPerAccount = 200

// DefaultMaxKeysPerAccount is the most live API keys an account may hold
// when Options.MaxKeysPerAccount is 0.
const DefaultMaxKeysPerAccount = 100

// DefaultVoiceLoadsPerMinute is the most voice loads an account's speech
// may cause on one server in a minute when Options.VoiceLoadsPerMinute
// is 0.
const DefaultVoiceLoadsPerMinute = 20

// DefaultMaxLexiconsPerAccount is the most pronunciation lexicons an
// account may hold when Options.MaxLexiconsPerAccount is 0.
const DefaultMaxLexiconsPerAccount = 100

// DefaultLexiconStoragePerAccount is the most bytes of lexicon documents
// an account may hold, every kept version counted, when
// Options.LexiconStoragePerAccount is 0: 50 MB.
const DefaultLexiconStoragePerAccount = 50_000_000

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
	// request of the session. With a Store, an account it names that the
	// Store lacks is made there at its first request (so its clones and
	// lexicons have an owner); a name the Store cannot hold (see
	// store.ValidateAccountName) is refused with a 500 that says so.
	Authenticate func(r *http.Request) (account string, err error)
	// Aliases maps extra voice names to catalog voice ids. nil means
	// DefaultAliases (the OpenAI voice names, so unmodified SDK samples
	// work); an empty map means none. An alias may name a global voice
	// or, with a Store, a clone id: no clone need have it at start, and a
	// request is spoken by the caller's clone of that id (an account
	// without one gets 404). Without a Store, aliases of voices the
	// catalog does not have are dropped (and logged). A catalog voice of
	// the same id wins over an alias; Server.Aliases lists those kept.
	Aliases map[string]string
	// DefaultFormat is the response_format of an OpenAI speech request
	// that names none; empty means "wav", as OpenAI's specification says.
	// Front ends that save what they get as .mp3 (Open WebUI) want "mp3".
	// It must be a format the Synthesizer encodes.
	DefaultFormat string
	// MaxBody is the largest request body in bytes; 0 means
	// DefaultMaxBody.
	MaxBody int64
	// ReadTimeout bounds the time to read a request body, so a client
	// sending it byte by byte cannot hold a connection: a JSON body, and
	// an upload that clones a voice from a recording (multipart POST
	// /v1/voices, ElevenLabs' voices/add, Cartesia's voices/clone, a
	// gateway's /v1/voice-samples; 10 MB in 30 s is 2.8 Mbit/s). Past it
	// the request is a 408 request_timeout in the door's shape and its
	// connection closes. 0 means DefaultReadTimeout, negative means none.
	// It does not limit the response.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of a response (every sentence of a
	// stream gets its own; each event written to a Wyoming connection),
	// so a client that stops reading cannot hold a handler; 0 means
	// DefaultWriteTimeout, negative means none.
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
	// MaxVoicesPerAccount is the most voice clones one account may hold
	// (derived voices and voices cloned from recordings together); 0
	// means DefaultMaxVoicesPerAccount, negative means no limit. One more
	// is refused (400 voice_limit_reached) before its recording is
	// encoded.
	MaxVoicesPerAccount int
	// MaxUploadsPerAccount is the most such uploads one account has in
	// hand at once on this server (being received, decoded or cloned), on
	// all doors together: one more is a 429 rate_limit_exceeded with
	// Retry-After, before its body is read. Callers of the gateway scope
	// are not counted (a gateway bounds its own accounts). 0 means
	// DefaultMaxUploadsPerAccount, negative none.
	MaxUploadsPerAccount int
	// VoiceLoadsPerMinute is the most voice loads one account's speech
	// may cause on this server in a minute: a voice whose engine loads it
	// on first use (engine.VoiceHolder: a Piper or Kokoro model under a
	// memory budget, a clone not in memory) costs its load for the
	// request that needs it, and loading and unloading cost more than
	// the speech. Past it, a request that would load a voice is refused
	// with 429 rate_limit_exceeded and Retry-After (speaking voices in
	// memory is not). Counted in this server's memory; the gateway scope
	// is not counted. 0 means DefaultVoiceLoadsPerMinute, negative means
	// no limit.
	VoiceLoadsPerMinute int
	// MaxKeysPerAccount is the most live API keys one account may hold;
	// 0 means DefaultMaxKeysPerAccount.
	MaxKeysPerAccount int
	// MaxLexiconsPerAccount is the most pronunciation lexicons one
	// account may hold (/v1/lexicons, and the vendors' dictionaries); 0
	// means DefaultMaxLexiconsPerAccount.
	MaxLexiconsPerAccount int
	// LexiconStoragePerAccount is the most bytes of lexicon documents one
	// account may hold, every kept version of each lexicon counted; 0
	// means DefaultLexiconStoragePerAccount, negative means no limit. A
	// lexicon or version past it is refused (400
	// lexicon_storage_limit_reached).
	LexiconStoragePerAccount int64
	// AllowSignup lets anyone create an account (and its first key) with
	// POST /v1/accounts, from the playground's "create account" form.
	// Off by default: accounts are then made by the operator.
	AllowSignup bool
	// DisablePlayground turns off the web playground at "/".
	DisablePlayground bool
	// WSIdleTimeout ends an authenticated WebSocket session that has had
	// no message from the client and no work in progress for that long,
	// and a Wyoming connection that has waited that long for its next
	// event; 0 means DefaultWSIdleTimeout, negative means none.
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
	// CrashCooldown is how long an account is refused speech (429 with
	// Retry-After) once its requests crashed an engine
	// core.CrashesPerMinute times within a minute; 0 means
	// DefaultCrashCooldown, negative never.
	CrashCooldown time.Duration
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
	// WyomingMaxPeerConns is the most of those connections one peer
	// address (IP) holds at once; one more gets server_busy. 0 means
	// WyomingMaxConns / WyomingPeerShare (at least 1), negative none.
	WyomingMaxPeerConns int
	// WyomingEventTimeout bounds the time from the first byte of a
	// Wyoming event to its last, so a half-sent event cannot hold a
	// connection; 0 means DefaultWyomingEventTimeout.
	WyomingEventTimeout time.Duration
	// Jobs configures long-form jobs (POST /v1/audio/jobs, docs/jobs.md);
	// off unless Jobs.Enabled.
	Jobs JobOptions
	// Metrics, if set, receives the server's Prometheus collectors
	// (requests, synthesis and overhead latencies, audio produced, render
	// slots; see docs/server.md "Metrics"). Serve it on a listener of its
	// own: the server does not expose it.
	Metrics prometheus.Registerer
	// Logger receives one line per request and the errors; nil means
	// slog.Default().
	Logger *slog.Logger
}
