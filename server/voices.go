package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/voices"
)

// A voice clone here is a derived voice: a base voice the account may use
// plus a stored default style (speed, pitch, pitch range, volume,
// whisper). The store is its record; the catalog serves it.

// loadVoices adds the store's clones to the catalog. A clone whose base
// voice is missing (a Piper voice removed from the directory) stays
// hidden in the catalog until its base is back; one whose id a global
// voice holds is left out, and logged.
func (s *Server) loadVoices(ctx context.Context) error {
	list, err := s.store.Voices(ctx, "")
	if err != nil {
		return err
	}
	for _, sv := range list {
		if v, err := s.voices.Lookup(sv.Account, sv.ID); err == nil && v.Owner == sv.Account && v.Base == sv.Base {
			continue // the catalog has it already (a second Server on it)
		}
		if err := s.addVoice(sv); err != nil {
			s.log.Warn("server: voice clone left out", "voice", sv.ID, "account", sv.Account, "err", err)
		}
	}
	return nil
}

// voiceChanged brings the catalog in line with the store after another
// server created or deleted the clone id of account, or, for ("", ""),
// after changes may have been missed (store.VoiceWatcher).
func (s *Server) voiceChanged(account, id string) {
	ctx, cancel := context.WithTimeout(s.closing, 30*time.Second)
	defer cancel()
	s.voiceMu.Lock()
	defer s.voiceMu.Unlock()
	if account == "" {
		if err := s.resyncVoices(ctx); err != nil {
			s.log.Error("server: reloading voice clones", "err", err)
		}
		return
	}
	sv, err := s.store.Voice(ctx, account, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.removeVoice(account, id)
	case err != nil:
		s.log.Error("server: reading a changed voice clone", "account", account, "voice", id, "err", err)
	default:
		s.applyVoice(sv)
	}
}

// applyVoice puts the stored clone sv in the catalog, replacing an entry
// of the same account and id that differs. s.voiceMu is held.
func (s *Server) applyVoice(sv store.Voice) {
	want := s.catalogVoice(sv)
	if v, err := s.voices.Lookup(sv.Account, sv.ID); err == nil && v.Owner == sv.Account {
		if v.Base == want.Base && v.Style == want.Style && v.Description == want.Description && v.Created.Equal(want.Created) {
			return
		}
		s.removeVoice(sv.Account, sv.ID)
	}
	if err := s.addVoice(sv); err != nil {
		s.log.Warn("server: voice clone left out", "voice", sv.ID, "account", sv.Account, "err", err)
	}
}

// resyncVoices makes the catalog's clones those of the store. s.voiceMu
// is held.
func (s *Server) resyncVoices(ctx context.Context) error {
	list, err := s.store.Voices(ctx, "")
	if err != nil {
		return err
	}
	accounts, err := s.store.Accounts(ctx)
	if err != nil {
		return err
	}
	type key struct{ account, id string }
	stored := make(map[key]bool, len(list))
	for _, sv := range list {
		stored[key{sv.Account, sv.ID}] = true
		s.applyVoice(sv)
	}
	for _, a := range accounts {
		for _, v := range s.voices.List(a.Name) {
			if v.Owner == a.Name && !stored[key{a.Name, v.ID}] {
				s.removeVoice(a.Name, v.ID)
			}
		}
	}
	return nil
}

// addVoice puts the stored clone sv in the catalog; a voice cloned from a
// recording is first loaded into the cloning engine.
func (s *Server) addVoice(sv store.Voice) error {
	if sv.Sample != nil {
		cloner, _ := s.synth.Cloner()
		if cloner == nil {
			return errors.New("server: a voice cloned from a recording, and no engine clones")
		}
		if err := cloner.LoadClone(cloneName(sv.Account, sv.ID), sv.Sample); err != nil {
			return err
		}
	}
	if err := s.voices.Add(s.catalogVoice(sv)); err != nil {
		s.unloadClone(sv.Account, sv.ID)
		return err
	}
	return nil
}

// removeVoice takes the clone id of account out of the catalog and, if
// it was cloned from a recording, out of the cloning engine.
func (s *Server) removeVoice(account, id string) {
	s.voices.Remove(account, id)
	s.unloadClone(account, id)
}

func (s *Server) unloadClone(account, id string) {
	if cloner, _ := s.synth.Cloner(); cloner != nil {
		cloner.UnloadClone(cloneName(account, id))
	}
}

// cloneName is the cloning engine's name for the clone id of account
// cloned from a recording: never a voice id a request can name.
func cloneName(account, id string) string { return "clone/" + account + "/" + id }

// catalogVoice is the catalog entry of the stored clone sv.
func (s *Server) catalogVoice(sv store.Voice) voices.Voice {
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
		// Cloned from a recording: the cloning engine speaks it itself.
		_, v.Engine = s.synth.Cloner()
		v.Base, v.EngineVoice = "", cloneName(sv.Account, sv.ID)
	}
	return v
}

func (s *Server) listVoices(w http.ResponseWriter, r *http.Request) error {
	list, err := s.store.Voices(r.Context(), info(r.Context()).account)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.FromStoredVoices(list))
	return nil
}

func (s *Server) getVoice(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	v, err := s.store.Voice(r.Context(), info(r.Context()).account, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return wire.VoiceNotFound(id)
	case err != nil:
		return err
	default:
		writeJSON(w, http.StatusOK, wire.FromStoredVoice(v))
		return nil
	}
}

// reserved reports whether id names a global voice or an alias, which no
// clone may take.
func (s *Server) reserved(id string) bool {
	if _, alias := s.aliases[id]; alias {
		return true
	}
	v, err := s.voices.Lookup("", id)
	return err == nil && v.Global()
}

func (s *Server) createVoice(w http.ResponseWriter, r *http.Request) error {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		return s.cloneVoice(w, r)
	}
	if strings.HasPrefix(mt, "multipart/") || strings.HasPrefix(mt, "audio/") || mt == "application/octet-stream" {
		return wire.CloningFromAudio("file")
	}
	body, werr := s.readBody(w, r)
	if werr != nil {
		return werr
	}
	req, err := wire.ParseVoiceCreate(body)
	if err != nil {
		return wire.ToError(err, "")
	}
	ctx, account := r.Context(), info(r.Context()).account
	base, err := s.voices.Lookup(account, s.resolveVoice(account, req.BaseVoice))
	if err != nil {
		return wire.UnknownBaseVoice(req.BaseVoice)
	}
	sv := store.Voice{ID: req.ID, Account: account, Name: req.Name, Base: base.ID, Speed: 1, Range: 1, Volume: 1}
	if !base.Global() {
		// A clone of a clone: its settings are the default, and its base
		// is the other clone's, so deleting one leaves the other intact.
		parent, err := s.store.Voice(ctx, account, base.ID)
		if errors.Is(err, store.ErrNotFound) {
			return wire.UnknownBaseVoice(req.BaseVoice)
		}
		if err != nil {
			return err
		}
		sv.Base, sv.Speed, sv.Pitch, sv.Range, sv.Volume, sv.Whisper = parent.Base, parent.Speed, parent.Pitch, parent.Range, parent.Volume, parent.Whisper
		sv.Sample = parent.Sample // a clone of a voice cloned from a recording speaks with that recording's voice
	}
	for _, f := range []struct {
		dst *float64
		src *float64
	}{{&sv.Speed, req.Speed}, {&sv.Pitch, req.Pitch}, {&sv.Range, req.Range}, {&sv.Volume, req.Volume}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if req.Whisper != nil {
		sv.Whisper = *req.Whisper
	}
	if err := voices.CheckSettings(sv.Speed, sv.Pitch, sv.Range, sv.Volume); err != nil {
		return wire.ToError(err, "")
	}
	return s.createStoredVoice(w, r, sv)
}

// createStoredVoice stores sv as storeVoice does and answers 201 with it.
func (s *Server) createStoredVoice(w http.ResponseWriter, r *http.Request, sv store.Voice) error {
	sv, err := s.storeVoice(r.Context(), sv)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.FromStoredVoice(sv))
	return nil
}

// storeVoice gives sv an id if it has none, stores it and puts it in the
// catalog.
func (s *Server) storeVoice(ctx context.Context, sv store.Voice) (store.Voice, error) {
	account := sv.Account
	if sv.ID == "" {
		var b [8]byte
		rand.Read(b[:])
		sv.ID = "voice_" + hex.EncodeToString(b[:])
	}
	if s.reserved(sv.ID) {
		return store.Voice{}, wire.VoiceIDReserved(sv.ID)
	}
	// The store and the catalog change together, so that parallel
	// creations and deletions of one id cannot leave them disagreeing.
	s.voiceMu.Lock()
	defer s.voiceMu.Unlock()
	created, err := s.store.CreateVoice(ctx, sv, s.maxVoices)
	switch {
	case errors.Is(err, store.ErrVoiceExists):
		return store.Voice{}, wire.VoiceIDTaken(sv.ID)
	case errors.Is(err, store.ErrLimit):
		return store.Voice{}, wire.VoiceLimit(s.maxVoices)
	case err != nil:
		return store.Voice{}, err
	}
	sv = created
	if err := s.addVoice(sv); err != nil {
		// A rescan made the id a global voice's meanwhile: undo the
		// insert.
		if _, derr := s.store.DeleteVoice(context.WithoutCancel(ctx), account, sv.ID); derr != nil {
			return store.Voice{}, errors.Join(err, derr)
		}
		return store.Voice{}, wire.VoiceIDReserved(sv.ID)
	}
	return sv, nil
}

func (s *Server) deleteVoice(w http.ResponseWriter, r *http.Request) error {
	v, err := s.dropVoice(r.Context(), info(r.Context()).account, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.VoiceDeleted{ID: v.ID, Object: "voice", Deleted: true})
	return nil
}

// dropVoice deletes account's clone id from the store and the catalog:
// wire.VoiceNotFound, wrapping store.ErrNotFound, when it has none of
// that id.
func (s *Server) dropVoice(ctx context.Context, account, id string) (store.Voice, error) {
	s.voiceMu.Lock()
	defer s.voiceMu.Unlock()
	v, err := s.store.DeleteVoice(ctx, account, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Voice{}, fmt.Errorf("%w: %w", wire.VoiceNotFound(id), err)
	case err != nil:
		return store.Voice{}, err
	}
	s.removeVoice(account, v.ID) // the caller's clone, never a global voice
	return v, nil
}
