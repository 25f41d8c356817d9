package store_test

import (
	"testing"

	"github.com/voxkit/voxkit/server/store"
)

func TestPasswordHashFormat(t *testing.T) {
	a, _ := store.HashPassword("same password")
	b, _ := store.HashPassword("same password")
	if a == b {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for _, bad := range []string{"", "$argon2id$v=19$m=0,t=2,p=1$AAAA$AAAA", "$bcrypt$x", "$argon2id$v=19$m=19456,t=2,p=1$!!$AAAA"} {
		if ok, err := store.CheckPassword(bad, "same password"); ok || err == nil {
			t.Errorf("CheckPassword(%q) = %v, %v", bad, ok, err)
		}
	}
	p, _ := store.GeneratePassword()
	if len(p) != 20 {
		t.Errorf("generated %q", p)
	}
}
