package core

import (
	"context"
	"sync"

	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/fault"
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

// Creds are the credentials that admitted a socket's caller.
type Creds = credentials.Creds

// Guard holds a socket to the rules above: sockets.Serve watches its
// deadline and its periodic check, ContextSet.Start checks before each
// context. Once a check fails the socket ends.
type Guard struct {
	c       *Core
	mu      sync.Mutex
	creds   Creds        // account "" until the caller is admitted
	refusal *fault.Error // the failed check that ends the socket
}

// Account is the admitted caller's account, "" before.
func (g *Guard) Account() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.creds.Account
}

// AdmitKey admits the caller of a socket opened without credentials by
// the key its first message carries.
func (g *Guard) AdmitKey(ctx context.Context, key string) (string, *fault.Error) {
	k, werr := g.c.Auth.CheckKey(ctx, key)
	if werr != nil {
		return "", werr
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.creds.Key, g.creds.Account = key, k.Account
	return k.Account, nil
}

// Check admits the caller again; a refusal ends the socket. A socket
// whose caller is not admitted yet has nothing to check.
func (g *Guard) Check(ctx context.Context) *fault.Error {
	g.mu.Lock()
	creds, refusal := g.creds, g.refusal
	g.mu.Unlock()
	if refusal != nil || creds.Account == "" {
		return refusal
	}
	werr := g.c.Auth.Recheck(ctx, creds)
	if werr != nil {
		g.mu.Lock()
		g.refusal = werr
		g.mu.Unlock()
	}
	return werr
}

// Refused is the check that refused the caller, nil while none has.
func (g *Guard) Refused() *fault.Error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refusal
}

// NewGuard returns the guard of a socket admitted by creds (Account ""
// when its first message must carry a key).
func (c *Core) NewGuard(creds Creds) *Guard { return &Guard{c: c, creds: creds} }
