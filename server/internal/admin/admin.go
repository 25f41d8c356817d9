// Package admin is the server's door for administration: accounts,
// API keys, voice clones (derived, or cloned from a recording through
// the core's one clone path), the playground's sign-in with passwords and
// sessions, and the playground page itself. Its errors are OpenAI-shaped,
// as the rest of /v1.
package admin

import (
	_ "embed"
	"net/http"
	"net/netip"
	"slices"
	"sync/atomic"

	"github.com/voxkit/voxkit/server/internal/core"
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

// door serves the routes Mount registers.
type door struct {
	c        *core.Core
	attempts *throttle.Throttle // sign-in and sign-up attempts
	hashing  chan struct{}      // bounds concurrent password hashing
	// hashWaiting counts the attempts waiting for hashing (maxHashQueue).
	hashWaiting atomic.Int64
	maxKeys     int
	signup      bool
	proxies     []netip.Prefix
}

// Mount registers the door's routes on mux.
func Mount(mux *http.ServeMux, c *core.Core, o Options) {
	d := &door{c: c, attempts: throttle.New(), hashing: make(chan struct{}, maxHashing), maxKeys: o.MaxKeys, signup: o.Signup, proxies: slices.Clone(o.Proxies)}
	handle := func(path string, m route.Methods) { route.Route(mux, c.Log, path, m) }
	handle("/v1/account", route.Methods{http.MethodGet: c.Auth.Authed(store.ScopeSpeech, d.getAccount)})
	if c.Auth.Logins == nil {
		handle("/v1/session", route.Methods{http.MethodGet: d.getSession})
	} else {
		handle("/v1/session", route.Methods{http.MethodGet: d.getSession, http.MethodPost: d.signIn, http.MethodDelete: d.signOut})
		handle("/v1/account/password", route.Methods{http.MethodPost: c.Auth.Authed(store.ScopeAdmin, d.changePassword)})
	}
	if c.Store != nil {
		handle("/v1/accounts", route.Methods{http.MethodPost: d.createAccount})
		handle("/v1/keys", route.Methods{http.MethodGet: c.Auth.Authed(store.ScopeAdmin, d.listKeys), http.MethodPost: c.Auth.Authed(store.ScopeAdmin, d.createKey)})
		handle("/v1/keys/{prefix}", route.Methods{http.MethodDelete: c.Auth.Authed(store.ScopeAdmin, d.revokeKey)})
		handle("/v1/voices", route.Methods{http.MethodGet: c.Auth.Authed(store.ScopeAdmin, d.listVoices), http.MethodPost: c.Auth.Authed(store.ScopeAdmin, d.createVoice)})
		handle("/v1/voices/{id}", route.Methods{http.MethodGet: c.Auth.Authed(store.ScopeAdmin, d.getVoice), http.MethodDelete: c.Auth.Authed(store.ScopeAdmin, d.deleteVoice)})
		handle("/v1/voice-samples", route.Methods{http.MethodPost: c.Auth.Authed(store.ScopeGateway, d.encodeSample)})
	}
	if _, ok := c.Store.(store.Lexicons); ok {
		d.mountLexicons(handle)
	}
	if o.Playground {
		handle("/{$}", route.Methods{http.MethodGet: d.playground})
	}
}

//go:embed playground.html
var playgroundHTML []byte

func (d *door) playground(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; media-src blob:; img-src data:; connect-src 'self'")
	h.Set("X-Frame-Options", "DENY")
	w.Write(playgroundHTML)
	return nil
}
