package voices

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

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

// ErrUnknownVoice is returned (wrapped) for a voice id that does not exist
// or that belongs to another account.
var ErrUnknownVoice = errors.New("voices: unknown voice")

// ErrDuplicateVoice is returned by Add for an id that is already taken.
var ErrDuplicateVoice = errors.New("voices: duplicate voice id")

// A Catalog holds voices. The zero value is an empty catalog ready to use;
// it is safe for concurrent use.
type Catalog struct {
	mu        sync.RWMutex
	voices    map[string]Voice
	resolvers map[string]engine.VoiceResolver // by engine name; see unlisted
}

// Add puts v in the catalog. Ids are unique across global voices and all
// accounts' clones, so an id always names one voice.
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
	if _, dup := c.voices[v.ID]; dup {
		return fmt.Errorf("%w %q", ErrDuplicateVoice, v.ID)
	}
	if c.voices == nil {
		c.voices = make(map[string]Voice)
	}
	c.voices[v.ID] = v
	return nil
}

// Remove deletes the voice id if it exists.
func (c *Catalog) Remove(id string) {
	c.mu.Lock()
	delete(c.voices, id)
	c.mu.Unlock()
}

// Lookup returns the voice id as seen by account: a global voice, or a
// clone that account owns. An empty account sees only global voices. A
// clone whose base voice is missing (removed by a rescan) is unknown
// until the base is back.
func (c *Catalog) Lookup(account, id string) (Voice, error) {
	c.mu.RLock()
	v, ok := c.voices[id]
	if ok {
		v, ok = c.resolve(v)
	} else {
		v, ok = c.unlisted(id)
	}
	c.mu.RUnlock()
	if !ok || !(v.Global() || v.Owner == account) {
		return Voice{}, fmt.Errorf("%w %q", ErrUnknownVoice, id)
	}
	return v, nil
}

// resolve gives a derived voice its base's engine voice; ok is false when
// the base is missing. c.mu is held.
func (c *Catalog) resolve(v Voice) (Voice, bool) {
	if v.Base == "" {
		return v, true
	}
	base, ok := c.voices[v.Base]
	if !ok {
		base, ok = c.unlisted(v.Base)
	}
	if !ok || !base.Global() {
		return Voice{}, false
	}
	v.Engine, v.EngineVoice = base.Engine, base.EngineVoice
	if v.Language == "" {
		v.Language = base.Language
	}
	return v, true
}

// List returns the voices account may use — the global voices and the
// account's own clones (but not those whose base voice is missing) —
// sorted by id.
func (c *Catalog) List(account string) []Voice {
	c.mu.RLock()
	list := make([]Voice, 0, len(c.voices))
	for _, v := range c.voices {
		if v.Global() || v.Owner == account {
			if v, ok := c.resolve(v); ok {
				list = append(list, v)
			}
		}
	}
	c.mu.RUnlock()
	slices.SortFunc(list, func(a, b Voice) int { return strings.Compare(a.ID, b.ID) })
	return list
}

// ValidateID reports whether id is acceptable as a voice id: 1 to 128
// characters of letters, digits and "-_.:+()" (the parentheses for the
// weights of blends such as "af_bella(2)+af_sky(1)").
func ValidateID(id string) error {
	if id == "" || len(id) > 128 {
		return fmt.Errorf("voices: voice id must have 1 to 128 characters, got %d", len(id))
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:+()", r)
		if !ok {
			return fmt.Errorf("voices: voice id %q has the character %q", id, r)
		}
	}
	return nil
}

// AddEngine adds every voice that eng lists (if it is an
// engine.VoiceLister) as a global voice rendered by the engine named
// engineName. The voice id is the engine's voice name.
//
// Calling it again brings the catalog in line with the engine, after a
// rescan of a voices directory for example: voices the engine now lists
// are added with the time created, those it no longer lists are removed,
// and the others keep their creation time. An id already used by another
// engine's voice or a clone is an error, and leaves the catalog as it was.
func (c *Catalog) AddEngine(ctx context.Context, engineName string, eng engine.Engine, created time.Time) error {
	lister, ok := eng.(engine.VoiceLister)
	if !ok {
		return fmt.Errorf("voices: engine %q cannot list its voices", engineName)
	}
	list, err := lister.Voices(ctx)
	if err != nil {
		return fmt.Errorf("voices: listing engine %q: %w", engineName, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	listed := make(map[string]bool, len(list))
	for _, v := range list {
		if err := ValidateID(v.Name); err != nil {
			return err
		}
		if old, ok := c.voices[v.Name]; ok && (old.Engine != engineName || !old.Global()) {
			return fmt.Errorf("%w %q: engine %q and engine %q both have it", ErrDuplicateVoice, v.Name, old.Engine, engineName)
		}
		listed[v.Name] = true
	}
	for id, v := range c.voices {
		if v.Engine == engineName && v.Global() && !listed[id] {
			delete(c.voices, id)
		}
	}
	if c.voices == nil {
		c.voices = make(map[string]Voice)
	}
	c.addResolver(engineName, eng)
	for _, v := range list {
		if _, ok := c.voices[v.Name]; ok {
			continue
		}
		c.voices[v.Name] = Voice{
			ID:          v.Name,
			Created:     created,
			Engine:      engineName,
			EngineVoice: v.Name,
			Language:    v.Language,
			Description: v.Description,
		}
	}
	return nil
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
// gives is global. c.mu is held.
func (c *Catalog) unlisted(id string) (Voice, bool) {
	if ValidateID(id) != nil {
		return Voice{}, false
	}
	names := make([]string, 0, len(c.resolvers))
	for name := range c.resolvers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if ev, err := c.resolvers[name].ResolveVoice(id); err == nil {
			return Voice{ID: id, Engine: name, EngineVoice: ev.Name, Language: ev.Language, Description: ev.Description}, true
		}
	}
	return Voice{}, false
}
