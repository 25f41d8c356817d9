package sqlite

import (
	"context"
	"testing"

	"github.com/voxkit/voxkit/server/store"
)

// TestVoicesMigration opens a database of the first schema version, as
// an older voxkit left it, and finds the voices table added.
func TestVoicesMigration(t *testing.T) {
	ctx := context.Background()
	s := openOld(t, 1, "INSERT INTO accounts(name, created) VALUES('old', 1)")
	if _, err := s.CreateVoice(ctx, store.Voice{ID: "v", Account: "old", Base: "en-us", Speed: 1, Range: 1, Volume: 1}, 0); err != nil {
		t.Fatal(err)
	}
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil || version != len(migrations) {
		t.Errorf("user_version = %d, %v; want %d", version, err, len(migrations))
	}
}

// TestVoiceKeyMigration opens a database of schema version 3, where clone
// ids were unique across accounts, and finds its clones kept and ids
// per account.
func TestVoiceKeyMigration(t *testing.T) {
	ctx := context.Background()
	s := openOld(t, 3, "INSERT INTO accounts(name, created) VALUES('ann', 1), ('bob', 1)",
		"INSERT INTO voices(id, account, base, name, speed, created) VALUES('fast', 'ann', 'en-us', 'Fast', 2, 5)")
	got, err := s.Voice(ctx, "ann", "fast")
	if err != nil || got.Name != "Fast" || got.Speed != 2 || got.Base != "en-us" {
		t.Errorf("after the migration: %+v, %v", got, err)
	}
	if _, err := s.CreateVoice(ctx, store.Voice{ID: "fast", Account: "bob", Base: "en-gb", Speed: 1, Range: 1, Volume: 1}, 0); err != nil {
		t.Errorf("bob's clone fast: %v", err)
	}
}
