package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
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
)

// Account owns API keys and voice clones. Its name is its id: the value
// the voice catalog stores as a clone's owner.
type Account struct {
	Name    string
	Created time.Time
}

// Key describes a stored API key; the plaintext is never part of it.
type Key struct {
	// Prefix is the display prefix, "sk_" and 8 characters. It is unique.
	Prefix  string
	Account string
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
	// CreateKey makes a new key for account and returns it with its
	// plaintext, which is not kept anywhere.
	CreateKey(ctx context.Context, account, name string) (Key, string, error)
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
	// Close releases the store.
	Close() error
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
		return fmt.Errorf("store: account name must have 1 to 64 characters, got %d", len(name))
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || i > 0 && strings.ContainsRune("-_.", r)
		if !ok {
			return fmt.Errorf("store: account name %q: character %q not allowed (use a-z, 0-9, - _ .)", name, r)
		}
	}
	return nil
}
