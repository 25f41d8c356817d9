package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/server/store"
)

// BenchmarkVerifyKey checks a key from many goroutines at once, as a busy
// server does.
func BenchmarkVerifyKey(b *testing.B) {
	ctx := context.Background()
	s := open(b, pgtest.Start(b))
	if _, err := s.CreateAccount(ctx, "a"); err != nil {
		b.Fatal(err)
	}
	_, plain, err := s.CreateKey(ctx, store.NewKey{Account: "a", Scope: store.ScopeSpeech})
	if err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.VerifyKey(ctx, plain); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkCreateVoice creates clones under a limit, each in its
// transaction that locks the account, counts and inserts.
func BenchmarkCreateVoice(b *testing.B) {
	ctx := context.Background()
	s := open(b, pgtest.Start(b))
	if _, err := s.CreateAccount(ctx, "a"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		v := store.Voice{ID: fmt.Sprint(i), Account: "a", Base: "en-us", Speed: 1, Range: 1, Volume: 1}
		if _, err := s.CreateVoice(ctx, v, b.N+1); err != nil {
			b.Fatal(err)
		}
	}
}
