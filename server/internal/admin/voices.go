package admin

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/voxkit/voxkit/server/internal/catalog"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/vocab"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/voices"
)

// Voices is what the voice routes ask of the catalog room
// (catalog.Catalog).
type Voices interface {
	Voice(account, name string) (voices.Voice, *fault.Error)
	StoredVoices(ctx context.Context, account string) ([]store.Voice, error)
	StoreVoice(ctx context.Context, sv store.Voice) (store.Voice, error)
	DropVoice(ctx context.Context, account, id string) (store.Voice, error)
	CloneUpload(w http.ResponseWriter, r *http.Request, account string, f catalog.Form) (store.Voice, error)
	EncodeUpload(w http.ResponseWriter, r *http.Request, account string, f catalog.Form) (vocab.Clone, []byte, error)
}

// voiceRoutes serve /v1/voices and /v1/voice-samples.
type voiceRoutes struct {
	voices Voices
	store  store.Store // a clone's parent
	body   route.Body
}

// A voice clone here is a derived voice: a base voice the account may use
// plus a stored default style (speed, pitch, pitch range, volume,
// whisper). The store is its record; the catalog serves it.

func (d *voiceRoutes) listVoices(w http.ResponseWriter, r *http.Request) error {
	list, err := d.voices.StoredVoices(r.Context(), route.Info(r.Context()).Account)
	if err != nil {
		return err
	}
	respond.WriteJSON(w, http.StatusOK, wire.FromStoredVoices(list))
	return nil
}

func (d *voiceRoutes) getVoice(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	v, err := d.store.Voice(r.Context(), route.Info(r.Context()).Account, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fault.VoiceNotFound(id)
	case err != nil:
		return err
	default:
		respond.WriteJSON(w, http.StatusOK, wire.FromStoredVoice(v))
		return nil
	}
}

func (d *voiceRoutes) createVoice(w http.ResponseWriter, r *http.Request) error {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		return d.cloneVoice(w, r)
	}
	if strings.HasPrefix(mt, "multipart/") || strings.HasPrefix(mt, "audio/") || mt == "application/octet-stream" {
		return fault.CloningFromAudio("file")
	}
	body, werr := d.body.ReadBody(w, r)
	if werr != nil {
		return werr
	}
	req, err := wire.ParseVoiceCreate(body)
	if err != nil {
		return fault.ToError(err, "")
	}
	ctx, account := r.Context(), route.Info(r.Context()).Account
	base, werr := d.voices.Voice(account, req.BaseVoice)
	if werr != nil {
		return fault.UnknownBaseVoice(req.BaseVoice)
	}
	sv := store.Voice{ID: req.ID, Account: account, Name: req.Name, Base: base.ID, Speed: 1, Range: 1, Volume: 1}
	if !base.Global() {
		// A clone of a clone: its settings are the default, and its base
		// is the other clone's, so deleting one leaves the other intact.
		parent, err := d.store.Voice(ctx, account, base.ID)
		if errors.Is(err, store.ErrNotFound) {
			return fault.UnknownBaseVoice(req.BaseVoice)
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
		return fault.ToError(err, "")
	}
	return d.createStoredVoice(w, r, sv)
}

// createStoredVoice stores sv as storeVoice does and answers 201 with it.
func (d *voiceRoutes) createStoredVoice(w http.ResponseWriter, r *http.Request, sv store.Voice) error {
	sv, err := d.voices.StoreVoice(r.Context(), sv)
	if err != nil {
		return err
	}
	respond.WriteJSON(w, http.StatusCreated, wire.FromStoredVoice(sv))
	return nil
}

func (d *voiceRoutes) deleteVoice(w http.ResponseWriter, r *http.Request) error {
	v, err := d.voices.DropVoice(r.Context(), route.Info(r.Context()).Account, r.PathValue("id"))
	if err != nil {
		return err
	}
	respond.WriteJSON(w, http.StatusOK, wire.VoiceDeleted{ID: v.ID, Object: "voice", Deleted: true})
	return nil
}

// cloneVoice answers a multipart POST /v1/voices.
func (d *voiceRoutes) cloneVoice(w http.ResponseWriter, r *http.Request) error {
	sv, err := d.voices.CloneUpload(w, r, route.Info(r.Context()).Account, wire.OpenAIClone)
	if err != nil {
		return err
	}
	respond.WriteJSON(w, http.StatusCreated, wire.FromStoredVoice(sv))
	return nil
}

// encodeSample answers POST /v1/voice-samples, a gateway's: the multipart
// body of a POST /v1/voices cloned, and what the cloning engine made of
// it (store.Voice.Sample) answered as application/octet-stream; nothing
// is stored. A gateway,
// which has no engine, clones through it (package server/upstream).
func (d *voiceRoutes) encodeSample(w http.ResponseWriter, r *http.Request) error {
	_, sample, err := d.voices.EncodeUpload(w, r, route.Info(r.Context()).Account, wire.OpenAIClone)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.Itoa(len(sample)))
	w.WriteHeader(http.StatusOK)
	w.Write(sample)
	return nil
}
