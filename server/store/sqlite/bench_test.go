package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/storetest"
)

// BenchmarkVerifyKey checks a key from many goroutines at once, as a busy
// server does.
func BenchmarkVerifyKey(b *testing.B) {
	ctx := context.Background()
	s, _ := openTemp(b)
	s.CreateAccount(ctx, "a")
	_, plain, _ := s.CreateKey(ctx, store.NewKey{Account: "a", Name: "", Scope: store.ScopeAdmin})
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.VerifyKey(ctx, plain); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkVoiceLookup finds one clone among 36,000 (1,000 accounts of 36)
// by account and id, as GET /v1/voices/{id} does.
func BenchmarkVoiceLookup(b *testing.B) {
	ctx := context.Background()
	s, _ := openTemp(b)
	for a := range 1000 {
		acct := fmt.Sprintf("acct%04d", a)
		if _, err := s.CreateAccount(ctx, acct); err != nil {
			b.Fatal(err)
		}
		for i := range 36 {
			if _, err := s.CreateVoice(ctx, store.Voice{ID: fmt.Sprintf("v%02d", i), Account: acct, Base: "en-us", Speed: 1, Range: 1, Volume: 1}, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Voice(ctx, fmt.Sprintf("acct%04d", i%1000), fmt.Sprintf("v%02d", i%36)); err != nil {
			b.Fatal(err)
		}
	}
}

// bigPLS is a PLS document of 10,000 lexemes, about 860 KB.
func bigPLS() []byte {
	var graphemes []string
	for i := range 10000 {
		graphemes = append(graphemes, fmt.Sprintf("word%05d", i))
	}
	return storetest.PLS(graphemes...)
}

// BenchmarkLexicon reads the latest version of a lexicon of 10,000
// lexemes, as a speech request naming it does when nothing above the
// store keeps it.
func BenchmarkLexicon(b *testing.B) {
	ctx := context.Background()
	s, _ := openTemp(b)
	s.CreateAccount(ctx, "a")
	l, err := s.CreateLexicon(ctx, store.Lexicon{Account: "a", PLS: bigPLS(), Lexemes: 10000}, store.LexiconQuota{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(l.PLS)))
	for b.Loop() {
		if _, err := s.Lexicon(ctx, "a", l.ID, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListLexicons lists an account's 10 lexicons of 10,000 lexemes
// each: their latest versions, without the documents.
func BenchmarkListLexicons(b *testing.B) {
	ctx := context.Background()
	s, _ := openTemp(b)
	s.CreateAccount(ctx, "a")
	pls := bigPLS()
	for range 10 {
		if _, err := s.CreateLexicon(ctx, store.Lexicon{Account: "a", PLS: pls, Lexemes: 10000}, store.LexiconQuota{}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if list, err := s.ListLexicons(ctx, "a"); err != nil || len(list) != 10 {
			b.Fatal(len(list), err)
		}
	}
}

// BenchmarkCloneLimitCheck counts an account's 200 voices cloned from
// recordings (512 KB each, a 10 s PocketTTS voice) as the clone limit's
// check does: with VoiceCount, and by listing them (Voices).
func BenchmarkCloneLimitCheck(b *testing.B) {
	ctx := context.Background()
	s, _ := openTemp(b)
	s.CreateAccount(ctx, "a")
	sample := make([]byte, 512<<10)
	for i := range 200 {
		if _, err := s.CreateVoice(ctx, store.Voice{ID: fmt.Sprintf("v%03d", i), Account: "a", Base: "m", Speed: 1, Range: 1, Volume: 1, Sample: sample}, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("VoiceCount", func(b *testing.B) {
		for b.Loop() {
			if n, err := s.VoiceCount(ctx, "a"); err != nil || n != 200 {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("Voices", func(b *testing.B) {
		for b.Loop() {
			if l, err := s.Voices(ctx, "a"); err != nil || len(l) != 200 {
				b.Fatal(len(l), err)
			}
		}
	})
}

// BenchmarkCreateVoice creates clones under a limit, the count and the
// insert in one transaction.
func BenchmarkCreateVoice(b *testing.B) {
	ctx := context.Background()
	s, _ := openTemp(b)
	if _, err := s.CreateAccount(ctx, "a"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.CreateVoice(ctx, storetest.Voice("a", fmt.Sprint(i)), b.N+1); err != nil {
			b.Fatal(err)
		}
	}
}
