package sqlite

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/voxkit/voxkit/server/store"
)

func TestVoices(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	for _, a := range []string{"ann", "bob"} {
		if _, err := s.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	fast := store.Voice{ID: "fast", Account: "ann", Base: "en-us", Name: "Fast Ann", Speed: 2, Pitch: 3, Range: 1.5, Volume: 0.5, Whisper: true}
	got, err := s.CreateVoice(ctx, fast, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Created.IsZero() {
		t.Error("no creation time")
	}
	fast.Created = got.Created
	if got != fast {
		t.Errorf("CreateVoice = %+v, want %+v", got, fast)
	}
	neutral := store.Voice{ID: "plain", Account: "bob", Base: "en-gb", Speed: 1, Range: 1, Volume: 1}
	if _, err := s.CreateVoice(ctx, neutral, 0); err != nil {
		t.Fatal(err)
	}

	// Failed inserts leave nothing behind.
	fails := []struct {
		name string
		v    store.Voice
		want error
	}{
		{"id the account has", store.Voice{ID: "fast", Account: "ann", Base: "x", Speed: 1, Range: 1, Volume: 1}, store.ErrVoiceExists},
		{"unknown account", store.Voice{ID: "ghost", Account: "nobody", Base: "x", Speed: 1, Range: 1, Volume: 1}, store.ErrNotFound},
		{"speed out of range", store.Voice{ID: "v1", Account: "ann", Base: "x", Speed: 5, Range: 1, Volume: 1}, nil},
		{"zero speed", store.Voice{ID: "v2", Account: "ann", Base: "x", Range: 1, Volume: 1}, nil},
		{"pitch NaN", store.Voice{ID: "v3", Account: "ann", Base: "x", Speed: 1, Pitch: math.NaN(), Range: 1, Volume: 1}, nil},
		{"range too small", store.Voice{ID: "v4", Account: "ann", Base: "x", Speed: 1, Range: 0.4, Volume: 1}, nil},
		{"volume too loud", store.Voice{ID: "v5", Account: "ann", Base: "x", Speed: 1, Range: 1, Volume: 2.5}, nil},
		{"no base", store.Voice{ID: "v6", Account: "ann", Speed: 1, Range: 1, Volume: 1}, nil},
	}
	for _, tt := range fails {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.CreateVoice(ctx, tt.v, 0)
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("CreateVoice = %v, want %v", err, tt.want)
			}
		})
	}
	all, err := s.Voices(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0] != fast || all[1].ID != "plain" {
		t.Fatalf("after failed inserts: %+v", all)
	}

	// Scoped by account; deletion only by the owner.
	if vs, _ := s.Voices(ctx, "bob"); len(vs) != 1 || vs[0].ID != "plain" {
		t.Errorf("Voices(bob) = %+v", vs)
	}
	if _, err := s.DeleteVoice(ctx, "bob", "fast"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob deleted ann's voice: %v", err)
	}
	if d, err := s.DeleteVoice(ctx, "bob", "plain"); err != nil || d.ID != "plain" || d.Base != "en-gb" {
		t.Errorf("DeleteVoice = %+v, %v", d, err)
	}
	if _, err := s.DeleteVoice(ctx, "bob", "plain"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}

	// A restart keeps what was committed.
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	all, err = s2.Voices(ctx, "")
	if err != nil || len(all) != 1 || all[0] != fast {
		t.Errorf("after restart: %+v, %v", all, err)
	}
}

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

// Clone ids are per account; store.Voice finds one clone by account and id; the
// limit counts the account's clones only.
func TestVoiceNamespacesAndLimit(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	for _, a := range []string{"ann", "bob"} {
		if _, err := s.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	v := func(account, id string) store.Voice {
		return store.Voice{ID: id, Account: account, Base: "en-us", Speed: 1, Range: 1, Volume: 1}
	}
	for _, a := range []string{"ann", "bob"} {
		if _, err := s.CreateVoice(ctx, v(a, "mine"), 2); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if _, err := s.CreateVoice(ctx, v("ann", "second"), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateVoice(ctx, v("ann", "third"), 2); !errors.Is(err, store.ErrLimit) {
		t.Errorf("third clone of ann with a limit of 2: %v", err)
	}
	if got, err := s.Voice(ctx, "bob", "mine"); err != nil || got.Account != "bob" {
		t.Errorf("Voice(bob, mine) = %+v, %v", got, err)
	}
	if _, err := s.Voice(ctx, "bob", "second"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Voice(bob, second) = %v, want store.ErrNotFound", err)
	}
	if _, err := s.DeleteVoice(ctx, "ann", "mine"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Voice(ctx, "bob", "mine"); err != nil {
		t.Errorf("deleting ann's clone took bob's: %v", err)
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
