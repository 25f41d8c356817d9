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
	route := func(path string, m core.Methods) { c.Route(mux, path, m) }
	route("/v1/account", core.Methods{http.MethodGet: c.Authed(store.ScopeSpeech, d.getAccount)})
	if c.Logins == nil {
		route("/v1/session", core.Methods{http.MethodGet: d.getSession})
	} else {
		route("/v1/session", core.Methods{http.MethodGet: d.getSession, http.MethodPost: d.signIn, http.MethodDelete: d.signOut})
		route("/v1/account/password", core.Methods{http.MethodPost: c.Authed(store.ScopeAdmin, d.changePassword)})
	}
	if c.Store != nil {
		route("/v1/accounts", core.Methods{http.MethodPost: d.createAccount})
		route("/v1/keys", core.Methods{http.MethodGet: c.Authed(store.ScopeAdmin, d.listKeys), http.MethodPost: c.Authed(store.ScopeAdmin, d.createKey)})
		route("/v1/keys/{prefix}", core.Methods{http.MethodDelete: c.Authed(store.ScopeAdmin, d.revokeKey)})
		route("/v1/voices", core.Methods{http.MethodGet: c.Authed(store.ScopeAdmin, d.listVoices), http.MethodPost: c.Authed(store.ScopeAdmin, d.createVoice)})
		route("/v1/voices/{id}", core.Methods{http.MethodGet: c.Authed(store.ScopeAdmin, d.getVoice), http.MethodDelete: c.Authed(store.ScopeAdmin, d.deleteVoice)})
		route("/v1/voice-samples", core.Methods{http.MethodPost: c.Authed(store.ScopeGateway, d.encodeSample)})
	}
	if _, ok := c.Store.(store.Lexicons); ok {
		d.mountLexicons(route)
	}
	if o.Playground {
		route("/{$}", core.Methods{http.MethodGet: d.playground})
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
