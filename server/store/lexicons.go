package store

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrLexiconExists is CreateLexicon's error for an id the account has.
var ErrLexiconExists = errors.New("store: the account has a lexicon of that id")

// ErrLexiconStorage is CreateLexicon's and AddLexiconVersion's error
// (wrapped) when the account's lexicons would hold more than
// LexiconQuota.Bytes. It wraps ErrLimit.
var ErrLexiconStorage = fmt.Errorf("%w: lexicon storage", ErrLimit)

// LexiconQuota bounds what an account's lexicons hold: at most Lexicons
// lexicons, and Bytes bytes of documents, every kept version of each
// counted. 0 is no bound.
type LexiconQuota struct {
	Lexicons int
	Bytes    int64
}

// CheckStorage returns ErrLexiconStorage (wrapped) when held, the bytes
// of account's lexicon documents after a change, passes q.Bytes: a store
// counts them in the change's transaction, after the change, and gives
// up the change on this error.
func (q LexiconQuota) CheckStorage(account string, held int64) error {
	if q.Bytes > 0 && held > q.Bytes {
		return fmt.Errorf("%w: account %q would hold %d bytes of lexicons, more than %d", ErrLexiconStorage, account, held, q.Bytes)
	}
	return nil
}

// LexiconVersionsKept is how many versions of a lexicon a store keeps:
// AddLexiconVersion removes the oldest beyond it, so that a client adding
// rules one by one cannot fill the database. The latest is always kept.
const LexiconVersionsKept = 100

// Lexicon is one version of a pronunciation dictionary owned by an
// account: a W3C PLS document kept as the bytes it was given (a store
// does not parse it). Each change makes a new version, with an id of its
// own; the latest is the one a speech request uses when it names no
// version. A version never changes once made, so a caller may keep what
// it makes of one by account, id and version, and learn the latest
// versions from ListLexicons, which reads no document.
type Lexicon struct {
	// ID is unique within its account: two accounts may each have a
	// lexicon of the same id.
	ID      string
	Account string
	// Name is a free label.
	Name string
	// Version is the id of this version, unique within the lexicon.
	Version string
	// PLS is the document. It is nil where a list or a deletion leaves
	// it out (ListLexicons, LexiconVersions, DeleteLexicon).
	PLS []byte
	// Lexemes is the number of lexemes in PLS, as the caller counted them.
	Lexemes int
	// Created is when the lexicon was created (its first version).
	Created time.Time
	// VersionCreated is when this version was made.
	VersionCreated time.Time
}

// Lexicons is implemented by stores that keep accounts' pronunciation
// lexicons. Every method is scoped by account: another account's lexicon
// is ErrNotFound, as an unknown id is, for reading, listing, adding a
// version, deleting and naming as a default.
type Lexicons interface {
	// CreateLexicon adds l (PLS, Lexemes, Name, Account; ID and Version
	// are made when empty) as its first version and returns it with its
	// times. ErrNotFound if the account does not exist, ErrLexiconExists
	// if it has a lexicon of that id, ErrLimit if it holds q.Lexicons
	// lexicons already, ErrLexiconStorage if its documents would pass
	// q.Bytes (the count and the insert are atomic).
	CreateLexicon(ctx context.Context, l Lexicon, q LexiconQuota) (Lexicon, error)
	// AddLexiconVersion makes pls the latest version of lexicon id of
	// account, with a new version id, and returns it; the version and
	// the change of the latest are one transaction, and concurrent
	// additions each make a version. Versions beyond LexiconVersionsKept
	// are removed, oldest first. ErrNotFound if account has no such
	// lexicon; ErrLexiconStorage if the account's documents would then
	// pass q.Bytes, every kept version counted (checked in the same
	// transaction, after the oldest is removed; q.Lexicons is not
	// used).
	AddLexiconVersion(ctx context.Context, account, id string, pls []byte, lexemes int, q LexiconQuota) (Lexicon, error)
	// Lexicon returns a version of lexicon id of account, the latest
	// when version is "", with its document; ErrNotFound if there is
	// none.
	Lexicon(ctx context.Context, account, id, version string) (Lexicon, error)
	// ListLexicons lists the latest versions of account's lexicons,
	// without their documents, in the order they were created.
	ListLexicons(ctx context.Context, account string) ([]Lexicon, error)
	// LexiconVersions lists the kept versions of lexicon id of account,
	// without their documents, oldest first; ErrNotFound if account has
	// no such lexicon.
	LexiconVersions(ctx context.Context, account, id string) ([]Lexicon, error)
	// DeleteLexicon deletes lexicon id of account, every version, and
	// takes it out of the account's defaults; it returns the latest
	// version, without its document. ErrNotFound if account has no such
	// lexicon.
	DeleteLexicon(ctx context.Context, account, id string) (Lexicon, error)
	// SetDefaultLexicons replaces the account's default lexicons (those
	// a speech request that names none uses) with ids, in their order;
	// an id given twice counts at its first place. ErrNotFound, changing
	// nothing, if the account does not exist or an id is not one of its
	// lexicons. No ids clears the defaults.
	SetDefaultLexicons(ctx context.Context, account string, ids []string) error
	// DefaultLexicons returns the ids of the account's default lexicons
	// in their order; none when it has none (or does not exist).
	DefaultLexicons(ctx context.Context, account string) ([]string, error)
}

// Prepare checks a lexicon CreateLexicon is given and returns it with an
// ID and a Version made for it where they are empty, and the times zero.
// A Store refuses what Prepare refuses.
func (l Lexicon) Prepare() (Lexicon, error) {
	switch {
	case l.Account == "":
		return Lexicon{}, errors.New("store: lexicon needs an account")
	case !utf8.ValidString(l.Name) || strings.IndexByte(l.Name, 0) >= 0:
		return Lexicon{}, fmt.Errorf("store: lexicon name %q is not text", l.Name)
	}
	if err := CheckLexiconVersion(l.PLS, l.Lexemes); err != nil {
		return Lexicon{}, err
	}
	for _, f := range []*string{&l.ID, &l.Version} {
		if *f == "" {
			*f = NewID()
		} else if err := checkID(*f); err != nil {
			return Lexicon{}, err
		}
	}
	l.Created, l.VersionCreated = time.Time{}, time.Time{}
	return l, nil
}

// CheckLexiconVersion reports a document AddLexiconVersion refuses: an
// empty one, or a negative count of lexemes.
func CheckLexiconVersion(pls []byte, lexemes int) error {
	switch {
	case len(pls) == 0:
		return errors.New("store: lexicon needs a PLS document")
	case lexemes < 0:
		return fmt.Errorf("store: lexicon has %d lexemes", lexemes)
	}
	return nil
}

// checkID accepts 1 to 64 letters, digits, '-' and '_'.
func checkID(id string) error {
	if len(id) > 64 {
		return fmt.Errorf("store: id %q has more than 64 characters", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("store: id %q: character %q not allowed (use A-Z, a-z, 0-9, - _)", id, r)
		}
	}
	return nil
}

// idLength is the length of NewID's ids: 20 base62 characters, 119 bits.
const idLength = 20

// NewID returns a random id of 20 letters and digits, the shape of the
// ids ElevenLabs gives its dictionaries and their versions.
func NewID() string {
	id := make([]byte, 0, idLength)
	var b [32]byte
	for len(id) < idLength {
		rand.Read(b[:]) // never fails (crypto/rand)
		for _, c := range b {
			// 248 = 4 × 62: below it every digit is as likely.
			if c < 248 && len(id) < idLength {
				id = append(id, base62[c%62])
			}
		}
	}
	return string(id)
}
