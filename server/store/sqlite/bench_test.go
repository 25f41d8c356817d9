package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/voxkit/voxkit/server/store"
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
