package voices_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/voices"
)

func TestCatalogScoping(t *testing.T) {
	var c voices.Catalog
	now := time.Unix(1700000000, 0)
	for _, v := range []voices.Voice{
		{ID: "en-us", Engine: "espeak", EngineVoice: "en-us", Created: now},
		{ID: "alice-clone", Owner: "acct-a", Engine: "espeak", EngineVoice: "en-gb"},
		{ID: "bob-clone", Owner: "acct-b", Engine: "espeak", EngineVoice: "de"},
	} {
		if err := c.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		account, id string
		ok          bool
	}{
		{"", "en-us", true},
		{"acct-a", "en-us", true},
		{"acct-a", "alice-clone", true},
		{"acct-a", "bob-clone", false},
		{"", "alice-clone", false},
		{"acct-b", "nope", false},
	}
	for _, tt := range tests {
		_, err := c.Lookup(tt.account, tt.id)
		if (err == nil) != tt.ok {
			t.Errorf("Lookup(%q, %q) = %v, want ok=%v", tt.account, tt.id, err, tt.ok)
		}
		if err != nil && !errors.Is(err, engine.ErrUnknownVoice) {
			t.Errorf("Lookup(%q, %q) error %v is not ErrUnknownVoice", tt.account, tt.id, err)
		}
		if has := c.Has(tt.account, tt.id); has != tt.ok {
			t.Errorf("Has(%q, %q) = %v, want %v", tt.account, tt.id, has, tt.ok)
		}
	}
	if c.Has("", "EN-US") || c.Has("acct-a", "en") {
		t.Error("Has matched by case or language; it takes ids exactly")
	}
	if got := c.List("acct-a"); len(got) != 2 || got[0].ID != "alice-clone" || got[1].ID != "en-us" {
		t.Errorf("List(acct-a) = %+v", got)
	}
	if err := c.Add(voices.Voice{ID: "en-us", Engine: "x"}); !errors.Is(err, voices.ErrDuplicateVoice) {
		t.Errorf("duplicate Add: %v", err)
	}
	for _, bad := range []string{"", "has space", "slash/x", string(make([]byte, 129))} {
		if err := c.Add(voices.Voice{ID: bad, Engine: "x"}); err == nil {
			t.Errorf("Add(%q) accepted", bad)
		}
	}
	c.Remove("acct-a", "alice-clone")
	if _, err := c.Lookup("acct-a", "alice-clone"); err == nil {
		t.Error("removed voice still found")
	}
}

func ExampleCatalog_AddEngine() {
	var c voices.Catalog
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"anna", "ben"}})
	if err := c.AddEngine(context.Background(), "fake", fake, time.Unix(0, 0)); err != nil {
		fmt.Println(err)
	}
	for _, v := range c.List("") {
		fmt.Println(v.ID, v.Engine, v.Global())
	}
	// Output:
	// anna fake true
	// ben fake true
}

// lister is an engine whose voice list can change, like a rescanned
// voices directory.
type lister struct {
	*enginetest.Fake
	names []string
}

func (l *lister) Voices(context.Context) ([]engine.Voice, error) {
	var out []engine.Voice
	for _, n := range l.names {
		out = append(out, engine.Voice{Name: n, SampleRate: 16000 + len(n)})
	}
	return out, nil
}

func TestAddEngineSyncs(t *testing.T) {
	var c voices.Catalog
	ctx := context.Background()
	l := &lister{Fake: enginetest.NewFake(enginetest.FakeOptions{}), names: []string{"a", "b"}}
	t1, t2 := time.Unix(100, 0), time.Unix(200, 0)
	if err := c.AddEngine(ctx, "piper", l, t1); err != nil {
		t.Fatal(err)
	}
	l.names = []string{"b", "c"}
	if err := c.AddEngine(ctx, "piper", l, t2); err != nil {
		t.Fatal(err)
	}
	got := c.List("")
	if len(got) != 2 || got[0].ID != "b" || !got[0].Created.Equal(t1) || got[1].ID != "c" || !got[1].Created.Equal(t2) || got[0].SampleRate != 16001 {
		t.Errorf("after rescan: %+v", got)
	}
	// Another engine may not take an id already in use; its other voices
	// are still added.
	other := &lister{Fake: l.Fake, names: []string{"c", "d"}}
	if err := c.AddEngine(ctx, "espeak", other, t2); !errors.Is(err, voices.ErrDuplicateVoice) {
		t.Errorf("clash between engines: %v", err)
	}
	if v, _ := c.Lookup("", "c"); v.Engine != "piper" {
		t.Errorf("clash changed the catalog: %+v", v)
	}
	if v, err := c.Lookup("", "d"); err != nil || v.Engine != "espeak" {
		t.Errorf("the clash kept the other voice out: %+v, %v", v, err)
	}
}

// Clone ids are per account; a global voice's id is reserved, and a global
// voice that arrives later shadows a clone of its id, never the reverse.
func TestCloneNamespaces(t *testing.T) {
	var c voices.Catalog
	ctx := context.Background()
	l := &lister{Fake: enginetest.NewFake(enginetest.FakeOptions{}), names: []string{"g"}}
	if err := c.AddEngine(ctx, "piper", l, time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	for _, owner := range []string{"a", "b"} {
		if err := c.Add(voices.Voice{ID: "mine", Owner: owner, Base: "g"}); err != nil {
			t.Fatalf("clone mine of %s: %v", owner, err)
		}
	}
	if err := c.Add(voices.Voice{ID: "mine", Owner: "a", Base: "g"}); !errors.Is(err, voices.ErrDuplicateVoice) {
		t.Errorf("a second clone mine of a: %v", err)
	}
	if err := c.Add(voices.Voice{ID: "g", Owner: "a", Base: "g"}); !errors.Is(err, voices.ErrDuplicateVoice) {
		t.Errorf("a clone of a global id: %v", err)
	}
	// A rescan brings a global voice "mine": it is served to everyone, the
	// clones are shadowed, and nothing else changes.
	l.names = []string{"g", "mine"}
	if err := c.AddEngine(ctx, "piper", l, time.Unix(2, 0)); err != nil {
		t.Fatalf("rescan: %v", err)
	}
	for _, acct := range []string{"", "a", "b"} {
		if v, err := c.Lookup(acct, "mine"); err != nil || !v.Global() {
			t.Errorf("Lookup(%q, mine) = %+v, %v; want the global voice", acct, v, err)
		}
	}
	if sh := c.Shadowed(); len(sh) != 2 || sh[0].Owner != "a" || sh[1].Owner != "b" {
		t.Errorf("Shadowed() = %+v", sh)
	}
	// Removing a's clone leaves the global voice and b's clone.
	c.Remove("a", "mine")
	if v, err := c.Lookup("a", "mine"); err != nil || !v.Global() {
		t.Errorf("after removing the clone: %+v, %v", v, err)
	}
	l.names = []string{"g"}
	if err := c.AddEngine(ctx, "piper", l, time.Unix(3, 0)); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Lookup("b", "mine"); err != nil || v.Owner != "b" {
		t.Errorf("the global voice gone, b's clone: %+v, %v", v, err)
	}
	if _, err := c.Lookup("a", "mine"); err == nil {
		t.Error("a's removed clone is back")
	}
	if got := c.List("b"); len(got) != 2 || got[1].ID != "mine" || got[1].Owner != "b" {
		t.Errorf("List(b) = %+v", got)
	}
}

// An engine that lists no voices is fine: it adds none.
func TestAddEngineWithoutList(t *testing.T) {
	var c voices.Catalog
	if err := c.AddEngine(context.Background(), "quiet", quiet{}, time.Unix(1, 0)); err != nil || len(c.List("")) != 0 {
		t.Errorf("AddEngine: %v, %d voices", err, len(c.List("")))
	}
}

type quiet struct{ engine.Engine }

func TestStyleFor(t *testing.T) {
	clone := voices.Voice{ID: "c", Owner: "a", Base: "en-us", Style: tags.Style{Rate: 2, Pitch: 3, Gain: -6, Whisper: true}}
	tests := []struct {
		name string
		in   tags.Style
		want tags.Style
	}{
		{"no tags: the defaults", tags.Style{}, tags.Style{Rate: 2, Pitch: 3, Gain: -6, Whisper: true}},
		{"a tag overrides its attribute only", tags.Style{Rate: 0.75}, tags.Style{Rate: 0.75, Pitch: 3, Gain: -6, Whisper: true}},
		{"pitch and range", tags.Style{Pitch: -4, Range: 1.5}, tags.Style{Rate: 2, Pitch: -4, Range: 1.5, Gain: -6, Whisper: true}},
		{"flags add up", tags.Style{Emphasis: true, Voice: "x"}, tags.Style{Rate: 2, Pitch: 3, Gain: -6, Whisper: true, Emphasis: true, Voice: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clone.StyleFor(tt.in); got != tt.want {
				t.Errorf("StyleFor(%v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
	if got := (voices.Voice{ID: "g"}).StyleFor(tags.Style{Pitch: 2}); got != (tags.Style{Pitch: 2}) {
		t.Errorf("global voice changed the style: %v", got)
	}
}

// TestDerivedVoiceFollowsBase: a clone takes its base's engine voice, and
// is hidden while the base is missing.
func TestDerivedVoiceFollowsBase(t *testing.T) {
	var c voices.Catalog
	base := voices.Voice{ID: "amy", Engine: "onnx", EngineVoice: "en_US-amy-medium", Language: "en-US", SampleRate: 22050}
	clone := voices.Voice{ID: "quick-amy", Owner: "acct", Base: "amy", Style: tags.Style{Rate: 2}}
	for _, v := range []voices.Voice{base, clone} {
		if err := c.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	v, err := c.Lookup("acct", "quick-amy")
	if err != nil || v.Engine != "onnx" || v.EngineVoice != "en_US-amy-medium" || v.Language != "en-US" || v.SampleRate != 22050 || v.Style.Rate != 2 {
		t.Errorf("Lookup = %+v, %v", v, err)
	}
	if l := c.List("acct"); len(l) != 2 || l[1].EngineVoice != "en_US-amy-medium" {
		t.Errorf("List = %+v", l)
	}
	c.Remove("", "amy")
	if _, err := c.Lookup("acct", "quick-amy"); !errors.Is(err, engine.ErrUnknownVoice) {
		t.Errorf("clone of a missing base: %v", err)
	}
	if l := c.List("acct"); len(l) != 0 {
		t.Errorf("List without the base = %+v", l)
	}
	if err := c.Add(base); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lookup("acct", "quick-amy"); err != nil {
		t.Errorf("base back, clone still unknown: %v", err)
	}
	// A clone's base must be a global voice, and a voice with a base an
	// owned one.
	if err := c.Add(voices.Voice{ID: "twice", Owner: "acct", Base: "quick-amy"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lookup("acct", "twice"); err == nil {
		t.Error("a clone based on a clone resolved")
	}
	if err := c.Add(voices.Voice{ID: "ownerless", Base: "amy"}); err == nil {
		t.Error("a global voice with a base was accepted")
	}
}

// Ids are found as people write them: in any case, and as a bare language
// tag; Suggest offers the closest ids.
func TestLookupAsWritten(t *testing.T) {
	var c voices.Catalog
	for _, id := range []string{"de", "en-029", "en-gb", "en-gb-scotland", "en-us", "fr-be", "fr-fr", "pt", "pt-br"} {
		if err := c.Add(voices.Voice{ID: id, Engine: "x", Language: id}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"en-US", "en-us"}, {"EN-GB", "en-gb"}, {"en", "en-gb"}, {"fr", "fr-fr"}, {"pt", "pt"}, {"PT-BR", "pt-br"}, {"de-DE", "de"}, {"en-AU", "en-gb"}, {"xx-YY", ""}, {"xx", ""}, {"pt-voice", ""},
	} {
		v, err := c.Lookup("", tc.in)
		if v.ID != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tc.in, v.ID, err, tc.want)
		}
	}
	if got := c.Suggest("", "en-uss", 3); len(got) == 0 || got[0] != "en-us" {
		t.Errorf("Suggest(en-uss) = %v", got)
	}
	for _, n := range []int{0, -1} { // up to n: none
		if got := c.Suggest("", "en-uss", n); len(got) != 0 {
			t.Errorf("Suggest(en-uss, %d) = %v, want none", n, got)
		}
	}
	if got := c.Suggest("", "zzzzzzzz", 3); len(got) != 0 {
		t.Errorf("Suggest(zzzzzzzz) = %v, want none", got)
	}
}

// TestLookupAnyCase: every global voice id matches in any case, not only
// BCP 47 tags: Kokoro's AF_HEART is af_heart, a Piper voice's
// EN_us-Lessac-Medium is en_US-lessac-medium; an id written as it is
// still wins over one that differs from it only in case.
func TestLookupAnyCase(t *testing.T) {
	var c voices.Catalog
	for _, id := range []string{"af_heart", "bf_emma", "en_US-lessac-medium", "en-us", "Mixed", "mixed"} {
		if err := c.Add(voices.Voice{ID: id, Engine: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"AF_HEART", "af_heart"}, {"Bf_Emma", "bf_emma"}, {"EN_us-Lessac-Medium", "en_US-lessac-medium"},
		{"en_us-lessac-medium", "en_US-lessac-medium"}, {"Mixed", "Mixed"}, {"mixed", "mixed"}, {"MIXED", "Mixed"}, {"af-heart", ""},
	} {
		v, err := c.Lookup("", tc.in)
		if v.ID != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tc.in, v.ID, err, tc.want)
		}
	}
}

// One sentinel for an unknown voice, whichever layer finds it missing.
func TestOneUnknownVoiceSentinel(t *testing.T) {
	var c voices.Catalog
	_, err := c.Lookup("", "nobody")
	for _, target := range []error{engine.ErrUnknownVoice, engine.ErrUnknownVoice, engine.ErrUnknownVoice, tags.ErrUnknownVoice} {
		if target == tags.ErrUnknownVoice {
			if !errors.Is(target, engine.ErrUnknownVoice) {
				t.Error("tags.ErrUnknownVoice does not wrap engine.ErrUnknownVoice")
			}
			continue
		}
		if !errors.Is(err, target) {
			t.Errorf("the catalog's %v is not %v", err, target)
		}
	}
}

func TestCheckSettings(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		speed, pitch, rng, volume float64
		setting                   string
	}{
		{"defaults", 1, 0, 1, 1, ""},
		{"edges", 0.25, -12, 0.5, 0, ""},
		{"other edges", 4, 12, 2, 2, ""},
		{"speed low", 0.2, 0, 1, 1, "speed"},
		{"speed high", 4.5, 0, 1, 1, "speed"},
		{"speed NaN", math.NaN(), 0, 1, 1, "speed"},
		{"pitch low", 1, -13, 1, 1, "pitch"},
		{"pitch high", 1, 12.5, 1, 1, "pitch"},
		{"range low", 1, 0, 0.4, 1, "range"},
		{"range high", 1, 0, 3, 1, "range"},
		{"volume negative", 1, 0, 1, -0.1, "volume"},
		{"volume high", 1, 0, 1, 2.01, "volume"},
	} {
		err := voices.CheckSettings(tc.speed, tc.pitch, tc.rng, tc.volume)
		var se *voices.SettingError
		switch {
		case tc.setting == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.setting != "" && (!errors.As(err, &se) || se.Setting != tc.setting):
			t.Errorf("%s: got %v, want a SettingError for %s", tc.name, err, tc.setting)
		}
	}
}
