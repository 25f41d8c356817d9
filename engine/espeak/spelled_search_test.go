//go:build cgo

package espeak

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/voxkit/voxkit/engine"
)

var searchSpelled = flag.Bool("search-spelled", false, "search every assigned non-letter code point for the ones libespeak-ng spells like a letter (minutes)")

// TestSearchSpelled finds, by trying each, the characters outside
// Unicode's letters that crash libespeak-ng the way spelled letters do:
// "c." a hundred times, unguarded. Run with -search-spelled; it lists
// them and checks that the guard's spelledLetter takes every one, and
// that guarded they speak. (2,690 of 13,147 crash: about ten minutes on
// two cores.)
func TestSearchSpelled(t *testing.T) {
	if !*searchSpelled {
		t.Skip("run with -search-spelled")
	}
	e, err := New(Options{Unguarded: true, Processes: 2})
	if err != nil {
		t.Fatal(err)
	}
	var candidates []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.IsLetter(r) && unicode.In(r, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf) {
			candidates = append(candidates, r)
		}
	}
	t.Logf("%d candidates", len(candidates))
	var mu sync.Mutex
	var crashed []rune
	next := make(chan rune)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for r := range next {
				_, err := e.Phonemize(context.Background(), "en-us", strings.Repeat(string(r)+".", 100))
				if errors.Is(err, engine.ErrCrashed) {
					mu.Lock()
					crashed = append(crashed, r)
					fmt.Fprintf(os.Stderr, "crash %U %c\n", r, r)
					mu.Unlock()
				}
			}
		})
	}
	for _, r := range candidates {
		next <- r
	}
	close(next)
	wg.Wait()
	// Guarded, as engines are by default, none of them crashes.
	guarded, err := New(Options{Processes: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range crashed {
		if _, err := guarded.Phonemize(context.Background(), "en-us", strings.Repeat(string(r)+".", 100)); err != nil {
			t.Errorf("%U %c guarded: %v", r, r, err)
		}
	}
	var b strings.Builder
	for _, r := range crashed {
		fmt.Fprintf(&b, "%U %c spelled=%v\n", r, r, spelledLetter(r))
		if !spelledLetter(r) {
			t.Errorf("%U %c crashes the library and the guard misses it", r, r)
		}
	}
	t.Logf("%d crash:\n%s", len(crashed), b.String())
}
