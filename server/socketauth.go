package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/voxkit/voxkit/server/wire"
)

// Every WebSocket (voxkit's own, ElevenLabs' and Cartesia's) holds its
// caller to the same two rules:
//
//   - a socket opened without credentials (a browser cannot set headers)
//     has Options.SocketAuthTimeout to send its key, or is closed (1008);
//   - the credentials that admitted a socket are checked again before
//     each request or context it opens and at least every
//     Options.KeyRecheckInterval while it is open, so a key revoked (or a
//     sign-in ended) meanwhile stops it: an error, then close code 1008.

// DefaultSocketAuthTimeout is how long a WebSocket opened without
// credentials has to send its key when Options.SocketAuthTimeout is 0.
const DefaultSocketAuthTimeout = 10 * time.Second

// DefaultKeyRecheckInterval is how often an open WebSocket checks its
// credentials again when Options.KeyRecheckInterval is 0.
const DefaultKeyRecheckInterval = 5 * time.Second

// socketCreds are the credentials that admitted a socket's caller.
type socketCreds struct {
	r       *http.Request // the handshake
	key     string        // the key that admitted the caller; "" when r's own credentials did
	account string
}

// recheck admits a socket's caller again, as it was admitted: by its key
// (which may have been revoked), or by the handshake's credentials, which
// must still name the same account (the host application may have ended
// the session it knows, the playground's may have been signed out; a
// bearer key is checked again with them).
func (s *Server) recheck(ctx context.Context, c socketCreds) *wire.Error {
	if c.key != "" {
		_, werr := s.keys.check(ctx, c.key)
		return werr
	}
	caller, werr := s.admit(c.r)
	switch {
	case werr != nil:
		return werr
	case caller.account != c.account:
		return wire.Unauthenticated("The session's sign-in has changed; reconnect.")
	}
	return nil
}

// socketGuard holds a vendor socket to the rules above: serveSocket
// watches its deadline and its periodic check, contextSet.start checks
// before each context. Once a check fails the socket ends.
type socketGuard struct {
	s       *Server
	mu      sync.Mutex
	creds   socketCreds // account "" until the caller is admitted
	refusal *wire.Error // the failed check that ends the socket
}

// account is the admitted caller's account, "" before.
func (g *socketGuard) account() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.creds.account
}

// admitKey admits the caller of a socket opened without credentials by
// the key its first message carries.
func (g *socketGuard) admitKey(ctx context.Context, key string) (string, *wire.Error) {
	k, werr := g.s.keys.check(ctx, key)
	if werr != nil {
		return "", werr
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.creds.key, g.creds.account = key, k.Account
	return k.Account, nil
}

// check admits the caller again; a refusal ends the socket. A socket
// whose caller is not admitted yet has nothing to check.
func (g *socketGuard) check(ctx context.Context) *wire.Error {
	g.mu.Lock()
	creds, refusal := g.creds, g.refusal
	g.mu.Unlock()
	if refusal != nil || creds.account == "" {
		return refusal
	}
	werr := g.s.recheck(ctx, creds)
	if werr != nil {
		g.mu.Lock()
		g.refusal = werr
		g.mu.Unlock()
	}
	return werr
}

// refused is the check that refused the caller, nil while none has.
func (g *socketGuard) refused() *wire.Error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refusal
}
