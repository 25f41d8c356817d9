package lexicons

import (
	"context"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/lexicontest"
	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/tts"
)

// readsStore is a SQLite store that counts the lexicon versions read.
type readsStore struct {
	*sqlite.Store
	reads atomic.Int64
}

func (s *readsStore) Lexicon(ctx context.Context, account, id, version string) (store.Lexicon, error) {
	s.reads.Add(1)
	return s.Store.Lexicon(ctx, account, id, version)
}

// newLibrary is a Library over a SQLite store that counts lexicon reads.
func newLibrary(t *testing.T) (*Library, *readsStore) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "voxkit.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, a := range []string{"a", "b"} {
		if _, err := st.CreateAccount(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	rs := &readsStore{Store: st}
	return New(Config{Store: rs, Log: slog.New(slog.DiscardHandler)}), rs
}

// addLexicon stores doc as a lexicon of account and returns its id.
func addLexicon(t *testing.T, c *Library, account string, doc []byte) string {
	t.Helper()
	l, err := lexicon.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	stored, werr := c.CreateLexicon(context.Background(), account, "names", l, doc)
	if werr != nil {
		t.Fatal(werr)
	}
	return stored.ID
}

var whoPLS = []byte(`<lexicon version="1.0" alphabet="ipa" xml:lang="en"><lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme></lexicon>`)

// TestLexiconNamedTwice: a lexicon a request names more than once is
// applied once.
func TestLexiconNamedTwice(t *testing.T) {
	c, _ := newLibrary(t)
	id := addLexicon(t, c, "a", whoPLS)
	ls, werr := c.Lexicons(context.Background(), "a", []LexiconRef{{ID: id}, {ID: id}, {ID: id}}, tts.Request{Input: "Hi."})
	if werr != nil || len(ls) != 1 {
		t.Errorf("a lexicon named three times: %d lexicons, %v; want one", len(ls), werr)
	}
}

// TestLexiconCacheBounded: one account naming 40 lexicons of 1 MiB,
// each parsing to about 1.4 MB, leaves at most its part of the cache
// (lexiconCacheBytes / lexiconShares) on the heap; another account's
// lexicon is still kept.
func TestLexiconCacheBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("stores and parses 40 MiB of lexicons")
	}
	c, rs := newLibrary(t)
	ctx, req := context.Background(), tts.Request{Input: "Hi."}
	other := addLexicon(t, c, "b", whoPLS)
	if _, werr := c.Lexicons(ctx, "b", RefsOf([]string{other}), req); werr != nil {
		t.Fatal(werr)
	}
	doc := lexicontest.Hostile(lexicon.MaxBytes)
	var ids []string
	for range 40 {
		ids = append(ids, addLexicon(t, c, "a", doc))
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for _, id := range ids {
		if _, werr := c.Lexicons(ctx, "a", RefsOf([]string{id}), req); werr != nil {
			t.Fatal(werr)
		}
	}
	grown := int64(heap()) - int64(before)
	t.Logf("the heap grew %.1f MB", float64(grown)/1e6)
	if part := int64(lexiconCacheBytes / lexiconShares); grown > part+8<<20 {
		t.Errorf("the heap grew %d MB naming 40 lexicons of 1 MiB; want at most the account's part of the cache (%d MiB) and change", grown>>20, part>>20)
	}
	reads := rs.reads.Load()
	if _, werr := c.Lexicons(ctx, "b", RefsOf([]string{other}), req); werr != nil || rs.reads.Load() != reads {
		t.Errorf("another account's lexicon was dropped from the cache (%v)", werr)
	}
}

// TestRevisionsLockOneLexicon: a revision of one lexicon does not wait
// for a revision of another (of the account's, or another account's)
// under way.
func TestRevisionsLockOneLexicon(t *testing.T) {
	c, _ := newLibrary(t)
	ctx := context.Background()
	held, other, third := addLexicon(t, c, "a", whoPLS), addLexicon(t, c, "a", whoPLS), addLexicon(t, c, "b", whoPLS)
	inside, release := make(chan struct{}), make(chan struct{})
	go c.ReviseLexicon(ctx, "a", held, func(l *lexicon.Lexicon) (*lexicon.Lexicon, *fault.Error) {
		close(inside)
		<-release
		return l, nil
	})
	<-inside
	done := make(chan *fault.Error, 2)
	same := func(l *lexicon.Lexicon) (*lexicon.Lexicon, *fault.Error) { return l, nil }
	go func() { _, werr := c.ReviseLexicon(ctx, "a", other, same); done <- werr }()
	go func() { _, werr := c.ReviseLexicon(ctx, "b", third, same); done <- werr }()
	for range 2 {
		select {
		case werr := <-done:
			if werr != nil {
				t.Error(werr)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a revision of another lexicon waits for the one under way")
		}
	}
	close(release)
}
