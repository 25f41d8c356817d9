package store

import (
	"context"
	"testing"
)

// BenchmarkVerifyKey checks a key from many goroutines at once, as a busy
// server does.
func BenchmarkVerifyKey(b *testing.B) {
	ctx := context.Background()
	s, _ := openTemp(b)
	s.CreateAccount(ctx, "a")
	_, plain, _ := s.CreateKey(ctx, NewKey{Account: "a", Name: "", Scope: ScopeAdmin})
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
