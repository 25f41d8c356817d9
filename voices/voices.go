package voices

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/tags"
)

// Voice is one entry of the catalog.
type Voice struct {
	// ID is what callers pass as the voice, e.g. "en-us".
	ID string
	// Owner is the account id of a clone's owner; empty for a global voice.
	Owner string
	// Created is when the voice was added.
	Created time.Time
	// Engine names the engine that renders the voice.
	Engine string
	// EngineVoice is the engine's own name for the voice.
	EngineVoice string
	// Language is a BCP 47 tag such as "en-US", when known.
	Language string
	// Description is a short human-readable label.
	Description string
	// SampleRate is the rate of the voice's audio in hertz, when its
	// engine says (engine.Voice.SampleRate); 0 otherwise.
	SampleRate int
	// Speaker names the speaker of a multi-speaker model that a global
	// voice is (engine.Voice.Speaker); empty otherwise.
	Speaker string
	// Base is the id of the global voice a derived voice (a clone)
	// speaks with; empty for a global voice. The catalog gives such a
	// clone the base's Engine and EngineVoice (and Language when it has
	// none), and hides it while the base is missing.
	Base string
	// Style is the voice's default speaking style: it applies to
	// everything the voice says as if the input were enclosed in a style
	// tag, so tags in the input override it attribute by attribute. The
	// zero style (every global voice's) changes nothing. Its Voice field
	// is unused.
	Style tags.Style
}

// Global reports whether every account may use v.
func (v Voice) Global() bool { return v.Owner == "" }

// StyleFor returns the style in force for text that the input's tags
// style as st when v speaks it: each attribute st sets (rate, pitch,
// range, gain, whisper, emphasis, spell, voice), otherwise v's default.
func (v Voice) StyleFor(st tags.Style) tags.Style {
	d := v.Style
	if st.Rate != 0 {
		d.Rate = st.Rate
	}
	if st.Pitch != 0 {
		d.Pitch = st.Pitch
	}
	if st.Range != 0 {
		d.Range = st.Range
	}
	if st.Gain != 0 {
		d.Gain = st.Gain
	}
	d.Whisper = d.Whisper || st.Whisper
	d.Emphasis = d.Emphasis || st.Emphasis
	d.Spell = d.Spell || st.Spell
	d.Voice = st.Voice
	return d
}

// Limits of a clone's settings (a store.Voice's): speed, pitch and volume
// are those of the tags that set the same things (tags.MinRate to
// tags.MaxRate, ±tags.MaxPitch semitones, 0 to tags.MaxVolume).
const (
	MinRange = 0.5 // pitch range multiplier
	MaxRange = 2.0
)

// SettingError is the error for a voice setting outside its range.
type SettingError struct {
	Setting  string // "speed", "pitch", "range" or "volume"
	Value    float64
	Min, Max float64
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("voices: %s %g is not between %g and %g", e.Setting, e.Value, e.Min, e.Max)
}

// CheckSettings returns a *SettingError for the first of a clone's
// settings outside its range: speed (a rate multiplier), pitch
// (semitones), range (a pitch range multiplier) and volume (a linear
// amplitude factor).
func CheckSettings(speed, pitch, rng, volume float64) error {
	for _, s := range []SettingError{
		{"speed", speed, tags.MinRate, tags.MaxRate},
		{"pitch", pitch, -tags.MaxPitch, tags.MaxPitch},
		{"range", rng, MinRange, MaxRange},
		{"volume", volume, 0, tags.MaxVolume},
	} {
		if !(s.Value >= s.Min && s.Value <= s.Max) { // NaN too
			return &s
		}
	}
	return nil
}

// ErrDuplicateVoice is returned by Add for an id that is already taken.
var ErrDuplicateVoice = errors.New("voices: duplicate voice id")

// ErrVoiceLeftOut is wrapped by the errors of AddEngine for the voices it
// leaves out (an id ValidateID refuses, an id another engine has) while
// it adds the others.
var ErrVoiceLeftOut = errors.New("voices: voice left out")

// A Catalog holds voices: global voices, which every account may use, and
// each account's clones, in a namespace of the account's own. Two
// accounts may each own a clone of the same id. A global voice's id is
// reserved: Add refuses a clone of that id, and a clone added before a
// global voice took its id (at a rescan of the engines' voices) is left
// out of Lookup and List while the global voice exists (see Shadowed).
// The zero value is an empty catalog ready to use; it is safe for
// concurrent use.
type Catalog struct {
	mu        sync.RWMutex
	globals   map[string]Voice
	clones    map[string]map[string]Voice     // by owner, then id
	resolvers map[string]engine.VoiceResolver // by engine name; see unlisted
}

// Add puts v in the catalog: a global voice when it has no owner, else a
// clone of its owner's. It returns ErrDuplicateVoice for a global id that
// is taken, and for a clone id that its owner uses already or that a
// global voice holds.
func (c *Catalog) Add(v Voice) error {
	if err := ValidateID(v.ID); err != nil {
		return err
	}
	if v.Engine == "" && v.Base == "" {
		return fmt.Errorf("voices: voice %q has no engine", v.ID)
	}
	if v.Base != "" && v.Global() {
		return fmt.Errorf("voices: voice %q has a base voice but no owner", v.ID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.globals[v.ID]; dup {
		return fmt.Errorf("%w %q", ErrDuplicateVoice, v.ID)
	}
	if v.Global() {
		if c.globals == nil {
			c.globals = make(map[string]Voice)
		}
		c.globals[v.ID] = v
		return nil
	}
	own := c.clones[v.Owner]
	if _, dup := own[v.ID]; dup {
		return fmt.Errorf("%w %q", ErrDuplicateVoice, v.ID)
	}
	if own == nil {
		if c.clones == nil {
			c.clones = make(map[string]map[string]Voice)
		}
		own = make(map[string]Voice)
		c.clones[v.Owner] = own
	}
	own[v.ID] = v
	return nil
}

// Remove deletes the voice id of owner ("" for a global voice) if it
// exists. Removing a clone never touches a global voice of the same id.
func (c *Catalog) Remove(owner, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if owner == "" {
		delete(c.globals, id)
		return
	}
	delete(c.clones[owner], id)
	if len(c.clones[owner]) == 0 {
		delete(c.clones, owner)
	}
}

// Has reports whether id is exactly the id of a global voice or of a
// clone that account owns: Lookup's matching by case or language, and
// the engines' unlisted voices, are left out.
func (c *Catalog) Has(account, id string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if _, ok := c.globals[id]; ok {
		return true
	}
	_, ok := c.clones[account][id]
	return ok && account != ""
}

// Lookup returns the voice id as seen by account: a global voice, or a
// clone that account owns. An empty account sees only global voices. An
// id found nowhere as written may still name a global voice by case or
// language (see languageMatch): "en-US" finds "en-us", "fr" "fr-fr". A
// clone whose base voice is missing (removed by a rescan) is unknown
// until the base is back.
func (c *Catalog) Lookup(account, id string) (Voice, error) {
	c.mu.RLock()
	v, ok := c.globals[id]
	var why error
	if !ok {
		if v, ok = c.clones[account][id]; ok && account != "" {
			v, ok = c.resolve(v)
		} else if v, ok = c.foldMatch(id); !ok {
			v, why = c.unlisted(id)
			ok = why == nil
		}
	}
	c.mu.RUnlock()
	switch {
	case ok:
		return v, nil
	case errors.Is(why, engine.ErrUnsupportedVoice):
		return Voice{}, fmt.Errorf("voices: %w %q: %w", engine.ErrUnknownVoice, id, why)
	}
	if v, ok := c.languageMatch(id); ok {
		return v, nil
	}
	// As RFC 4647 lookup does, a tag with a country the catalog lacks
	// falls back to its language: "de-DE" to "de", "en-AU" to "en". Only
	// a country subtag is dropped, so "my-voice" never becomes "my".
	if lang, region := cutLast(id, "-"); lang != "" && isRegion(region) {
		if v, ok := c.languageMatch(lang); ok {
			return v, nil
		}
	}
	return Voice{}, fmt.Errorf("voices: %w %q", engine.ErrUnknownVoice, id)
}

// foldMatch finds the global voice whose id is id in another case
// (AF_HEART is af_heart), the first by id when several are; c.mu is
// held.
func (c *Catalog) foldMatch(id string) (Voice, bool) {
	var found Voice
	ok := false
	for gid, v := range c.globals {
		if strings.EqualFold(gid, id) && (!ok || gid < found.ID) {
			found, ok = v, true
		}
	}
	return found, ok
}

// languageMatch finds the global voice an id that differs only in case, or
// a BCP 47 language tag, means: "en-US" is the voice "en-us", and "fr" the
// voice "fr", else a "fr-…" voice (the country's own, "fr-fr", first; then
// other two-letter countries; then by id), else a voice whose Language tag
// is "fr" or starts with "fr-".
func (c *Catalog) languageMatch(id string) (Voice, bool) {
	want := strings.ToLower(strings.ReplaceAll(id, "_", "-"))
	c.mu.RLock()
	defer c.mu.RUnlock()
	var prefix, lang []Voice
	for gid, v := range c.globals {
		g := strings.ToLower(gid)
		switch {
		case g == want:
			return v, true
		case strings.HasPrefix(g, want+"-"):
			prefix = append(prefix, v)
		}
		if l := strings.ToLower(v.Language); l == want || strings.HasPrefix(l, want+"-") {
			lang = append(lang, v)
		}
	}
	for _, vs := range [][]Voice{prefix, lang} {
		if len(vs) > 0 {
			return slices.MinFunc(vs, func(a, b Voice) int {
				return cmp.Or(cmp.Compare(regionRank(want, a.ID), regionRank(want, b.ID)), strings.Compare(a.ID, b.ID))
			}), true
		}
	}
	return Voice{}, false
}

// isRegion reports whether s is a BCP 47 region subtag: two letters or
// three digits.
func isRegion(s string) bool {
	switch len(s) {
	case 2:
		return unicode.IsLetter(rune(s[0])) && unicode.IsLetter(rune(s[1]))
	case 3:
		return strings.Trim(s, "0123456789") == ""
	}
	return false
}

// cutLast cuts s around the last sep, as strings.Cut does around the
// first; before is "" when s has no sep.
func cutLast(s, sep string) (before, after string) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s
	}
	return s[:i], s[i+len(sep):]
}

// regionRank orders the voices of a language for a bare language tag:
// the language's own country first ("fr-fr"), then other plain country
// variants ("en-gb", "en-us"), then the rest ("en-029", "en-gb-scotland").
func regionRank(lang, id string) int {
	region := strings.TrimPrefix(strings.ToLower(id), lang+"-")
	switch {
	case region == lang:
		return 0
	case len(region) == 2:
		return 1
	}
	return 2
}

// Suggest returns up to n ids of voices account may use that are closest
// to id (by edit distance, case-insensitively), closest first: what an
// unknown voice's error can offer.
func (c *Catalog) Suggest(account, id string, n int) []string {
	if n <= 0 {
		return nil
	}
	want := strings.ToLower(id)
	type scored struct {
		id   string
		dist int
	}
	var all []scored
	for _, v := range c.List(account) {
		all = append(all, scored{v.ID, editDistance(want, strings.ToLower(v.ID))})
	}
	slices.SortFunc(all, func(a, b scored) int { return cmp.Or(a.dist-b.dist, strings.Compare(a.id, b.id)) })
	var out []string
	for _, s := range all {
		if len(out) == n || s.dist > max(2, len(want)/2) {
			break
		}
		out = append(out, s.id)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// resolve gives a derived voice its base's engine voice; ok is false when
// the base is missing. c.mu is held.
func (c *Catalog) resolve(v Voice) (Voice, bool) {
	if v.Base == "" {
		return v, true
	}
	base, ok := c.globals[v.Base]
	if !ok {
		var err error
		base, err = c.unlisted(v.Base)
		ok = err == nil
	}
	if !ok {
		return Voice{}, false
	}
	v.Engine, v.EngineVoice, v.SampleRate = base.Engine, base.EngineVoice, base.SampleRate
	if v.Language == "" {
		v.Language = base.Language
	}
	return v, true
}

// List returns the voices account may use — the global voices and the
// account's own clones (but not those whose base voice is missing or
// whose id a global voice holds) — sorted by id.
func (c *Catalog) List(account string) []Voice {
	c.mu.RLock()
	list := make([]Voice, 0, len(c.globals)+len(c.clones[account]))
	for _, v := range c.globals {
		list = append(list, v)
	}
	for id, v := range c.clones[account] {
		if _, shadowed := c.globals[id]; shadowed || account == "" {
			continue
		}
		if v, ok := c.resolve(v); ok {
			list = append(list, v)
		}
	}
	c.mu.RUnlock()
	slices.SortFunc(list, func(a, b Voice) int { return strings.Compare(a.ID, b.ID) })
	return list
}

// Shadowed returns the clones left out because a global voice holds their
// id, by owner and id: the catalog serves the global voice for that id to
// everyone, the clone's owner included, until the clone is removed or
// the global voice goes.
func (c *Catalog) Shadowed() []Voice {
	c.mu.RLock()
	var out []Voice
	for _, own := range c.clones {
		for id, v := range own {
			if _, ok := c.globals[id]; ok {
				out = append(out, v)
			}
		}
	}
	c.mu.RUnlock()
	slices.SortFunc(out, func(a, b Voice) int {
		return cmp.Or(strings.Compare(a.Owner, b.Owner), strings.Compare(a.ID, b.ID))
	})
	return out
}

// ValidateID reports whether id is acceptable as a voice id: 1 to 128
// characters of letters, digits and "-_.:+()" (the parentheses for the
// weights of blends such as "af_bella(2)+af_sky(1)").
// Its error is an *IDError.
func ValidateID(id string) error {
	if id == "" || len(id) > 128 {
		return &IDError{fmt.Sprintf("voice id must have 1 to 128 characters, got %d", len(id))}
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:+()", r)
		if !ok {
			return &IDError{fmt.Sprintf("voice id %q has the character %q", id, r)}
		}
	}
	return nil
}

// IDError is ValidateID's refusal of a voice id.
type IDError struct {
	// Reason says what is wrong with the id, as a client may be told.
	Reason string
}

func (e *IDError) Error() string { return "voices: " + e.Reason }

// AddEngine adds every voice that eng lists as a global voice rendered
// by the engine named engineName; the voice id is the engine's voice name.
// An engine that lists no voices (one that is not an engine.VoiceLister)
// adds none, and may still resolve voices it does not list (an
// engine.VoiceResolver, such as Kokoro blends).
//
// Calling it again brings the catalog in line with the engine, after a
// rescan of a voices directory for example: voices the engine now lists
// are added with the time created, those it no longer lists are removed,
// and the others keep their creation time. A voice whose id another
// engine's global voice holds, or that is not a valid id, is left out and
// named in the error; the others are still added. A clone of the same id
// is shadowed (see Shadowed), never the global voice.
func (c *Catalog) AddEngine(ctx context.Context, engineName string, eng engine.Engine, created time.Time) error {
	var list []engine.Voice
	if lister, ok := eng.(engine.VoiceLister); ok {
		var err error
		if list, err = lister.Voices(ctx); err != nil {
			return fmt.Errorf("voices: listing engine %q: %w", engineName, err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	listed := make(map[string]bool, len(list))
	for _, v := range list {
		if err := ValidateID(v.Name); err != nil {
			errs = append(errs, fmt.Errorf("%w: engine %q: %w", ErrVoiceLeftOut, engineName, err))
			continue
		}
		if old, ok := c.globals[v.Name]; ok && old.Engine != engineName {
			errs = append(errs, fmt.Errorf("%w: %w %q: engine %q and engine %q both have it", ErrVoiceLeftOut, ErrDuplicateVoice, v.Name, old.Engine, engineName))
			continue
		}
		listed[v.Name] = true
	}
	for id, v := range c.globals {
		if v.Engine == engineName && !listed[id] {
			delete(c.globals, id)
		}
	}
	if c.globals == nil {
		c.globals = make(map[string]Voice)
	}
	c.addResolver(engineName, eng)
	for _, v := range list {
		if _, ok := c.globals[v.Name]; ok || !listed[v.Name] {
			continue
		}
		c.globals[v.Name] = Voice{
			ID:          v.Name,
			Created:     created,
			Engine:      engineName,
			EngineVoice: v.Name,
			Language:    v.Language,
			Description: v.Description,
			SampleRate:  v.SampleRate,
			Speaker:     v.Speaker,
		}
	}
	return errors.Join(errs...)
}

// addResolver remembers eng if it accepts voices it does not list (an
// engine.VoiceResolver), for unlisted. c.mu is held.
func (c *Catalog) addResolver(engineName string, eng engine.Engine) {
	r, ok := eng.(engine.VoiceResolver)
	if !ok {
		return
	}
	if c.resolvers == nil {
		c.resolvers = make(map[string]engine.VoiceResolver)
	}
	c.resolvers[engineName] = r
}

// unlisted asks the engines added by AddEngine that resolve voices
// (engine.VoiceResolver), in the order of their names, about an id the
// catalog does not hold, such as a blend of Kokoro voices. The voice it
// gives is global; the error holds the engines' reasons. c.mu is held.
func (c *Catalog) unlisted(id string) (Voice, error) {
	if err := ValidateID(id); err != nil {
		return Voice{}, err
	}
	names := make([]string, 0, len(c.resolvers))
	for name := range c.resolvers {
		names = append(names, name)
	}
	slices.Sort(names)
	var errs []error
	for _, name := range names {
		ev, err := c.resolvers[name].ResolveVoice(id)
		if err == nil {
			return Voice{ID: id, Engine: name, EngineVoice: ev.Name, Language: ev.Language,
				Description: ev.Description, SampleRate: ev.SampleRate, Speaker: ev.Speaker}, nil
		}
		errs = append(errs, err)
	}
	return Voice{}, cmp.Or(errors.Join(errs...), engine.ErrUnknownVoice)
}
