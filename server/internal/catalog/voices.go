// Package catalog is the room of the voices: the synthesizer's catalog
// and the accounts' clones in it (derived voices and voices cloned from
// a recording, stored and followed across replicas), the one voice
// lookup of every door (Voice), the recordings' uploads and encoding
// (CloneUpload, EncodeUpload) and the samples a gateway sends
// (HoldSample). The core and the doors call it; it knows neither.
package catalog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/codec/recording"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/vocab"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// Config is what a Catalog is made of.
type Config struct {
	Synth *tts.Synthesizer
	// Store holds the clones; nil: there are none.
	Store store.Store
	Log   *slog.Logger
	// Aliases maps extra voice names to catalog voice ids.
	Aliases   map[string]string
	MaxVoices int // clones per account
	// MaxUploads is the uploads of recordings one account has in hand
	// at once (their bodies read within ReadTimeout); 0 or less: none.
	MaxUploads  int
	ReadTimeout time.Duration // 0 or less: none
	// Admit lets the encoding of a recording start as a speech request
	// of account would (the core's admission), and returns the function
	// to call when it ends.
	Admit func(ctx context.Context, account string) (end func(), werr *fault.Error)
}

// Catalog is the voices of one server. Its methods are safe for
// concurrent use.
type Catalog struct {
	Config
	Voices  *voices.Catalog
	voiceMu sync.Mutex // serializes clone changes to the store and catalog
	samples samples    // the samples gateways sent (HoldSample)
	uploads uploads    // the uploads in hand, per account
}

// New returns the catalog of cfg, with the store's clones in it.
func New(ctx context.Context, cfg Config) (*Catalog, error) {
	c := &Catalog{Config: cfg, Voices: cfg.Synth.Voices()}
	if cfg.Store != nil {
		if err := c.loadVoices(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Watch follows the store's clone changes (store.VoiceWatcher) until ctx
// ends; it returns at once when the store reports none.
func (c *Catalog) Watch(ctx context.Context) {
	if w, ok := c.Store.(store.VoiceWatcher); ok {
		w.WatchVoices(ctx, func(account, id string) { c.voiceChanged(ctx, account, id) })
	}
}

// Resolve maps an alias to its voice unless the account has a voice of
// that very id.
func (c *Catalog) Resolve(account, name string) string {
	if v, ok := c.Aliases[name]; ok && !c.Voices.Has(account, name) {
		return v
	}
	return name
}

// List is the voices account may use (voices.Catalog.List).
func (c *Catalog) List(account string) []voices.Voice { return c.Voices.List(account) }

// Voice is the voice name means to account — an alias resolved, another
// account's clone as unknown as a voice that does not exist: the one
// voice lookup of every door. Its error is fault.VoiceNotFound of name.
func (c *Catalog) Voice(account, name string) (voices.Voice, *fault.Error) {
	v, err := c.Voices.Lookup(account, c.Resolve(account, name))
	if err != nil {
		return voices.Voice{}, fault.VoiceNotFound(name)
	}
	return v, nil
}

// A voice clone here is a derived voice (a base voice the account may use
// plus a stored default style: speed, pitch, pitch range, volume,
// whisper) or a voice cloned from a recording. The store is its record;
// the catalog serves it.

// loadVoices adds the store's clones to the catalog. A clone whose base
// voice is missing (a Piper voice removed from the directory) stays
// hidden in the catalog until its base is back; one whose id a global
// voice holds is left out, and logged.
func (c *Catalog) loadVoices(ctx context.Context) error {
	list, err := c.StoredVoices(ctx, "")
	if err != nil {
		return err
	}
	for _, sv := range list {
		if v, err := c.Voices.Lookup(sv.Account, sv.ID); err == nil && v.Owner == sv.Account && v.Base == sv.Base {
			continue // the catalog has it already (a second Server on it)
		}
		if err := c.addVoice(sv); err != nil {
			c.Log.Warn("server: voice clone left out", "voice", sv.ID, "account", sv.Account, "err", err)
		}
	}
	return nil
}

// voiceChanged brings the catalog in line with the store after another
// server created or deleted the clone id of account, or, for ("", ""),
// after changes may have been missed (store.VoiceWatcher).
func (c *Catalog) voiceChanged(ctx context.Context, account, id string) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c.voiceMu.Lock()
	defer c.voiceMu.Unlock()
	if account == "" {
		if err := c.resyncVoices(ctx); err != nil {
			c.Log.Error("server: reloading voice clones", "err", err)
		}
		return
	}
	sv, err := c.Store.Voice(ctx, account, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		c.removeVoice(account, id)
	case err != nil:
		c.Log.Error("server: reading a changed voice clone", "account", account, "voice", id, "err", err)
	default:
		c.applyVoice(sv)
	}
}

// applyVoice puts the stored clone sv in the catalog, replacing an entry
// of the same account and id that differs. c.voiceMu is held.
func (c *Catalog) applyVoice(sv store.Voice) {
	want := c.catalogVoice(sv)
	if v, err := c.Voices.Lookup(sv.Account, sv.ID); err == nil && v.Owner == sv.Account {
		if v.Base == want.Base && v.Style == want.Style && v.Description == want.Description && v.Created.Equal(want.Created) {
			return
		}
		c.removeVoice(sv.Account, sv.ID)
	}
	if err := c.addVoice(sv); err != nil {
		c.Log.Warn("server: voice clone left out", "voice", sv.ID, "account", sv.Account, "err", err)
	}
}

// resyncVoices makes the catalog's clones those of the store (the
// samples gateways sent are left alone). c.voiceMu is held.
func (c *Catalog) resyncVoices(ctx context.Context) error {
	list, err := c.StoredVoices(ctx, "")
	if err != nil {
		return err
	}
	accounts, err := c.Store.Accounts(ctx)
	if err != nil {
		return err
	}
	type key struct{ account, id string }
	stored := make(map[key]bool, len(list))
	for _, sv := range list {
		stored[key{sv.Account, sv.ID}] = true
		c.applyVoice(sv)
	}
	for _, a := range accounts {
		for _, v := range c.Voices.List(a.Name) {
			// The samples gateways sent are no clones of the store's:
			// they stay until HoldSample's eviction drops them.
			if v.Owner == a.Name && !stored[key{a.Name, v.ID}] && !vocab.IsSampleVoice(v.ID) {
				c.removeVoice(a.Name, v.ID)
			}
		}
	}
	return nil
}

// addVoice puts the stored clone sv in the catalog; a voice cloned from a
// recording is first given to the cloning engine (loadClone).
func (c *Catalog) addVoice(sv store.Voice) error {
	if sv.Sample != nil {
		cloner, _ := c.Synth.Cloner()
		if cloner == nil {
			return errors.New("server: a voice cloned from a recording, and no engine clones")
		}
		if err := c.loadClone(cloner, sv); err != nil {
			return err
		}
	}
	if err := c.Voices.Add(c.catalogVoice(sv)); err != nil {
		c.unloadClone(sv.Account, sv.ID)
		return err
	}
	return nil
}

// removeVoice takes the clone id of account out of the catalog and, if
// it was cloned from a recording, out of the cloning engine.
func (c *Catalog) removeVoice(account, id string) {
	c.Voices.Remove(account, id)
	c.unloadClone(account, id)
}

func (c *Catalog) unloadClone(account, id string) {
	if cloner, _ := c.Synth.Cloner(); cloner != nil {
		cloner.UnloadClone(cloneName(account, id))
	}
}

// cloneName is the cloning engine's name for the clone id of account
// cloned from a recording: never a voice id a request can name.
func cloneName(account, id string) string { return "clone/" + account + "/" + id }

// catalogVoice is the catalog entry of the stored clone sv.
func (c *Catalog) catalogVoice(sv store.Voice) voices.Voice {
	st := tags.Style{Pitch: sv.Pitch, Whisper: sv.Whisper}
	if sv.Speed != 1 {
		st.Rate = sv.Speed
	}
	if sv.Range != 1 {
		st.Range = sv.Range
	}
	if sv.Volume != 1 {
		st.Gain = 20 * math.Log10(sv.Volume) // -Inf (silence) for 0
	}
	v := voices.Voice{ID: sv.ID, Owner: sv.Account, Created: sv.Created, Description: sv.Name, Base: sv.Base, Style: st}
	if sv.Sample != nil {
		// Cloned from a recording: the cloning engine speaks it itself,
		// in the language of the model's own voices.
		_, v.Engine = c.Synth.Cloner()
		v.Base, v.EngineVoice, v.Language = "", cloneName(sv.Account, sv.ID), c.modelLanguage(sv.Base)
	}
	return v
}

// modelLanguage is the language of the voices of the cloning model named
// model (its recordings, voices MODEL:STEM, as the catalog lists them);
// "" when it lists none with one.
func (c *Catalog) modelLanguage(model string) string {
	for _, v := range c.Voices.List("") {
		if strings.HasPrefix(v.ID, model+":") && v.Language != "" {
			return v.Language
		}
	}
	return ""
}

// reserved reports whether id names a global voice or an alias, which no
// clone may take.
func (c *Catalog) reserved(id string) bool {
	if _, alias := c.Aliases[id]; alias {
		return true
	}
	v, err := c.Voices.Lookup("", id)
	return err == nil && v.Global()
}

// StoreVoice gives sv an id if it has none, stores it and puts it in the
// catalog.
func (c *Catalog) StoreVoice(ctx context.Context, sv store.Voice) (store.Voice, error) {
	account := sv.Account
	if sv.ID == "" {
		var b [8]byte
		rand.Read(b[:])
		sv.ID = "voice_" + hex.EncodeToString(b[:])
	}
	if c.reserved(sv.ID) {
		return store.Voice{}, fault.VoiceIDReserved(sv.ID)
	}
	// The store and the catalog change together, so that parallel
	// creations and deletions of one id cannot leave them disagreeing.
	c.voiceMu.Lock()
	defer c.voiceMu.Unlock()
	created, err := c.Store.CreateVoice(ctx, sv, c.MaxVoices)
	switch {
	case errors.Is(err, store.ErrVoiceExists):
		return store.Voice{}, fault.VoiceIDTaken(sv.ID)
	case errors.Is(err, store.ErrLimit):
		return store.Voice{}, fault.VoiceLimit(c.MaxVoices)
	case err != nil:
		return store.Voice{}, err
	}
	sv = created
	if err := c.addVoice(sv); err != nil {
		// A rescan made the id a global voice's meanwhile: undo the
		// insert.
		if _, derr := c.Store.DeleteVoice(context.WithoutCancel(ctx), account, sv.ID); derr != nil {
			return store.Voice{}, errors.Join(err, derr)
		}
		return store.Voice{}, fault.VoiceIDReserved(sv.ID)
	}
	return sv, nil
}

// DropVoice deletes account's clone id from the store and the catalog:
// fault.VoiceNotFound, wrapping store.ErrNotFound, when it has none of
// that id.
func (c *Catalog) DropVoice(ctx context.Context, account, id string) (store.Voice, error) {
	c.voiceMu.Lock()
	defer c.voiceMu.Unlock()
	v, err := c.Store.DeleteVoice(ctx, account, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Voice{}, fmt.Errorf("%w: %w", fault.VoiceNotFound(id), err)
	case err != nil:
		return store.Voice{}, err
	}
	c.removeVoice(account, v.ID) // the caller's clone, never a global voice
	return v, nil
}

// Voices cloned from a recording (multipart POST /v1/voices): the
// recording is decoded and the Synthesizer's cloning engine
// (engine.Cloner) makes a voice of it, once; what it made is stored with
// the voice (store.Voice.Sample), and given to the engine as
// cloneName(account, id) wherever the catalog takes the voice in — at
// start, on every replica as the store reports changes — to load when it
// is spoken (clones.go), and taken back when it goes.

// clonedSeconds is how much of a recording is decoded, and checked for
// length and silence: the first 10 s, all that PocketTTS clones from
// (pocket.MaxReference).
const clonedSeconds = 10

// silentRecording is the level (RMS) below which a recording counts as
// silence: -60 dBFS.
const silentRecording = 0.001

// CloneModels lists the models that clone a voice from a recording,
// sorted: none when no engine clones.
func (c *Catalog) CloneModels() []string {
	if cloner, _ := c.Synth.Cloner(); cloner != nil {
		return cloner.CloneModels()
	}
	return nil
}

// CloneUpload makes account a voice of the recording in r's multipart
// body of the form f, stores it and puts it in the catalog: the one way
// every door clones. Its errors are *fault.Error for the client's, others
// for the server's.
func (c *Catalog) CloneUpload(w http.ResponseWriter, r *http.Request, account string, f Form) (store.Voice, error) {
	// A clone the account has no room for is refused before the work.
	if err := c.voiceRoom(r.Context(), account); err != nil {
		return store.Voice{}, err
	}
	req, sample, err := c.EncodeUpload(w, r, account, f)
	if err != nil {
		return store.Voice{}, err
	}
	return c.StoreVoice(r.Context(), store.Voice{ID: req.ID, Account: account, Name: req.Name, Base: req.Model,
		Speed: 1, Range: 1, Volume: 1, Sample: sample})
}

// EncodeUpload runs the cloning engine on the recording in r's multipart
// body of the form f, admitted as a speech request of account and in a
// render slot, and returns the form (its Model the model that cloned) and
// what the engine made (store.Voice.Sample), which it does not store. The
// body must arrive within c.ReadTimeout, and it is one of account's
// c.MaxUploads uploads at once (see uploads.go). Its errors are
// CloneUpload's.
func (c *Catalog) EncodeUpload(w http.ResponseWriter, r *http.Request, account string, f Form) (vocab.Clone, []byte, error) {
	cloner, _ := c.Synth.Cloner()
	if cloner == nil {
		return vocab.Clone{}, nil, fault.NoCloning()
	}
	// Before the body is read: an account over its uploads at once
	// holds no more connections and memory.
	done, werr := c.beginUpload(r, account)
	if werr != nil {
		w.Header().Set("Connection", "close")
		return vocab.Clone{}, nil, werr
	}
	defer done()
	req, err := c.readUpload(w, r, f)
	if err != nil {
		return vocab.Clone{}, nil, err
	}
	models := cloner.CloneModels()
	switch {
	case len(models) == 0: // a gateway whose workers clone nothing, or a cloning engine whose models are gone
		return vocab.Clone{}, nil, fault.NoCloning()
	case req.Model == "" && len(models) == 1:
		req.Model = models[0]
	case !slices.Contains(models, req.Model):
		return vocab.Clone{}, nil, fault.UnknownCloneModel(req.Model, models)
	}
	// Decoding and encoding the recording cost CPU as speech does: they
	// count against the account's limits as a speech request.
	end, werr := c.Admit(r.Context(), account)
	if werr != nil {
		return vocab.Clone{}, nil, werr
	}
	defer end()
	a, err := recording.Decode(req.Audio, clonedSeconds)
	if err != nil {
		return vocab.Clone{}, nil, fault.BadRecording(fault.CodeUnsupportedAudio, "The recording cannot be read: %s. Upload %s "+
			"of 8 to 384 kHz and any channels (WAV as PCM of 8 to 32 bits or float; Chromium and Firefox record WebM and Ogg Opus; Safari's MP4/AAC is not read).", err, recording.Formats)
	}
	if len(a.Samples) < a.SampleRate {
		return vocab.Clone{}, nil, fault.BadRecording(fault.CodeAudioTooShort, "The recording is %s long; a clone needs at least 1 s "+
			"(5 to 10 s of one speaker is best; only the first 10 s are used).", vocab.RecordingSeconds(len(a.Samples), a.SampleRate))
	}
	if dsp.RMS(a.Samples) < silentRecording {
		return vocab.Clone{}, nil, fault.BadRecording(fault.CodeAudioSilent, "The recording is silent (below -60 dBFS); a clone needs someone speaking.")
	}
	sample, err := c.Synth.CloneVoice(r.Context(), account, engine.CloneRequest{Model: req.Model, Samples: a.Samples, SampleRate: a.SampleRate,
		Temperature: req.Temperature, Steps: req.Steps, Seed: req.Seed})
	switch {
	case errors.Is(err, engine.ErrRecording):
		return vocab.Clone{}, nil, fault.BadRecording(fault.CodeUnsupportedAudio, "The recording cannot be cloned: %s.", err)
	case errors.Is(err, engine.ErrCloneSettings):
		return vocab.Clone{}, nil, fault.BadRequest(fault.CodeInvalidValue, "", "%s.", err)
	case err != nil:
		return vocab.Clone{}, nil, err
	}
	return req, sample, nil
}

// voiceRoom is fault.VoiceLimit when account holds c.MaxVoices clones
// already, when the store counts them without reading them
// (store.VoiceCounter). CreateVoice counts again as it inserts, and it
// decides: this spares the recording's encoding when the answer is
// known.
func (c *Catalog) voiceRoom(ctx context.Context, account string) error {
	counter, ok := c.Store.(store.VoiceCounter)
	if !ok || c.MaxVoices <= 0 {
		return nil
	}
	n, err := counter.VoiceCount(ctx, account)
	if err != nil {
		return err
	}
	if n >= c.MaxVoices {
		return fault.VoiceLimit(c.MaxVoices)
	}
	return nil
}
