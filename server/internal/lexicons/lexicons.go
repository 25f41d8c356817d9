// Package lexicons is the room of the accounts' pronunciation lexicons:
// stored (Library.CreateLexicon, ReviseLexicon, … for /v1/lexicons and
// the vendors' dictionaries) and applied to requests (Named before a
// request is admitted, Load after; Lexicons both), each version parsed
// once and kept in a cache bounded in bytes. The core and the doors call
// it; it knows neither.
package lexicons

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tags/ssml"
	"github.com/voxkit/voxkit/tts"
)

// Pronunciation lexicons of an account, applied to its requests: those a
// request names (Job.Lexicons, and the <lexicon uri> elements of its
// SSML), or when it names none the account's defaults, each once. A
// version of a lexicon never changes, so each is parsed once and kept
// (lexiconCache, bounded in bytes);
// which version is the latest, and the defaults, are read from the store
// at most every lexiconFresh per account, and at once after a change
// made through this server.

// Config is what a Library is made of.
type Config struct {
	// Store keeps the lexicons when it is a store.Lexicons; else the
	// server has none.
	Store store.Store
	Log   *slog.Logger
	// MaxLexicons is the most pronunciation lexicons an account may
	// hold (ElevenLabs' dictionaries are lexicons too).
	MaxLexicons int
	// LexiconStorage is the most bytes of lexicon documents an account
	// may hold, every kept version counted; 0: no bound.
	LexiconStorage int64
}

// Library keeps the accounts' lexicons. Its methods are safe for
// concurrent use.
type Library struct {
	Config
	lexicons lexiconCache
	revising revisions // one revision of a lexicon at a time (ReviseLexicon)
}

// New returns the Library of cfg.
func New(cfg Config) *Library {
	l := &Library{Config: cfg}
	l.lexicons.parsing = make(chan struct{}, 1)
	return l
}

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

// The parsed versions kept take at most lexiconCacheBytes (as
// lexicon.Lexicon.Size estimates them; a 1 MiB document parses to about
// 1.4 MB) and each account's at most a lexiconShares-th of it: an account
// that would pass its part makes room among its own, and when the cache
// is full the account that holds the most gives up its least recently
// used one, so no account can push out what others hold below its part.
// A version larger than an account's part is parsed for each request.
// The bound is small because the heap grows to several times what is
// live (the example server runs the collector at -gc-percent 400): 258
// lexicons of 1 MiB named by three accounts at once, 8 a request, raise
// that server's peak RSS by 174-181 MB with 16 MiB and one parse at a
// time (240 MB with 32 MiB and parses at once; 1,144 MB before).
// An account's part holds hundreds of lexicons of a few hundred entries.
const (
	lexiconCacheBytes = 16 << 20
	lexiconShares     = 4
	maxParsedLexicons = 4096 // versions, however small
)

// lexiconCache keeps parsed versions and each account's state.
type lexiconCache struct {
	mu       sync.Mutex
	parsed   map[lexiconKey]*list.Element // of *parsedLexicon, in its account's list
	lru      map[string]*list.List        // by account: its versions, the most recently used first
	held     map[string]int               // by account: the bytes of its versions
	bytes    int
	max      int // bytes; 0: lexiconCacheBytes
	accounts map[string]accountLexicons
	parsing  chan struct{} // holds a token while a version is parsed
}

// parsedLexicon is a version in the cache.
type parsedLexicon struct {
	key  lexiconKey
	l    *lexicon.Lexicon
	size int
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

// get returns the version k names, if kept, and marks it used.
func (lc *lexiconCache) get(k lexiconKey) (*lexicon.Lexicon, bool) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	e, ok := lc.parsed[k]
	if !ok {
		return nil, false
	}
	lc.lru[k.account].MoveToFront(e)
	return e.Value.(*parsedLexicon).l, true
}

// put keeps l, the version k names, making room as the cache's rules
// say; it returns the version kept, which another request may have put
// first.
func (lc *lexiconCache) put(k lexiconKey, l *lexicon.Lexicon) *lexicon.Lexicon {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if e, ok := lc.parsed[k]; ok {
		return e.Value.(*parsedLexicon).l
	}
	max := cmp.Or(lc.max, lexiconCacheBytes)
	share, size := max/lexiconShares, l.Size()
	if size > share {
		return l
	}
	if lc.parsed == nil {
		lc.parsed, lc.lru, lc.held = make(map[lexiconKey]*list.Element), make(map[string]*list.List), make(map[string]int)
	}
	for lc.held[k.account]+size > share {
		lc.evict(k.account)
	}
	for lc.bytes+size > max || len(lc.parsed) >= maxParsedLexicons {
		most := ""
		for a, n := range lc.held {
			if n > lc.held[most] || most == "" {
				most = a
			}
		}
		lc.evict(most)
	}
	own := lc.lru[k.account]
	if own == nil {
		own = list.New()
		lc.lru[k.account] = own
	}
	lc.parsed[k] = own.PushFront(&parsedLexicon{key: k, l: l, size: size})
	lc.held[k.account] += size
	lc.bytes += size
	return l
}

// evict drops account's least recently used version.
func (lc *lexiconCache) evict(account string) {
	own := lc.lru[account]
	p := own.Remove(own.Back()).(*parsedLexicon)
	delete(lc.parsed, p.key)
	lc.bytes -= p.size
	if lc.held[account] -= p.size; own.Len() == 0 {
		delete(lc.held, account)
		delete(lc.lru, account)
	}
}

// LexiconsChanged forgets what is known of account's lexicons, after a
// change to them.
func (c *Library) LexiconsChanged(account string) {
	c.lexicons.mu.Lock()
	delete(c.lexicons.accounts, account)
	c.lexicons.mu.Unlock()
}

// Lexicons returns the lexicons account's request applies: refs, or when
// refs is nil the account's defaults; then those the SSML input names.
// Its errors: fault.LexiconNotFound for one the account does not have,
// fault.NoLexicons when the store keeps none and one is named.
func (c *Library) Lexicons(ctx context.Context, account string, refs []LexiconRef, req tts.Request) ([]*lexicon.Lexicon, *fault.Error) {
	named, werr := c.Named(ctx, account, refs, req)
	if werr != nil {
		return nil, werr
	}
	return c.Load(ctx, account, named)
}

// Named is a lexicon a request names, its version resolved (Named).
type Named struct {
	ref LexiconRef
	// versionNamed: the request named the version; known: the account
	// has a lexicon of that id.
	versionNamed, known bool
}

// Named is the part of Lexicons that reads no lexicon: which
// versions the request names (each once), or the error Lexicons returns
// for a lexicon the account does not have. It costs little, and runs
// before a request is admitted; Load, after.
func (c *Library) Named(ctx context.Context, account string, refs []LexiconRef, req tts.Request) ([]Named, *fault.Error) {
	ls, ok := c.Store.(store.Lexicons)
	if req.InputFormat == tts.InputSSML || req.InputFormat == tts.InputAuto && ssml.Is(req.Input) {
		for _, uri := range ssml.LexiconURIs(req.Input) {
			refs = append(refs, LexiconRef{ID: uri})
		}
	}
	if !ok {
		if len(refs) > 0 {
			return nil, fault.NoLexicons()
		}
		return nil, nil
	}
	if len(refs) > tts.MaxLexicons {
		return nil, fault.ToError(tts.ErrTooManyLexicons, "")
	}
	state, err := c.accountLexicons(ctx, ls, account)
	if err != nil {
		return nil, c.internal(ctx, "reading an account's lexicons", err)
	}
	if refs == nil {
		refs = RefsOf(state.defaults)
	}
	out := make([]Named, 0, len(refs))
	for _, ref := range refs {
		latest, known := state.latest[ref.ID]
		n := Named{ref: ref, versionNamed: ref.Version != "", known: known}
		if !n.versionNamed {
			if !known {
				return nil, fault.LexiconNotFound(ref.ID)
			}
			n.ref.Version = latest
		}
		if !slices.ContainsFunc(out, func(o Named) bool { return o.ref == n.ref }) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Load reads and parses the versions Named named, or takes
// them from the cache.
func (c *Library) Load(ctx context.Context, account string, named []Named) ([]*lexicon.Lexicon, *fault.Error) {
	if len(named) == 0 {
		return nil, nil
	}
	ls := c.Store.(store.Lexicons)
	out := make([]*lexicon.Lexicon, 0, len(named))
	for _, n := range named {
		l, werr := c.lexicon(ctx, ls, account, n.ref)
		if werr != nil && n.versionNamed && n.known && werr.Code == fault.CodeLexiconNotFound {
			werr = fault.LexiconVersionNotFound(n.ref.ID, n.ref.Version)
		}
		if werr != nil {
			return nil, werr
		}
		out = append(out, l)
	}
	return out, nil
}

// internal logs err, a failure of the server's, and returns the 500.
func (c *Library) internal(ctx context.Context, what string, err error) *fault.Error {
	c.Log.Error("server: "+what, "err", err, "request_id", route.RequestID(ctx))
	return fault.Internal(route.RequestID(ctx))
}

// accountLexicons returns what the store says of account's lexicons, at
// most lexiconFresh old.
func (c *Library) accountLexicons(ctx context.Context, ls store.Lexicons, account string) (accountLexicons, error) {
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
func (c *Library) lexicon(ctx context.Context, ls store.Lexicons, account string, ref LexiconRef) (*lexicon.Lexicon, *fault.Error) {
	k := lexiconKey{account, ref}
	if l, ok := c.lexicons.get(k); ok {
		return l, nil
	}
	// One version is read and parsed at a time, server-wide: what a parse
	// holds while it runs (the document, the decoder's state, the lexicon
	// taking shape) is live once, not once per request.
	select {
	case c.lexicons.parsing <- struct{}{}:
		defer func() { <-c.lexicons.parsing }()
	case <-ctx.Done(): // the client is gone: nobody reads this
		return nil, fault.Internal(route.RequestID(ctx))
	}
	if l, ok := c.lexicons.get(k); ok { // parsed while this request waited
		return l, nil
	}
	stored, err := ls.Lexicon(ctx, account, ref.ID, ref.Version)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, fault.LexiconNotFound(ref.ID)
	case err != nil:
		return nil, c.internal(ctx, "reading a lexicon", err)
	}
	l, err := lexicon.Parse(stored.PLS)
	if err != nil { // stored only once parsed: a document of another server's version
		return nil, c.internal(ctx, "parsing a stored lexicon", err)
	}
	l.Name = stored.Name
	return c.lexicons.put(k, l), nil
}
