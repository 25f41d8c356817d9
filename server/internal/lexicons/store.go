package lexicons

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
)

// The account's lexicons as every door manages them (/v1/lexicons, the
// vendors' pronunciation dictionaries): stored as PLS documents checked
// by package lexicon, at most Config.MaxLexicons an account holding at
// most Config.LexiconStorage bytes of documents, each change
// forgotten by the cache of what requests apply (LexiconsChanged). Their
// errors are *fault.Error: fault.LexiconNotFound for a lexicon the account
// does not have (another account's is as unknown), fault.NoLexicons when
// the store keeps none, a logged 500 for the store's own failures.

// revisions locks lexicons, each apart, for ReviseLexicon.
type revisions struct {
	mu    sync.Mutex
	locks map[lexiconKey]*revision
}

// revision is the lock of one lexicon, and how many hold or wait for it.
type revision struct {
	sync.Mutex
	users int
}

// lock locks lexicon k and returns its unlock.
func (r *revisions) lock(k lexiconKey) (unlock func()) {
	r.mu.Lock()
	if r.locks == nil {
		r.locks = make(map[lexiconKey]*revision)
	}
	l := r.locks[k]
	if l == nil {
		l = new(revision)
		r.locks[k] = l
	}
	l.users++
	r.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		r.mu.Lock()
		if l.users--; l.users == 0 {
			delete(r.locks, k)
		}
		r.mu.Unlock()
	}
}

// lexiconStore is the store's lexicons, or fault.NoLexicons.
func (c *Library) lexiconStore() (store.Lexicons, *fault.Error) {
	if ls, ok := c.Store.(store.Lexicons); ok {
		return ls, nil
	}
	return nil, fault.NoLexicons()
}

// lexiconError is a store's err about account's lexicon id as the
// client is told it.
func (c *Library) lexiconError(ctx context.Context, id string, err error) *fault.Error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fault.LexiconNotFound(id)
	case errors.Is(err, store.ErrLexiconStorage):
		return fault.LexiconStorage(c.LexiconStorage)
	case errors.Is(err, store.ErrLimit):
		return fault.LexiconLimit(c.MaxLexicons)
	}
	return c.internal(ctx, "a lexicon in the store", err)
}

// CreateLexicon stores l as a new lexicon of account named name; pls, if
// set, is its document as the client sent it (else l's, marshalled).
func (c *Library) CreateLexicon(ctx context.Context, account, name string, l *lexicon.Lexicon, pls []byte) (store.Lexicon, *fault.Error) {
	ls, werr := c.lexiconStore()
	if werr != nil {
		return store.Lexicon{}, werr
	}
	if pls == nil {
		if pls, werr = marshal(l); werr != nil {
			return store.Lexicon{}, werr
		}
	}
	stored, err := ls.CreateLexicon(ctx, store.Lexicon{Account: account, Name: name, PLS: pls, Lexemes: len(l.Lexemes)}, c.lexiconQuota())
	if err != nil {
		return store.Lexicon{}, c.lexiconError(ctx, "", err)
	}
	c.LexiconsChanged(account)
	return stored, nil
}

// marshal is l as a PLS document within the bounds of one (a lexicon made
// from rules may write a longer document than its lexemes' bounds
// allow).
func marshal(l *lexicon.Lexicon) ([]byte, *fault.Error) {
	pls := l.Marshal()
	if _, err := lexicon.Parse(pls); err != nil {
		return nil, fault.BadLexicon(err)
	}
	return pls, nil
}

// lexiconQuota is what an account's lexicons may hold.
func (c *Library) lexiconQuota() store.LexiconQuota {
	return store.LexiconQuota{Lexicons: c.MaxLexicons, Bytes: c.LexiconStorage}
}

// ReviseLexicon makes a new version of account's lexicon id: revise gets
// the latest, parsed, and returns what the new one is. The revisions this
// server makes of one lexicon are one at a time, so that none is lost;
// other lexicons', and other accounts', do not wait for them.
func (c *Library) ReviseLexicon(ctx context.Context, account, id string, revise func(*lexicon.Lexicon) (*lexicon.Lexicon, *fault.Error)) (store.Lexicon, *fault.Error) {
	ls, werr := c.lexiconStore()
	if werr != nil {
		return store.Lexicon{}, werr
	}
	defer c.revising.lock(lexiconKey{account, LexiconRef{ID: id}})()
	_, l, werr := c.StoredLexicon(ctx, account, id, "")
	if werr != nil {
		return store.Lexicon{}, werr
	}
	if l, werr = revise(l); werr != nil {
		return store.Lexicon{}, werr
	}
	pls, werr := marshal(l)
	if werr != nil {
		return store.Lexicon{}, werr
	}
	stored, err := ls.AddLexiconVersion(ctx, account, id, pls, len(l.Lexemes), c.lexiconQuota())
	if err != nil { // ErrNotFound: deleted meanwhile
		return store.Lexicon{}, c.lexiconError(ctx, id, err)
	}
	c.LexiconsChanged(account)
	return stored, nil
}

// StoredLexicon returns a version ("": the latest) of account's lexicon
// id, as stored and parsed.
func (c *Library) StoredLexicon(ctx context.Context, account, id, version string) (store.Lexicon, *lexicon.Lexicon, *fault.Error) {
	ls, werr := c.lexiconStore()
	if werr != nil {
		return store.Lexicon{}, nil, werr
	}
	stored, err := ls.Lexicon(ctx, account, id, version)
	if err != nil {
		return store.Lexicon{}, nil, c.lexiconError(ctx, id, err)
	}
	l, err := lexicon.Parse(stored.PLS)
	if err != nil { // stored only once parsed: the failure is the server's
		return store.Lexicon{}, nil, c.internal(ctx, "parsing a stored lexicon", err)
	}
	return stored, l, nil
}

// ListLexicons returns account's lexicons, the latest version of each,
// without their documents.
func (c *Library) ListLexicons(ctx context.Context, account string) ([]store.Lexicon, *fault.Error) {
	ls, werr := c.lexiconStore()
	if werr != nil {
		return nil, werr
	}
	list, err := ls.ListLexicons(ctx, account)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, c.lexiconError(ctx, "", err)
	}
	return list, nil
}

// DeleteLexicon deletes account's lexicon id, every version.
func (c *Library) DeleteLexicon(ctx context.Context, account, id string) (store.Lexicon, *fault.Error) {
	ls, werr := c.lexiconStore()
	if werr != nil {
		return store.Lexicon{}, werr
	}
	stored, err := ls.DeleteLexicon(ctx, account, id)
	if err != nil {
		return store.Lexicon{}, c.lexiconError(ctx, id, err)
	}
	c.LexiconsChanged(account)
	return stored, nil
}

// DefaultLexicons returns the ids of account's default lexicons, in order.
func (c *Library) DefaultLexicons(ctx context.Context, account string) ([]string, *fault.Error) {
	ls, werr := c.lexiconStore()
	if werr != nil {
		return nil, werr
	}
	ids, err := ls.DefaultLexicons(ctx, account)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, c.lexiconError(ctx, "", err)
	}
	return append([]string{}, ids...), nil
}

// SetDefaultLexicons makes ids, in order, account's default lexicons;
// each must be the account's (fault.LexiconNotFound names the first that
// is not).
func (c *Library) SetDefaultLexicons(ctx context.Context, account string, ids []string) *fault.Error {
	ls, werr := c.lexiconStore()
	if werr != nil {
		return werr
	}
	err := ls.SetDefaultLexicons(ctx, account, ids)
	if errors.Is(err, store.ErrNotFound) {
		have, werr := c.ListLexicons(ctx, account)
		if werr != nil {
			return werr
		}
		for _, id := range ids {
			if !slices.ContainsFunc(have, func(l store.Lexicon) bool { return l.ID == id }) {
				return fault.LexiconNotFound(id)
			}
		}
	}
	if err != nil {
		return c.lexiconError(ctx, "", err)
	}
	c.LexiconsChanged(account)
	return nil
}
