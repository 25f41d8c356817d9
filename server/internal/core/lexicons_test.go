package core

import (
	"context"
	"io"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/lexicons"
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

// newLexiconCore is newTestCore over a SQLite store that counts lexicon
// reads, with limits.
func newLexiconCore(t *testing.T, limits store.Limits) (*Core, *readsStore) {
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
	c := newTestCore(t, nil)
	c.Store, c.Limits = rs, limits
	c.Lexicons = lexicons.New(lexicons.Config{Store: rs, Log: c.Log})
	return c, rs
}

// addLexicon stores doc as a lexicon of account and returns its id.
func addLexicon(t *testing.T, c *Core, account string, doc []byte) string {
	t.Helper()
	l, err := lexicon.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	stored, werr := c.Lexicons.CreateLexicon(context.Background(), account, "names", l, doc)
	if werr != nil {
		t.Fatal(werr)
	}
	return stored.ID
}

var whoPLS = []byte(`<lexicon version="1.0" alphabet="ipa" xml:lang="en"><lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme></lexicon>`)

func speakWith(c *Core, ids ...string) error {
	job := Job{Request: tts.Request{Voice: "fake", Account: "a", Input: "Hello WHO.", Format: encode.Format{Name: "pcm"}}, Voice: "fake", Lexicons: RefsOf(ids)}
	_, err := c.Speak(context.Background(), job, func(p *tts.Prepared, _ encode.Codec) (tts.Result, error) {
		return p.Stream(context.Background(), io.Discard)
	})
	return err
}

// TestRefusedRequestReadsNoLexicon: a request its account's rate limit
// refuses reads (and parses) none of the lexicons it names; one naming a
// lexicon the account does not have is still told so, limit or not.
func TestRefusedRequestReadsNoLexicon(t *testing.T) {
	c, rs := newLexiconCore(t, store.Limits{RequestsPerMinute: 1})
	first, second := addLexicon(t, c, "a", whoPLS), addLexicon(t, c, "a", whoPLS)
	if err := speakWith(c, first); err != nil {
		t.Fatal(err)
	}
	before := rs.reads.Load()
	werr, _ := speakWith(c, second).(*fault.Error)
	if werr == nil || werr.Code != fault.CodeRateLimit {
		t.Fatalf("over the limit: %v, want %s", werr, fault.CodeRateLimit)
	}
	if n := rs.reads.Load() - before; n != 0 {
		t.Errorf("the refused request read %d lexicon versions, want none", n)
	}
	if werr, _ := speakWith(c, "nope").(*fault.Error); werr == nil || werr.Code != fault.CodeLexiconNotFound {
		t.Errorf("an unknown lexicon over the limit: %v, want %s", werr, fault.CodeLexiconNotFound)
	}
}
