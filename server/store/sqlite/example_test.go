package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
)

// A lexicon is stored as its PLS document; adding rules stores a new
// version, which becomes the one used when no version is named.
func ExampleStore_AddLexiconVersion() {
	dir, err := os.MkdirTemp("", "voxkit")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, sqlite.FileName))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	if _, err := st.CreateAccount(ctx, "acme"); err != nil {
		log.Fatal(err)
	}
	const head = `<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">`
	first, err := st.CreateLexicon(ctx, store.Lexicon{Account: "acme", Name: "Brands", Lexemes: 1,
		PLS: []byte(head + `<lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme></lexicon>`)}, store.LexiconQuota{})
	if err != nil {
		log.Fatal(err)
	}
	second, err := st.AddLexiconVersion(ctx, "acme", first.ID, []byte(head+
		`<lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>`+
		`<lexeme><grapheme>voxkit</grapheme><phoneme>vɒkskɪt</phoneme></lexeme></lexicon>`), 2, store.LexiconQuota{})
	if err != nil {
		log.Fatal(err)
	}
	latest, _ := st.Lexicon(ctx, "acme", first.ID, "")
	old, _ := st.Lexicon(ctx, "acme", first.ID, first.Version)
	fmt.Println(latest.Name, latest.Lexemes, latest.Version == second.Version, old.Lexemes)
	if err := st.SetDefaultLexicons(ctx, "acme", []string{first.ID}); err != nil {
		log.Fatal(err)
	}
	_, err = st.Lexicon(ctx, "another", first.ID, "")
	fmt.Println(errors.Is(err, store.ErrNotFound))
	// Output:
	// Brands 2 true 1
	// true
}
