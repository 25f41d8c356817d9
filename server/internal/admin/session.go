package admin

// Sign-in with a password, for the playground: a server-side session
// named by a random token in an HttpOnly cookie, CSRF tokens derived
// from it, and throttled attempts. API clients never see any of it: a
// session is not a bearer key.

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"

	"github.com/voxkit/voxkit/server/internal/throttle"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// signin serves the playground's sign-in: sessions, passwords and the
// throttled attempts.
type signin struct {
	auth     Auth
	logins   store.Sessions // nil: no sign-in with a password
	store    store.Store
	log      *slog.Logger
	body     route.Body
	attempts *throttle.Throttle // sign-in and sign-up attempts
	hashing  chan struct{}      // bounds concurrent password hashing
	// hashWaiting counts the attempts waiting for hashing (maxHashQueue).
	hashWaiting atomic.Int64
	signup      bool
	proxies     route.Proxies
}

// SessionLifetime is how long a sign-in lasts.
const SessionLifetime = 7 * 24 * time.Hour

// Sign-in throttling: attempts per account and per client address,
// each a bucket refilled one attempt at a time. An attempt is taken from
// every bucket before its password is hashed and given back when it
// signs in, so concurrent guesses cannot pass the allowance, and a
// bucket is never below empty, so the wait is at most one refill
// (the lockout's cap). Sign-ups take from a bucket of their address.
var (
	accountAttempts = throttle.Rate{Burst: 10, Every: 30 * time.Second}
	addressAttempts = throttle.Rate{Burst: 30, Every: 2 * time.Second}
	signupAttempts  = throttle.Rate{Burst: 5, Every: time.Minute}
)

// maxHashing bounds concurrent password hashing: each argon2id hash
// takes 19 MiB and tens of milliseconds of CPU.
const maxHashing = 2

// maxHashQueue bounds the attempts waiting to hash: past it an attempt
// gets 429 before any hashing, so a flood from many addresses cannot
// queue work without end.
const maxHashQueue = 32

// newSessionToken returns a random cookie token: 256 bits, base64url.
func newSessionToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// getSession answers GET /v1/session: who is signed in, if anyone.
func (d *signin) getSession(w http.ResponseWriter, r *http.Request) error {
	out := d.sessionInfo()
	if d.auth.HasHost() {
		if account, ok := d.auth.HostAccount(r); ok {
			out.SignedIn, out.Account, out.HostAuth = true, account, true
			route.Info(r.Context()).Account = account
			respond.WriteJSON(w, http.StatusOK, out)
			return nil
		}
		out.HostAuth = d.logins == nil // the host application's sign-in is the only one
	}
	if token := d.auth.SessionToken(r); token != "" {
		ss, err := d.logins.Session(r.Context(), store.HashKey(token))
		switch {
		case err == nil:
			out.SignedIn, out.Account, out.CSRFToken, out.ExpiresAt = true, ss.Account, credentials.CSRFToken(token), ss.Expires.Unix()
			route.Info(r.Context()).Account = ss.Account
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
	}
	respond.WriteJSON(w, http.StatusOK, out)
	return nil
}

// signIn answers POST /v1/session: the password checked, a new session
// and its cookie.
func (d *signin) signIn(w http.ResponseWriter, r *http.Request) error {
	body, werr := d.body.ReadBody(w, r)
	if werr != nil {
		return werr
	}
	in, err := wire.ParseSignIn(body, "account")
	if err != nil {
		return fault.ToError(err, "")
	}
	if werr := d.checkPassword(w, r, in.Account, in.Password); werr != nil {
		return werr
	}
	out, err := d.startSession(w, r, in.Account)
	if err != nil {
		return err
	}
	respond.WriteJSON(w, http.StatusOK, out)
	return nil
}

// signOut answers DELETE /v1/session: the session ended and its cookie
// cleared. Without a live session there is nothing to end.
func (d *signin) signOut(w http.ResponseWriter, r *http.Request) error {
	token := d.auth.SessionToken(r)
	if token != "" {
		if _, werr := d.auth.AdmitSession(r, token); werr != nil && werr.Code == fault.CodeBadCSRFToken {
			return werr
		}
		if err := d.logins.DeleteSession(r.Context(), store.HashKey(token)); err != nil {
			return err
		}
	}
	d.setCookie(w, r, "", time.Time{})
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// changePassword answers POST /v1/account/password: the current password
// checked, the new one stored, every session of the account ended, and a
// new one started when the request came with the cookie.
func (d *signin) changePassword(w http.ResponseWriter, r *http.Request) error {
	body, werr := d.body.ReadBody(w, r)
	if werr != nil {
		return werr
	}
	pc, err := wire.ParsePasswordChange(body)
	if err != nil {
		return fault.ToError(err, "")
	}
	if len([]rune(pc.New)) < store.MinPasswordLen {
		return fault.WeakPassword("new_password", store.MinPasswordLen)
	}
	account := route.Info(r.Context()).Account
	if werr := d.checkPassword(w, r, account, pc.Current); werr != nil {
		if werr.Code == fault.CodeInvalidCredentials {
			return &fault.Error{Status: http.StatusBadRequest, Type: fault.TypeInvalidRequest, Code: fault.CodeInvalidCredentials,
				Param: "current_password", Message: "The current password is wrong."}
		}
		return werr
	}
	if err := d.setPassword(w, r.Context(), account, pc.New); err != nil {
		return err
	}
	out := d.sessionInfo()
	if d.auth.SessionToken(r) != "" {
		if out, err = d.startSession(w, r, account); err != nil {
			return err
		}
	}
	respond.WriteJSON(w, http.StatusOK, out)
	return nil
}

// setPassword hashes password and stores it, ending account's sessions.
func (d *signin) setPassword(w http.ResponseWriter, ctx context.Context, account, password string) error {
	hash, err := d.hashPassword(w, ctx, password)
	if err != nil {
		return err
	}
	return d.logins.SetPassword(ctx, account, hash)
}

// hashPassword hashes password in one of the hashing slots.
func (d *signin) hashPassword(w http.ResponseWriter, ctx context.Context, password string) (string, error) {
	if werr := d.acquireHashing(w, ctx); werr != nil {
		return "", werr
	}
	defer d.releaseHashing()
	return store.HashPassword(password)
}

// startSession stores a new session of account and sets its cookie.
func (d *signin) startSession(w http.ResponseWriter, r *http.Request, account string) (wire.Session, error) {
	token, err := newSessionToken()
	if err != nil {
		return wire.Session{}, err
	}
	now := time.Now()
	ss := store.Session{TokenHash: store.HashKey(token), Account: account, Created: now, Expires: now.Add(SessionLifetime)}
	if err := d.logins.CreateSession(r.Context(), ss); err != nil {
		return wire.Session{}, err
	}
	d.setCookie(w, r, token, ss.Expires)
	route.Info(r.Context()).Account = account
	out := d.sessionInfo()
	out.SignedIn, out.Account, out.CSRFToken, out.ExpiresAt = true, account, credentials.CSRFToken(token), ss.Expires.Unix()
	return out, nil
}

// sessionInfo is the part of a wire.Session that describes the server:
// how it signs users in and what they may manage.
func (d *signin) sessionInfo() wire.Session {
	return wire.Session{Object: "session", Signup: d.signup, Passwords: d.logins != nil, Keys: d.store != nil}
}

// setCookie sets the session cookie to token until expires, or clears it
// when token is "".
func (d *signin) setCookie(w http.ResponseWriter, r *http.Request, token string, expires time.Time) {
	c := &http.Cookie{Name: credentials.SessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: d.proxies.Secure(r), Expires: expires}
	if token == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// checkPassword checks account's password under the throttle. Every
// refusal says the same whether the account exists or not, and takes as
// long.
func (d *signin) checkPassword(w http.ResponseWriter, r *http.Request, account, password string) *fault.Error {
	keys := []throttle.Key{{Name: "account " + account, Rate: accountAttempts}, {Name: "address " + d.proxies.ClientAddress(r), Rate: addressAttempts}}
	if werr := d.reserveAttempt(w, keys...); werr != nil {
		return werr
	}
	hash, err := d.logins.PasswordHash(r.Context(), account)
	known := err == nil
	switch {
	case errors.Is(err, store.ErrNotFound):
		hash = decoyHash()
	case err != nil:
		d.log.Error("server: reading password", "err", err, "request_id", route.RequestID(r.Context()))
		return fault.Internal(route.RequestID(r.Context()))
	}
	if werr := d.acquireHashing(w, r.Context()); werr != nil {
		return werr
	}
	ok, err := store.CheckPassword(hash, password)
	d.releaseHashing()
	if err != nil {
		d.log.Error("server: stored password hash", "account", account, "err", err)
	}
	if !ok || !known {
		d.log.Info("server: sign-in refused", "account", credentials.Printable(account), "address", d.proxies.ClientAddress(r), "request_id", route.RequestID(r.Context()))
		return fault.InvalidCredentials()
	}
	d.attempts.Refund(keys...)
	return nil
}

// reserveAttempt takes an attempt from every key's bucket, or answers
// 429 with how long until each has one.
func (d *signin) reserveAttempt(w http.ResponseWriter, keys ...throttle.Key) *fault.Error {
	if wait := d.attempts.Reserve(keys...); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds()+0.999)))
		return fault.TooManyAttempts(wait)
	}
	return nil
}

// acquireHashing waits for one of the maxHashing hashing slots, unless
// maxHashQueue attempts wait already: then 429 at once.
func (d *signin) acquireHashing(w http.ResponseWriter, ctx context.Context) *fault.Error {
	if d.hashWaiting.Add(1) > maxHashQueue {
		d.hashWaiting.Add(-1)
		w.Header().Set("Retry-After", "1")
		return fault.TooManyAttempts(time.Second)
	}
	defer d.hashWaiting.Add(-1)
	select {
	case d.hashing <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fault.ToError(ctx.Err(), "")
	}
}

func (d *signin) releaseHashing() { <-d.hashing }

// decoyHash is a hash no password matches, checked for accounts that do
// not exist so that they answer as slowly as those that do.
var decoyHash = sync.OnceValue(func() string {
	h, err := store.HashPassword(base64.RawURLEncoding.EncodeToString([]byte(time.Now().String())))
	if err != nil {
		panic("server: " + err.Error())
	}
	return h
})
