package credentials

import (
	"strconv"
	"testing"

	"github.com/voxkit/voxkit/server/store"
)

// TestKnownKeysBounded: the keys remembered for checking alongside stay
// within maxKnownKeys, the newest is always there, and a forgotten key
// is gone.
func TestKnownKeysBounded(t *testing.T) {
	var c knownKeys
	for i := range maxKnownKeys + 50 {
		token := "sk_token" + strconv.Itoa(i)
		c.put(token, store.Key{Prefix: "sk_" + strconv.Itoa(i), Account: "a", Scope: store.ScopeSpeech})
		if k, ok := c.get(token); !ok || k.Account != "a" {
			t.Fatalf("key %d not remembered right after put", i)
		}
	}
	if n := len(c.keys); n != maxKnownKeys {
		t.Errorf("%d keys remembered, want %d", n, maxKnownKeys)
	}
	last := "sk_token" + strconv.Itoa(maxKnownKeys+49)
	c.forget(last)
	if _, ok := c.get(last); ok {
		t.Error("a forgotten key is still known")
	}
}
