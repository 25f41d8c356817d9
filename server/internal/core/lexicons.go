package core

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tags/ssml"
	"github.com/voxkit/voxkit/tts"
)

// Pronunciation lexicons of an account, applied to its requests: those a
// request names (Job.Lexicons, and the <lexicon uri> elements of its
// SSML), or when it names none the account's defaults. A version of a
// lexicon never changes, so each is parsed once and kept (lexiconCache);
// which version is the latest, and the defaults, are read from the store
// at most every lexiconFresh per account, and at once after a change
// made through this server.

// LexiconRef names a lexicon of an account: its id, and a version (""
// the latest).
type LexiconRef struct{ ID, Version string }

// RefsOf are the refs of lexicon ids, each at its latest version; nil
// stays nil (the account's defaults apply).
func RefsOf(ids []string) []LexiconRef {
	if ids == nil {
		return nil
	}
	refs := make([]LexiconRef, len(ids))
	for i, id := range ids {
		refs[i] = LexiconRef{ID: id}
	}
	return refs
}

// lexiconFresh is how long an account's latest versions and defaults, as
// read from the store, are taken as they are: a change another server
// made shows within it.
const lexiconFresh = 2 * time.Second

// maxParsedLexicons bounds the parsed versions kept; past it an
// arbitrary one makes room.
const maxParsedLexicons = 256

// lexiconCache keeps parsed versions and each account's state.
type lexiconCache struct {
	mu       sync.Mutex
	parsed   map[lexiconKey]*lexicon.Lexicon
	accounts map[string]accountLexicons
}

// accountLexicons is what the store said of an account's lexicons.
type accountLexicons struct {
	read     time.Time
	latest   map[string]string // version by id
	defaults []string
}

// lexiconKey names a version of an account's lexicon (ids are the
// account's own).
type lexiconKey struct {
	account string
	ref     LexiconRef
}

// LexiconsChanged forgets what is known of account's lexicons, after a
// change to them.
func (c *Core) LexiconsChanged(account string) {
	c.lexicons.mu.Lock()
	delete(c.lexicons.accounts, account)
	c.lexicons.mu.Unlock()
}

// Lexicons returns the lexicons account's request applies: refs, or when
// refs is nil the account's defaults; then those the SSML input names.
// Its errors: wire.LexiconNotFound for one the account does not have,
// wire.NoLexicons when the store keeps none and one is named.
func (c *Core) Lexicons(ctx context.Context, account string, refs []LexiconRef, req tts.Request) ([]*lexicon.Lexicon, *wire.Error) {
	ls, ok := c.Store.(store.Lexicons)
	if req.InputFormat == tts.InputSSML || req.InputFormat == tts.InputAuto && ssml.Is(req.Input) {
		for _, uri := range ssml.LexiconURIs(req.Input) {
			refs = append(refs, LexiconRef{ID: uri})
		}
	}
	if !ok {
		if len(refs) > 0 {
			return nil, wire.NoLexicons()
		}
		return nil, nil
	}
	if len(refs) > tts.MaxLexicons {
		return nil, wire.ToError(tts.ErrTooManyLexicons, "")
	}
	state, err := c.accountLexicons(ctx, ls, account)
	if err != nil {
		return nil, c.internal(ctx, "reading an account's lexicons", err)
	}
	if refs == nil {
		refs = RefsOf(state.defaults)
	}
	out := make([]*lexicon.Lexicon, 0, len(refs))
	for _, ref := range refs {
		latest, known := state.latest[ref.ID]
		versionNamed := ref.Version != ""
		if !versionNamed {
			if !known {
				return nil, wire.LexiconNotFound(ref.ID)
			}
			ref.Version = latest
		}
		l, werr := c.lexicon(ctx, ls, account, ref)
		if werr != nil && versionNamed && known && werr.Code == wire.CodeLexiconNotFound {
			werr = wire.LexiconVersionNotFound(ref.ID, ref.Version)
		}
		if werr != nil {
			return nil, werr
		}
		out = append(out, l)
	}
	return out, nil
}

// internal logs err, a failure of the server's, and returns the 500.
func (c *Core) internal(ctx context.Context, what string, err error) *wire.Error {
	c.Log.Error("server: "+what, "err", err, "request_id", RequestID(ctx))
	return wire.Internal(RequestID(ctx))
}

// accountLexicons returns what the store says of account's lexicons, at
// most lexiconFresh old.
func (c *Core) accountLexicons(ctx context.Context, ls store.Lexicons, account string) (accountLexicons, error) {
	lc := &c.lexicons
	lc.mu.Lock()
	state, ok := lc.accounts[account]
	lc.mu.Unlock()
	if ok && time.Since(state.read) < lexiconFresh {
		return state, nil
	}
	list, err := ls.ListLexicons(ctx, account)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return accountLexicons{}, err
	}
	defaults, err := ls.DefaultLexicons(ctx, account)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return accountLexicons{}, err
	}
	state = accountLexicons{read: time.Now(), latest: make(map[string]string, len(list)), defaults: defaults}
	for _, l := range list {
		state.latest[l.ID] = l.Version
	}
	lc.mu.Lock()
	if lc.accounts == nil {
		lc.accounts = make(map[string]accountLexicons)
	}
	lc.accounts[account] = state
	lc.mu.Unlock()
	return state, nil
}

// lexicon returns one version of account's lexicon, parsed.
func (c *Core) lexicon(ctx context.Context, ls store.Lexicons, account string, ref LexiconRef) (*lexicon.Lexicon, *wire.Error) {
	lc := &c.lexicons
	k := lexiconKey{account, ref}
	lc.mu.Lock()
	l, ok := lc.parsed[k]
	lc.mu.Unlock()
	if ok {
		return l, nil
	}
	stored, err := ls.Lexicon(ctx, account, ref.ID, ref.Version)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, wire.LexiconNotFound(ref.ID)
	case err != nil:
		return nil, c.internal(ctx, "reading a lexicon", err)
	}
	l, err = lexicon.Parse(stored.PLS)
	if err != nil { // stored only once parsed: a document of another server's version
		return nil, c.internal(ctx, "parsing a stored lexicon", err)
	}
	l.Name = stored.Name
	lc.mu.Lock()
	if lc.parsed == nil {
		lc.parsed = make(map[lexiconKey]*lexicon.Lexicon)
	}
	if len(lc.parsed) >= maxParsedLexicons {
		for old := range lc.parsed {
			delete(lc.parsed, old)
			break
		}
	}
	lc.parsed[k] = l
	lc.mu.Unlock()
	return l, nil
}
