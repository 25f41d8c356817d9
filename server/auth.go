package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
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

// caller is who a request is for: an account and what it may do.
type caller struct {
	account string
	scope   store.Scope
}

// An authenticator checks one kind of credential. ok is false when r
// carries none of its kind, so that the next is asked; a refusal is a
// *wire.Error.
type authenticator interface {
	authenticate(r *http.Request) (c caller, ok bool, werr *wire.Error)
}

// hostAuth asks the host application (Options.Authenticate). An account
// it names may do everything; "" leaves the request to the other
// providers.
type hostAuth func(*http.Request) (string, error)

func (f hostAuth) authenticate(r *http.Request) (caller, bool, *wire.Error) {
	account, err := f(r)
	switch {
	case err != nil:
		return caller{}, true, wire.Unauthenticated(err.Error())
	case account == "":
		return caller{}, false, nil
	}
	return caller{account, store.ScopeAdmin}, true, nil
}

// sessionAuth admits the playground's signed-in users by their session
// cookie, with admin scope. A request that also carries a bearer key is
// the key's.
type sessionAuth struct{ s *Server }

func (a sessionAuth) authenticate(r *http.Request) (caller, bool, *wire.Error) {
	token := a.s.sessionToken(r)
	if token == "" || bearer(r) != "" {
		return caller{}, false, nil
	}
	account, werr := a.s.admitSession(r, token)
	return caller{account, store.ScopeAdmin}, true, werr
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

func (a *keyAuth) authenticate(r *http.Request) (caller, bool, *wire.Error) {
	k, werr := a.check(r.Context(), bearer(r))
	return caller{k.Account, k.Scope}, true, werr
}

// check verifies token with the store.
func (a *keyAuth) check(ctx context.Context, token string) (store.Key, *wire.Error) {
	if a.store == nil {
		return store.Key{}, wire.Unauthenticated("This server takes no API keys; sign in to the application that serves it.")
	}
	if token == "" {
		return store.Key{}, wire.MissingKey()
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	k, err := a.store.VerifyKey(ctx, token)
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		a.log.Warn("server: the store did not verify a key in time", "after", a.timeout, "err", err, "request_id", RequestID(ctx))
		return store.Key{}, wire.KeyCheckTimeout(a.timeout)
	case err != nil && ctx.Err() != nil: // the client went away
		return store.Key{}, wire.Internal(RequestID(ctx))
	case errors.Is(err, store.ErrRevokedKey):
		a.known.forget(token)
		return store.Key{}, wire.InvalidKey(k.Prefix, true)
	case errors.Is(err, store.ErrInvalidKey):
		a.known.forget(token)
		return store.Key{}, wire.InvalidKey(store.DisplayPrefix(printable(token)), false)
	case err != nil:
		a.log.Error("server: verifying key", "err", err, "request_id", RequestID(ctx))
		return store.Key{}, wire.Internal(RequestID(ctx))
	}
	a.known.put(token, k)
	return k, nil
}

// admit returns who r is for: by the first of the optional providers
// that claims it, else by its API key.
func (s *Server) admit(r *http.Request) (caller, *wire.Error) {
	for _, a := range s.auth {
		if c, ok, werr := a.authenticate(r); ok {
			return c, werr
		}
	}
	c, _, werr := s.keys.authenticate(r)
	return c, werr
}

// authed wraps h so that it runs only for an admitted caller of scope
// need, with the caller's account in the request info.
func (s *Server) authed(need store.Scope, h handler) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, werr := s.admit(r)
		if werr != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="voxkit"`)
			return werr
		}
		info(r.Context()).account = c.account
		if need == store.ScopeAdmin && c.scope != store.ScopeAdmin {
			return wire.InsufficientScope(c.scope, need)
		}
		return h(w, r)
	}
}

// bearer returns the token of an "Authorization: Bearer" header, "" if
// there is none.
func bearer(r *http.Request) string {
	a := r.Header.Get("Authorization")
	if len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

// printable keeps only characters that may appear in a key, so a message
// never echoes control characters.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x21 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}
