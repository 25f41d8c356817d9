// Package credentials is the room of who a request is for: the host
// application's sign-in, the playground's session cookie and the bearer
// API keys, asked in turn (Auth.Admit), the route wrappers that admit a
// caller of a scope (Authed, AuthedAlongside), the vendor doors' key
// headers (AdmitVendor) and the checks an open socket repeats (Recheck,
// CheckKey). The core and the doors call it; it knows neither.
package credentials

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
)

// Authentication is a chain of providers, each checking one kind of
// credential, asked in turn until one claims the request (as caddy's
// authentication handler asks its providers):
//
//   - hostAuth, the host application's Options.Authenticate hook;
//   - sessionAuth, the playground's session cookie;
//   - keyAuth, the bearer API key, checked against the store.
//
// The last always claims a request, so one with no credentials at all
// gets keyAuth's missing-key answer. A speech request whose key this
// process verified before may have it checked alongside synthesis
// (authedAlongside, which wraps keyAuth).

// Config is what Auth checks credentials against.
type Config struct {
	// Store holds accounts, keys and sessions; nil: there are none.
	Store store.Store
	// Host is the host application's own sign-in (server's
	// Options.Authenticate); nil if none.
	Host     func(*http.Request) (string, error)
	KeyCheck time.Duration // how long the store has to verify a key
	Log      *slog.Logger
}

// Auth admits callers. Its methods are safe for concurrent use.
type Auth struct {
	Config
	// Logins are the store's sessions, nil if it keeps none.
	Logins store.Sessions
	keys   *keyAuth
	auth   []authenticator // the optional providers, asked before keys
	host   *hostAuth       // nil without Config.Host
}

// New returns the Auth of cfg.
func New(cfg Config) *Auth {
	a := &Auth{Config: cfg}
	a.Logins, _ = cfg.Store.(store.Sessions)
	a.keys = &keyAuth{store: cfg.Store, timeout: cfg.KeyCheck, log: cfg.Log}
	if cfg.Host != nil {
		a.host = &hostAuth{f: cfg.Host, store: cfg.Store, timeout: cfg.KeyCheck, log: cfg.Log}
		a.auth = append(a.auth, a.host)
	}
	if a.Logins != nil {
		a.auth = append(a.auth, sessionAuth{a})
	}
	return a
}

// Caller is who a request is for: an account and what it may do.
type Caller struct {
	Account string
	Scope   store.Scope
}

// An authenticator checks one kind of credential. ok is false when r
// carries none of its kind, so that the next is asked; a refusal is a
// *fault.Error.
type authenticator interface {
	authenticate(r *http.Request) (c Caller, ok bool, werr *fault.Error)
}

// hostAuth asks the host application (Options.Authenticate). An account
// it names may do everything; "" leaves the request to the other
// providers. With a store, an account it names that the store lacks is
// made there on its first request (ensure), so that the account's clones,
// lexicons and keys have an owner: the host owns the users, the store
// follows it.
type hostAuth struct {
	f       func(*http.Request) (string, error)
	store   store.Store // nil: no store, nothing to make
	timeout time.Duration
	log     *slog.Logger
	made    sync.Map // account name → struct{}: the store has it (accounts are never deleted)
}

func (a *hostAuth) authenticate(r *http.Request) (Caller, bool, *fault.Error) {
	account, err := a.f(r)
	switch {
	case err != nil:
		return Caller{}, true, fault.Unauthenticated(err.Error())
	case account == "":
		return Caller{}, false, nil
	}
	if werr := a.ensure(r.Context(), account); werr != nil {
		return Caller{}, true, werr
	}
	return Caller{account, store.ScopeAdmin}, true, nil
}

// ensure makes account in the store unless it is there. A name the store
// cannot hold is the host's error: refused with a message that says so.
func (a *hostAuth) ensure(ctx context.Context, account string) *fault.Error {
	if a.store == nil {
		return nil
	}
	if _, ok := a.made.Load(account); ok {
		return nil
	}
	if err := store.ValidateAccountName(account); err != nil {
		a.log.Error("server: Options.Authenticate named an account the store cannot hold", "account", account, "err", err)
		return fault.BadHostAccount(account, err)
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	_, err := a.store.Account(ctx, account)
	if errors.Is(err, store.ErrNotFound) {
		if _, err = a.store.CreateAccount(ctx, account); err == nil {
			a.log.Info("server: account made on its first request by Options.Authenticate", "account", account)
		} else if errors.Is(err, store.ErrAccountExists) { // made by a request alongside
			err = nil
		}
	}
	if err != nil {
		a.log.Error("server: making the account Options.Authenticate named", "account", account, "err", err, "request_id", route.RequestID(ctx))
		return fault.Internal(route.RequestID(ctx))
	}
	a.made.Store(account, struct{}{})
	return nil
}

// sessionAuth admits the playground's signed-in users by their session
// cookie, with admin scope. A request that also carries a bearer key is
// the key's.
type sessionAuth struct{ c *Auth }

func (a sessionAuth) authenticate(r *http.Request) (Caller, bool, *fault.Error) {
	token := a.c.SessionToken(r)
	if token == "" || Bearer(r) != "" {
		return Caller{}, false, nil
	}
	account, werr := a.c.AdmitSession(r, token)
	return Caller{account, store.ScopeAdmin}, true, werr
}

// keyAuth admits bearer API keys, each checked against the store within
// timeout. It remembers the keys the store verified (known), as hints for
// authedAlongside.
type keyAuth struct {
	store   store.Store // nil: the server takes no keys
	timeout time.Duration
	log     *slog.Logger
	known   knownKeys
}

func (a *keyAuth) authenticate(r *http.Request) (Caller, bool, *fault.Error) {
	k, werr := a.check(r.Context(), Bearer(r))
	return Caller{k.Account, k.Scope}, true, werr
}

// check verifies token with the store.
func (a *keyAuth) check(ctx context.Context, token string) (store.Key, *fault.Error) {
	if a.store == nil {
		return store.Key{}, fault.Unauthenticated("This server takes no API keys; sign in to the application that serves it.")
	}
	if token == "" {
		return store.Key{}, fault.MissingKey()
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	k, err := a.store.VerifyKey(ctx, token)
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		a.log.Warn("server: the store did not verify a key in time", "after", a.timeout, "err", err, "request_id", route.RequestID(ctx))
		return store.Key{}, fault.KeyCheckTimeout(a.timeout)
	case err != nil && ctx.Err() != nil: // the client went away
		return store.Key{}, fault.Internal(route.RequestID(ctx))
	case errors.Is(err, store.ErrRevokedKey):
		a.known.forget(token)
		return store.Key{}, fault.InvalidKey(k.Prefix, true)
	case errors.Is(err, store.ErrInvalidKey):
		a.known.forget(token)
		return store.Key{}, fault.InvalidKey(store.DisplayPrefix(Printable(token)), false)
	case err != nil:
		a.log.Error("server: verifying key", "err", err, "request_id", route.RequestID(ctx))
		return store.Key{}, fault.Internal(route.RequestID(ctx))
	}
	a.known.put(token, k)
	return k, nil
}

// Admit returns who r is for: by the first of the optional providers
// that claims it, else by its API key.
func (c *Auth) Admit(r *http.Request) (Caller, *fault.Error) {
	for _, a := range c.auth {
		if cl, ok, werr := a.authenticate(r); ok {
			return cl, werr
		}
	}
	cl, _, werr := c.keys.authenticate(r)
	return cl, werr
}

// Authed wraps h so that it runs only for an admitted caller of scope
// need, with the caller's account in the request info.
func (c *Auth) Authed(need store.Scope, h route.Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		cl, werr := c.Admit(r)
		if werr != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="voxkit"`)
			return werr
		}
		route.Info(r.Context()).Account, route.Info(r.Context()).Scope = cl.Account, cl.Scope
		if !cl.Scope.Allows(need) {
			return fault.InsufficientScope(cl.Scope, need)
		}
		return h(w, r)
	}
}

// AdmitVendor admits the caller of a vendor door with the scope need
// (store.Scope.Allows: a key of admin scope may do what one of speech
// scope may): by key,
// the value of the vendor's own key header, when there is one, else as
// Admit does; the account goes in the request info.
func (c *Auth) AdmitVendor(r *http.Request, key string, need store.Scope) (string, *fault.Error) {
	cl, werr := Caller{}, (*fault.Error)(nil)
	if key != "" {
		var k store.Key
		k, werr = c.CheckKey(r.Context(), key)
		cl = Caller{Account: k.Account, Scope: k.Scope}
	} else {
		cl, werr = c.Admit(r)
	}
	if werr == nil && !cl.Scope.Allows(need) {
		werr = fault.InsufficientScope(cl.Scope, need)
	}
	if werr != nil {
		return "", werr
	}
	route.Info(r.Context()).Account, route.Info(r.Context()).Scope = cl.Account, cl.Scope
	return cl.Account, nil
}

// Bearer returns the token of an "Authorization: Bearer" header, "" if
// there is none.
func Bearer(r *http.Request) string {
	a := r.Header.Get("Authorization")
	if len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

// Printable keeps only characters that may appear in a key, so a message
// never echoes control characters.
func Printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x21 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

// SessionCookie is the name of the playground's sign-in cookie.
const SessionCookie = "voxkit_session"

// CSRFHeader carries the session's CSRF token on every state-changing
// request made with the cookie.
const CSRFHeader = "X-CSRF-Token"

// CSRFToken derives a session's CSRF token from its cookie token. A page
// of another site can neither read the cookie nor the JSON that carries
// this token (CORS never allows credentials here), so it cannot send it.
func CSRFToken(sessionToken string) string {
	h := sha256.Sum256([]byte("voxkit csrf\x00" + sessionToken))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// safeMethod reports whether a request of method changes nothing, so
// needs no CSRF token.
func safeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// SessionToken returns the token of r's session cookie, "" if it has
// none or the server keeps no sessions.
func (c *Auth) SessionToken(r *http.Request) string {
	if c.Logins == nil {
		return ""
	}
	ck, err := r.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	return ck.Value
}

// AdmitSession returns the account of the live session of token, and
// checks the CSRF token of a state-changing request.
func (c *Auth) AdmitSession(r *http.Request, token string) (string, *fault.Error) {
	ss, err := c.Logins.Session(r.Context(), store.HashKey(token))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", fault.SessionExpired()
	case err != nil:
		c.Log.Error("server: reading session", "err", err, "request_id", route.RequestID(r.Context()))
		return "", fault.Internal(route.RequestID(r.Context()))
	}
	if !safeMethod(r.Method) && subtle.ConstantTimeCompare([]byte(r.Header.Get(CSRFHeader)), []byte(CSRFToken(token))) != 1 {
		return "", fault.BadCSRFToken()
	}
	return ss.Account, nil
}

// CheckKey verifies an API key with the store, within the key-check
// timeout.
func (c *Auth) CheckKey(ctx context.Context, token string) (store.Key, *fault.Error) {
	return c.keys.check(ctx, token)
}

// HasHost reports whether the host application signs callers in
// (server's Options.Authenticate).
func (c *Auth) HasHost() bool { return c.host != nil }

// HostAccount asks the host application's sign-in for r's account:
// ok is false when it has none or does not claim r.
func (c *Auth) HostAccount(r *http.Request) (account string, ok bool) {
	if c.host == nil {
		return "", false
	}
	cl, claimed, werr := c.host.authenticate(r)
	return cl.Account, claimed && werr == nil
}

// Creds are the credentials that admitted a socket's caller.
type Creds struct {
	R       *http.Request // the handshake
	Key     string        // the key that admitted the caller; "" when R's own credentials did
	Account string
}

// Recheck admits a socket's caller again, as it was admitted: by its key
// (which may have been revoked), or by the handshake's credentials, which
// must still name the same account (the host application may have ended
// the session it knows, the playground's may have been signed out; a
// bearer key is checked again with them).
func (c *Auth) Recheck(ctx context.Context, cr Creds) *fault.Error {
	if cr.Key != "" {
		_, werr := c.keys.check(ctx, cr.Key)
		return werr
	}
	caller, werr := c.Admit(cr.R)
	switch {
	case werr != nil:
		return werr
	case caller.Account != cr.Account:
		return fault.Unauthenticated("The session's sign-in has changed; reconnect.")
	}
	return nil
}
