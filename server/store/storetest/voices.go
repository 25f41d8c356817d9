package storetest

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/voxkit/voxkit/server/store"
)

func testVoices(t *testing.T, su Suite) {
	ctx := context.Background()
	s := su.Open(t)
	accounts(t, s, "ann", "bob")
	fast := store.Voice{ID: "fast", Account: "ann", Base: "en-us", Name: "Fast Ann", Speed: 2, Pitch: 3, Range: 1.5, Volume: 0.5, Whisper: true}
	got, err := s.CreateVoice(ctx, fast, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Created.IsZero() {
		t.Error("no creation time")
	}
	fast.Created = got.Created
	if !SameVoice(got, fast) {
		t.Errorf("CreateVoice = %+v, want %+v", got, fast)
	}
	neutral := store.Voice{ID: "plain", Account: "bob", Base: "en-gb", Speed: 1, Range: 1, Volume: 1}
	if _, err := s.CreateVoice(ctx, neutral, 0); err != nil {
		t.Fatal(err)
	}
	// A voice cloned from a recording keeps the engine's bytes whole.
	sample := make([]byte, 300000)
	for i := range sample {
		sample[i] = byte(i * 7)
	}
	cloned := store.Voice{ID: "cloned", Account: "bob", Base: "pocket", Name: "From a recording", Speed: 1, Range: 1, Volume: 1, Sample: sample}
	if got, err := s.CreateVoice(ctx, cloned, 0); err != nil {
		t.Fatal(err)
	} else if cloned.Created = got.Created; !SameVoice(got, cloned) {
		t.Error("CreateVoice changed a voice with a sample")
	}
	if got, err := s.Voice(ctx, "bob", "cloned"); err != nil || !SameVoice(got, cloned) {
		t.Errorf("Voice(cloned) = %d bytes of sample, %v; want %d", len(got.Sample), err, len(sample))
	}
	if h, ok := s.(store.VoiceHeader); ok {
		// The list without samples marks the cloned voice, reads none of it.
		heads, err := h.VoiceHeads(ctx, "bob")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range heads {
			if want := v.ID == "cloned"; (v.Sample != nil) != want || len(v.Sample) != 0 {
				t.Errorf("VoiceHeads: %s has %d bytes of sample (nil: %t), want none and nil=%t", v.ID, len(v.Sample), v.Sample == nil, !want)
			}
		}
		if len(heads) != 2 {
			t.Errorf("VoiceHeads(bob) = %d voices, want 2", len(heads))
		}
	}
	if _, err := s.DeleteVoice(ctx, "bob", "cloned"); err != nil {
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
		{"infinite speed", store.Voice{ID: "v1", Account: "ann", Base: "x", Speed: math.Inf(1), Range: 1, Volume: 1}, nil},
		{"zero speed", store.Voice{ID: "v2", Account: "ann", Base: "x", Range: 1, Volume: 1}, nil},
		{"pitch NaN", store.Voice{ID: "v3", Account: "ann", Base: "x", Speed: 1, Pitch: math.NaN(), Range: 1, Volume: 1}, nil},
		{"zero range", store.Voice{ID: "v4", Account: "ann", Base: "x", Speed: 1, Volume: 1}, nil},
		{"negative volume", store.Voice{ID: "v5", Account: "ann", Base: "x", Speed: 1, Range: 1, Volume: -0.5}, nil},
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
	if len(all) != 2 || !SameVoice(all[0], fast) || all[1].ID != "plain" {
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
	if su.Reopen == nil {
		return
	}
	s = su.Reopen(t, s)
	all, err = s.Voices(ctx, "")
	if err != nil || len(all) != 1 || !SameVoice(all[0], fast) {
		t.Errorf("after restart: %+v, %v", all, err)
	}
}

// Clone ids are per account; store.Voice finds one clone by account and id; the
// limit counts the account's clones only.
// testUnstorableLookups: an id no row can hold (a NUL byte, invalid
// UTF-8), as a client may put in a path, is not found, like any other
// unknown id: not a database error.
func testUnstorableLookups(t *testing.T, su Suite) {
	s, ctx := su.Open(t), t.Context()
	accounts(t, s, "alice")
	for _, id := range []string{"a\x00b", "\xff\xfe", "sk_\x00abcdef", "sk_ab\xc3("} {
		if _, err := s.Voice(ctx, "alice", id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Voice(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.DeleteVoice(ctx, "alice", id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DeleteVoice(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.RevokeKey(ctx, "alice", id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("RevokeKey(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.Account(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Account(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.VerifyKey(ctx, id); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("VerifyKey(%q): %v, want ErrInvalidKey", id, err)
		}
	}
}

func testVoiceNamespacesAndLimit(t *testing.T, su Suite) {
	ctx := context.Background()
	s := su.Open(t)
	accounts(t, s, "ann", "bob")
	for _, a := range []string{"ann", "bob"} {
		if _, err := s.CreateVoice(ctx, Voice(a, "mine"), 2); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if _, err := s.CreateVoice(ctx, Voice("ann", "second"), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateVoice(ctx, Voice("ann", "third"), 2); !errors.Is(err, store.ErrLimit) {
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
	if list, err := s.Voices(ctx, "ann"); err != nil || len(list) != 1 || list[0].ID != "second" {
		t.Errorf("Voices(ann) = %+v, %v", list, err)
	}
	if c, ok := s.(store.VoiceCounter); ok {
		for account, want := range map[string]int{"ann": 1, "bob": 1, "nobody": 0} {
			if n, err := c.VoiceCount(ctx, account); err != nil || n != want {
				t.Errorf("VoiceCount(%s) = %d, %v; want %d", account, n, err, want)
			}
		}
	}
}
