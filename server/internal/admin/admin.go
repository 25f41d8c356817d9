// Package admin is the server's door for administration: accounts,
// API keys, voice clones (derived, or cloned from a recording through
// the catalog room's one clone path), lexicons, the playground's sign-in
// with passwords and sessions, and the playground page itself. It gets
// only what it uses of the rooms below it (Rooms), never the core. Its
// errors are OpenAI-shaped, as the rest of /v1.
package admin

import (
	_ "embed"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/throttle"
	"github.com/voxkit/voxkit/server/store"
)

// Options are the administration's own settings.
type Options struct {
	MaxKeys int  // live API keys per account
	Signup  bool // anyone may create an account
	// Proxies are the trusted reverse proxies (X-Forwarded-For,
	// X-Forwarded-Proto).
	Proxies    []netip.Prefix
	Playground bool // serve the playground at "/"
}

// Rooms are what the door uses of the rooms below the doors, each as
// narrow an interface as its routes need: never the core itself.
type Rooms struct {
	Auth Auth
	// Logins are the store's sessions; nil: it keeps none (no sign-in
	// with a password).
	Logins store.Sessions
	// Store holds the accounts, keys and clones; nil: there are none.
	Store    store.Store
	Voices   Voices
	Lexicons Lexicons // asked only when Store keeps lexicons
	Log      *slog.Logger
	Body     route.Body
}

// Auth is what the door asks of the credentials room
// (credentials.Auth).
type Auth interface {
	Authed(need store.Scope, h route.Handler) route.Handler
	SessionToken(r *http.Request) string
	AdmitSession(r *http.Request, token string) (string, *fault.Error)
	HasHost() bool
	HostAccount(r *http.Request) (account string, ok bool)
}

// door serves the accounts, keys and the playground, and with signin
// the sign-in routes.
type door struct {
	*signin
	store   store.Store
	body    route.Body
	maxKeys int
}

// Mount registers the door's routes on mux.
func Mount(mux *http.ServeMux, rooms Rooms, o Options) {
	si := &signin{auth: rooms.Auth, logins: rooms.Logins, store: rooms.Store, log: rooms.Log, body: rooms.Body,
		attempts: throttle.New(), hashing: make(chan struct{}, maxHashing), signup: o.Signup, proxies: route.Proxies(slices.Clone(o.Proxies))}
	d := &door{signin: si, store: rooms.Store, body: rooms.Body, maxKeys: o.MaxKeys}
	v := &voiceRoutes{voices: rooms.Voices, store: rooms.Store, body: rooms.Body}
	authed := rooms.Auth.Authed
	handle := func(path string, m route.Methods) { route.Route(mux, rooms.Log, path, m) }
	handle("/v1/account", route.Methods{http.MethodGet: authed(store.ScopeSpeech, d.getAccount)})
	if rooms.Logins == nil {
		handle("/v1/session", route.Methods{http.MethodGet: si.getSession})
	} else {
		handle("/v1/session", route.Methods{http.MethodGet: si.getSession, http.MethodPost: si.signIn, http.MethodDelete: si.signOut})
		handle("/v1/account/password", route.Methods{http.MethodPost: authed(store.ScopeAdmin, si.changePassword)})
	}
	if rooms.Store != nil {
		handle("/v1/accounts", route.Methods{http.MethodPost: d.createAccount})
		handle("/v1/keys", route.Methods{http.MethodGet: authed(store.ScopeAdmin, d.listKeys), http.MethodPost: authed(store.ScopeAdmin, d.createKey)})
		handle("/v1/keys/{prefix}", route.Methods{http.MethodDelete: authed(store.ScopeAdmin, d.revokeKey)})
		handle("/v1/voices", route.Methods{http.MethodGet: authed(store.ScopeAdmin, v.listVoices), http.MethodPost: authed(store.ScopeAdmin, v.createVoice)})
		handle("/v1/voices/{id}", route.Methods{http.MethodGet: authed(store.ScopeAdmin, v.getVoice), http.MethodDelete: authed(store.ScopeAdmin, v.deleteVoice)})
		handle("/v1/voice-samples", route.Methods{http.MethodPost: authed(store.ScopeGateway, v.encodeSample)})
	}
	if _, ok := rooms.Store.(store.Lexicons); ok {
		l := &lexiconRoutes{lexicons: rooms.Lexicons, body: rooms.Body}
		l.mount(handle, authed)
	}
	if o.Playground {
		handle("/{$}", route.Methods{http.MethodGet: playground})
	}
}

//go:embed playground.html
var playgroundHTML []byte

func playground(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; media-src 'self' blob:; img-src data:; connect-src 'self'")
	h.Set("X-Frame-Options", "DENY")
	w.Write(playgroundHTML)
	return nil
}
