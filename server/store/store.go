package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"
)

// Errors returned (wrapped) by a Store.
var (
	ErrNotFound      = errors.New("store: not found")
	ErrAccountExists = errors.New("store: account already exists")
	ErrInvalidKey    = errors.New("store: invalid api key")
	ErrRevokedKey    = errors.New("store: api key revoked")
	ErrAmbiguous     = errors.New("store: prefix matches several keys")
	ErrVoiceExists   = errors.New("store: the account has a voice of that id")
	ErrLimit         = errors.New("store: limit reached")
)

// Account owns API keys and voice clones. Its name is its id: the value
// the voice catalog stores as a clone's owner.
type Account struct {
	Name    string
	Created time.Time
}

// Scope is what an API key may do.
type Scope string

// The scopes. An admin key may do everything its account may; a speech
// key may only synthesize speech and list voices. A gateway key is a
// gateway's own key for its workers (package server/upstream): it may do
// what a speech key may, and also send a voice cloned from a recording
// with a speech request and have a worker encode a recording — what only
// a gateway needs, which an admin key may not do.
const (
	ScopeAdmin   Scope = "admin"
	ScopeSpeech  Scope = "speech"
	ScopeGateway Scope = "gateway"
)

// Valid reports whether s is one of the scopes.
func (s Scope) Valid() bool { return s == ScopeAdmin || s == ScopeSpeech || s == ScopeGateway }

// Allows reports whether a key of scope s may do what needs scope need:
// its own, and speech for admin and gateway keys.
func (s Scope) Allows(need Scope) bool {
	return s == need || need == ScopeSpeech && (s == ScopeAdmin || s == ScopeGateway)
}

// Key describes a stored API key; the plaintext is never part of it.
type Key struct {
	// Prefix is the display prefix, "sk_" and 8 characters. It is unique.
	Prefix  string
	Account string
	Scope   Scope
	// Name is a free label given at creation.
	Name    string
	Created time.Time
	// LastUsed is zero for a key never used. It is updated at most once a
	// minute per key.
	LastUsed time.Time
	// Revoked is zero for a live key.
	Revoked time.Time
}

// Store persists accounts and keys. Implementations are safe for
// concurrent use.
type Store interface {
	// CreateAccount adds an account; ErrAccountExists if the name is taken.
	CreateAccount(ctx context.Context, name string) (Account, error)
	// Account returns the named account or ErrNotFound.
	Account(ctx context.Context, name string) (Account, error)
	// Accounts lists all accounts by name.
	Accounts(ctx context.Context) ([]Account, error)
	// CreateKey makes a new key and returns it with its plaintext, which
	// is not kept anywhere. ErrNotFound if the account does not exist,
	// ErrLimit if it holds k.Max live keys already (checked and inserted
	// atomically).
	CreateKey(ctx context.Context, k NewKey) (Key, string, error)
	// Keys lists the keys of account, all keys when account is "", newest
	// first.
	Keys(ctx context.Context, account string) ([]Key, error)
	// RevokeKey revokes the key whose display prefix starts with prefix
	// (at least "sk_" and 4 characters), within account unless account is
	// "". ErrNotFound if none matches, ErrAmbiguous if several do.
	RevokeKey(ctx context.Context, account, prefix string) (Key, error)
	// VerifyKey returns the key whose plaintext is key, ErrInvalidKey if
	// there is none, ErrRevokedKey (with the key) if it was revoked. It
	// records the use.
	VerifyKey(ctx context.Context, key string) (Key, error)
	// CreateVoice adds a voice clone owned by v.Account (which must
	// exist, else ErrNotFound) and returns it with its creation time.
	// Clone ids are per account: ErrVoiceExists if v.Account has a clone
	// of that id, ErrLimit if it holds max clones already (max > 0; the
	// count and the insert are atomic).
	CreateVoice(ctx context.Context, v Voice, max int) (Voice, error)
	// Voice returns the clone id of account, or ErrNotFound.
	Voice(ctx context.Context, account, id string) (Voice, error)
	// Voices lists the voice clones of account, all clones when account
	// is "", by id.
	Voices(ctx context.Context, account string) ([]Voice, error)
	// DeleteVoice deletes the clone id of account and returns it;
	// ErrNotFound if account has no such clone.
	DeleteVoice(ctx context.Context, account, id string) (Voice, error)
	// Close releases the store.
	Close() error
}

// NewKey describes a key for CreateKey to make.
type NewKey struct {
	Account string
	// Name is a free label.
	Name  string
	Scope Scope
	// Max, when above 0, is the most live (unrevoked) keys the account
	// may hold.
	Max int
}

// Voice is a stored voice clone: a derived voice that speaks with a base
// voice and a default style, or a voice cloned from a recording (Sample). Its fields are the style settings a client
// gave, with the neutral value (1 for factors, 0 for shifts) where it
// gave none.
type Voice struct {
	// ID is unique within its account: two accounts may each have a
	// clone of the same id.
	ID      string
	Account string
	// Base is the id of the global voice it speaks with.
	Base string
	// Name is a free label.
	Name string
	// Speed multiplies the speaking rate (voices.CheckSettings holds
	// the ranges of the settings; a Store refuses only what no voice can
	// be: a value that is not a finite number, a speed or range that is
	// not positive, a negative volume).
	Speed float64
	// Pitch shifts the voice in semitones.
	Pitch float64
	// Range multiplies the pitch range.
	Range float64
	// Volume multiplies the amplitude; 0 is silence.
	Volume  float64
	Whisper bool
	Created time.Time
	// Sample is, for a voice cloned from a recording, what the engine
	// made of the recording (engine.Cloner.CloneVoice), which it speaks
	// with; Base is then the model that made it. nil for a derived voice.
	Sample []byte
}

// Check reports a Voice that cannot be stored (a Store refuses it).
func (v Voice) Check() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case v.ID == "" || v.Account == "" || v.Base == "":
		return errors.New("store: voice needs an id, an account and a base")
	case !finite(v.Speed) || v.Speed <= 0:
		return fmt.Errorf("store: voice speed %g is not a positive number", v.Speed)
	case !finite(v.Pitch):
		return fmt.Errorf("store: voice pitch %g is not a number", v.Pitch)
	case !finite(v.Range) || v.Range <= 0:
		return fmt.Errorf("store: voice range %g is not a positive number", v.Range)
	case !finite(v.Volume) || v.Volume < 0:
		return fmt.Errorf("store: voice volume %g is not a number of at least 0", v.Volume)
	}
	return nil
}

// Key format.
const (
	KeyPrefix    = "sk_"
	keyBody      = 43 // base62 digits of 256 bits
	KeyLength    = len(KeyPrefix) + keyBody
	displayChars = 8
	base62       = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// GenerateKey returns a new random plaintext key, its display prefix and
// its hash.
func GenerateKey() (plaintext, prefix string, hash []byte, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", nil, fmt.Errorf("store: %w", err)
	}
	n := new(big.Int).SetBytes(b[:])
	digits := make([]byte, keyBody)
	base, mod := big.NewInt(62), new(big.Int)
	for i := keyBody - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		digits[i] = base62[mod.Int64()]
	}
	plaintext = KeyPrefix + string(digits)
	return plaintext, DisplayPrefix(plaintext), HashKey(plaintext), nil
}

// HashKey returns the stored form of a plaintext key.
func HashKey(plaintext string) []byte {
	h := sha256.Sum256([]byte(plaintext))
	return h[:]
}

// DisplayPrefix returns the printable prefix of a key: "sk_" and the next
// 8 characters (or less of a malformed key).
func DisplayPrefix(key string) string {
	n := min(len(key), len(KeyPrefix)+displayChars)
	return key[:n]
}

// WellFormed reports whether key has the shape of a voxkit key, so that
// garbage is rejected without a lookup.
func WellFormed(key string) bool {
	if len(key) != KeyLength || !strings.HasPrefix(key, KeyPrefix) {
		return false
	}
	for i := len(KeyPrefix); i < len(key); i++ {
		if strings.IndexByte(base62, key[i]) < 0 {
			return false
		}
	}
	return true
}

// HashEqual compares a stored hash with the hash of key in constant time.
func HashEqual(stored []byte, key string) bool {
	return subtle.ConstantTimeCompare(stored, HashKey(key)) == 1
}

// ValidateAccountName accepts 1 to 64 characters of lower-case letters,
// digits, '-', '_' and '.', starting with a letter or digit.
func ValidateAccountName(name string) error {
	if name == "" || len(name) > 64 {
		return &NameError{fmt.Sprintf("account name must have 1 to 64 characters, got %d", len(name))}
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || i > 0 && strings.ContainsRune("-_.", r)
		if !ok {
			return &NameError{fmt.Sprintf("account name %q: character %q not allowed (use a-z, 0-9, - _ .)", name, r)}
		}
	}
	return nil
}

// NameError is ValidateAccountName's refusal of an account name.
type NameError struct {
	// Reason says what is wrong with the name, as a client may be told.
	Reason string
}

func (e *NameError) Error() string { return "store: " + e.Reason }

// Sessions is implemented by stores that keep accounts' passwords and
// their sign-in sessions, which the server's web playground signs in
// with. A store without it serves API keys only.
type Sessions interface {
	// SetPassword stores the hash of account's password (HashPassword's
	// result) and ends the account's sessions, in one transaction.
	// ErrNotFound if the account does not exist.
	SetPassword(ctx context.Context, account, hash string) error
	// CreateAccountWithPassword creates account name with the hash of
	// its password (HashPassword's result) in one transaction, so that no
	// account is ever left without the password it was created with.
	// Errors as CreateAccount.
	CreateAccountWithPassword(ctx context.Context, name, hash string) (Account, error)
	// PasswordHash returns the stored hash; ErrNotFound if the account
	// does not exist or has no password.
	PasswordHash(ctx context.Context, account string) (string, error)
	// CreateSession stores a new session. ErrNotFound if its account does
	// not exist.
	CreateSession(ctx context.Context, s Session) error
	// Session returns the live session whose token hashes to tokenHash
	// (HashKey of the token); ErrNotFound if there is none or it has
	// expired.
	Session(ctx context.Context, tokenHash []byte) (Session, error)
	// DeleteSession ends a session; ending one that does not exist is
	// not an error.
	DeleteSession(ctx context.Context, tokenHash []byte) error
}

// Session is a signed-in browser: the hash of its cookie's token (the
// token itself is not stored), its account and when it ends.
type Session struct {
	TokenHash []byte
	Account   string
	Created   time.Time
	Expires   time.Time
}

// Limits bound each account's speech requests. Zero fields mean no
// limit.
type Limits struct {
	// RequestsPerMinute is the most speech requests an account may start
	// in a minute (a WebSocket utterance counts as one).
	RequestsPerMinute int
	// Concurrent is the most speech requests an account may have running
	// at once.
	Concurrent int
}

// Limiter is implemented by stores that count accounts' requests where
// every server sharing the store sees them, so that Limits hold across
// a fleet. A server whose store is not one counts in its own memory.
type Limiter interface {
	// Begin admits a speech request of account under l and returns the
	// function to call when it ends; or a *LimitError.
	Begin(ctx context.Context, account string, l Limits) (end func(), err error)
}

// VoiceCounter is implemented by stores that count an account's voice
// clones without reading them: the server checks the clone limit with it
// before it encodes a recording (CreateVoice's count still decides).
type VoiceCounter interface {
	// VoiceCount returns how many voice clones account holds; 0 for an
	// account that does not exist.
	VoiceCount(ctx context.Context, account string) (int, error)
}

// VoiceHeader is implemented by stores that list voice clones without
// reading their samples: a server lists every clone at start and reads a
// clone's sample (Voice) only when it is first spoken, so that what it
// holds at start does not grow with the clones stored.
type VoiceHeader interface {
	// VoiceHeads lists as Voices does, but leaves the samples unread: a
	// voice cloned from a recording has an empty, non-nil Sample
	// ([]byte{}), a derived voice a nil one.
	VoiceHeads(ctx context.Context, account string) ([]Voice, error)
}

// LimitError is a request refused by Limits.
type LimitError struct {
	// Concurrent is true when the concurrency limit refused it, false
	// for the rate.
	Concurrent bool
	// RetryAfter is when to try again.
	RetryAfter time.Duration
}

func (e *LimitError) Error() string {
	if e.Concurrent {
		return "store: too many concurrent requests"
	}
	return "store: too many requests per minute"
}

// Pinger is implemented by stores that can say whether they are
// reachable; the server's readiness check (server.Server.Ready) uses it.
type Pinger interface {
	Ping(ctx context.Context) error
}

// VoiceWatcher is implemented by stores that several servers share: it
// tells each server when any of them creates or deletes a voice clone,
// so that its catalog follows.
type VoiceWatcher interface {
	// WatchVoices calls changed with the account and id of each clone
	// created or deleted, until ctx ends; and with ("", "") when changes
	// may have been missed (when it starts, and after a lost
	// connection), for the caller to reload every clone. Calls come one at
	// a time.
	WatchVoices(ctx context.Context, changed func(account, id string))
}
