package credentials

import (
	"context"
	"crypto/sha256"
	"errors"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
)

// A speech request's API key is checked against the store while the
// speech is made, not before: the check is a database read (with file
// locks for SQLite, a round trip for PostgreSQL) that would otherwise sit
// between the request and its synthesis, and on a busy machine that read
// is where a request waits longest outside synthesis. The store still
// decides every request: nothing of the response — audio, headers or an
// error — leaves before the check has passed, and a key revoked a moment
// ago (by this server, another replica or the CLI) gets its 401 as
// before. Only keys this process has verified before are checked
// alongside (knownKeys); any other key is checked first, so an unknown
// caller makes the server do no work. The work done for a request whose
// key turns out revoked is cut short when the check ends.

// maxKnownKeys bounds knownKeys; past it an arbitrary entry makes room.
const maxKnownKeys = 10000

// knownKeys remembers the account and scope of keys the store verified,
// by the key's SHA-256. It is a hint of whom a request is for, never the
// decision: that stays with the store's check.
type knownKeys struct {
	mu   sync.Mutex
	keys map[[sha256.Size]byte]store.Key
}

func (c *knownKeys) get(token string) (store.Key, bool) {
	h := sha256.Sum256([]byte(token))
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.keys[h]
	return k, ok
}

func (c *knownKeys) put(token string, k store.Key) {
	h := sha256.Sum256([]byte(token))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil {
		c.keys = make(map[[sha256.Size]byte]store.Key)
	}
	if _, ok := c.keys[h]; !ok && len(c.keys) >= maxKnownKeys {
		for old := range c.keys {
			delete(c.keys, old)
			break
		}
	}
	c.keys[h] = store.Key{Prefix: k.Prefix, Account: k.Account, Scope: k.Scope}
}

func (c *knownKeys) forget(token string) {
	h := sha256.Sum256([]byte(token))
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.keys, h)
}

// AuthedAlongside wraps the key provider (keyAuth) for a handler whose
// work has no effect but its response (speech): a bearer key this
// process verified before lets
// h start at once while the store checks the key again, and h's response
// is held back until that check has passed (see checkedWriter). Other
// credentials, and keys not seen before, are checked first, as authed
// does.
func (c *Auth) AuthedAlongside(need store.Scope, h route.Handler) route.Handler {
	first := c.Authed(need, h)
	return func(w http.ResponseWriter, r *http.Request) error {
		token := Bearer(r)
		if c.host != nil || c.Store == nil || token == "" || c.SessionToken(r) != "" {
			return first(w, r)
		}
		known, ok := c.keys.known.get(token)
		if !ok || !known.Scope.Allows(need) {
			return first(w, r)
		}
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		// The work stops when the check is late, even if the store does
		// not heed its deadline; pass then answers 503.
		late := time.AfterFunc(c.KeyCheck, func() { cancel(errKeyCheckLate) })
		defer late.Stop()
		checked := make(chan *fault.Error, 1)
		go func() {
			// Cancelled with the request (a client that left is told
			// nothing) and bounded by the check's deadline.
			_, werr := c.keys.check(r.Context(), token)
			if werr == nil {
				late.Stop()
			}
			checked <- werr
			if werr != nil {
				cancel(errKeyRefused) // stop the work now, not at its first write
			}
		}()
		cw := &checkedWriter{ResponseWriter: w, before: w.Header().Clone(), checked: checked, ctx: ctx, late: c.KeyCheck}
		route.Info(ctx).Account, route.Info(ctx).Scope = known.Account, known.Scope
		err := h(cw, r.WithContext(ctx))
		if !cw.pass() {
			return nil // the refusal is the response
		}
		return err
	}
}

// errKeyRefused is what a checkedWriter's writes return once the key
// check has failed: the handler's response is dropped.
var errKeyRefused = errors.New("server: the request's API key was refused")

// errKeyCheckLate ends the work of a request whose key check passed its
// deadline.
var errKeyCheckLate = errors.New("server: the request's API key check is late")

// checkedWriter holds a response back until the request's key check has
// answered. If it passed, the response goes out as written; if not, the
// headers the handler set are dropped, the check's error is the
// response and the handler's writes fail (its context was cancelled
// when the check failed).
type checkedWriter struct {
	http.ResponseWriter
	before  http.Header // the headers before the handler ran
	checked <-chan *fault.Error
	ctx     context.Context // the work's: ends when the client leaves or the check is late
	late    time.Duration   // the check's deadline
	done    bool
	refused bool
}

// pass waits for the key check once, answers a refusal, and reports
// whether the response may go out. It stops waiting when the client
// leaves (nothing is answered) or the check passes its deadline (503).
func (w *checkedWriter) pass() bool {
	if w.done {
		return !w.refused
	}
	w.done = true
	var werr *fault.Error
	select {
	case werr = <-w.checked:
	case <-w.ctx.Done():
		select {
		case werr = <-w.checked: // the check's own answer (it cancels after sending)
		default:
			w.refused = true
			if context.Cause(w.ctx) != errKeyCheckLate {
				return false // the client left: nobody to answer
			}
			werr = fault.KeyCheckTimeout(w.late)
		}
	}
	if werr == nil {
		return true
	}
	w.refused = true
	h := w.ResponseWriter.Header()
	clear(h)
	maps.Copy(h, w.before)
	if werr.Status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="voxkit"`)
	}
	respond.WriteError(w.ResponseWriter, werr)
	return false
}

func (w *checkedWriter) WriteHeader(code int) {
	if w.pass() {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *checkedWriter) Write(p []byte) (int, error) {
	if !w.pass() {
		return 0, errKeyRefused
	}
	return w.ResponseWriter.Write(p)
}

func (w *checkedWriter) Flush() { w.FlushError() }

// FlushError is what http.ResponseController's Flush calls.
func (w *checkedWriter) FlushError() error {
	if !w.pass() {
		return errKeyRefused
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *checkedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
