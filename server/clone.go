package server

import (
	"errors"
	"net/http"
	"slices"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/recording"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// Voices cloned from a recording (multipart POST /v1/voices): the
// recording is decoded and the Synthesizer's cloning engine
// (engine.Cloner) makes a voice of it, once; what it made is stored with
// the voice (store.Voice.Sample), and loaded into the engine as
// cloneName(account, id) wherever the catalog takes the voice in — at
// start, on every replica as the store reports changes — and unloaded
// when it goes.

// clonedSeconds is how much of a recording is decoded, and checked for
// length and silence: the first 10 s, all that PocketTTS clones from
// (pocket.MaxReference).
const clonedSeconds = 10

// silentRecording is the level (RMS) below which a recording counts as
// silence: -60 dBFS.
const silentRecording = 0.001

// cloneVoice answers a multipart POST /v1/voices.
func (s *Server) cloneVoice(w http.ResponseWriter, r *http.Request) error {
	sv, err := s.cloneUpload(w, r, info(r.Context()).account, wire.OpenAIClone)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.FromStoredVoice(sv))
	return nil
}

// cloneUpload makes account a voice of the recording in r's multipart
// body of the form f, stores it and puts it in the catalog: the one way
// every door clones. Its errors are *wire.Error for the client's, others
// for the server's.
func (s *Server) cloneUpload(w http.ResponseWriter, r *http.Request, account string, f wire.CloneForm) (store.Voice, error) {
	cloner, _ := s.synth.Cloner()
	if cloner == nil {
		return store.Voice{}, wire.NoCloning()
	}
	r.Body = http.MaxBytesReader(w, r.Body, wire.MaxRecording+1<<20)
	mr, err := r.MultipartReader()
	if err != nil {
		return store.Voice{}, wire.BadRequest(wire.CodeInvalidValue, "", "The body is not well-formed multipart/form-data: %s.", err)
	}
	req, err := f.Parse(mr)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		w.Header().Set("Connection", "close")
		return store.Voice{}, wire.BodyTooLarge(tooBig.Limit)
	}
	if err != nil {
		return store.Voice{}, wire.ToError(err, "")
	}
	models := cloner.CloneModels()
	switch {
	case req.Model == "" && len(models) == 1:
		req.Model = models[0]
	case !slices.Contains(models, req.Model):
		return store.Voice{}, wire.UnknownCloneModel(req.Model, models)
	}
	a, err := recording.Decode(req.Audio, clonedSeconds)
	if err != nil {
		return store.Voice{}, wire.BadRecording(wire.CodeUnsupportedAudio, "The recording cannot be read: %s. Upload a WAV file "+
			"(PCM of 8 to 32 bits or float) or a FLAC file, of any rate and channels.", err)
	}
	if len(a.Samples) < a.SampleRate {
		return store.Voice{}, wire.BadRecording(wire.CodeAudioTooShort, "The recording is %s long; a clone needs at least 1 s "+
			"(5 to 10 s of one speaker is best; only the first 10 s are used).", wire.RecordingSeconds(len(a.Samples), a.SampleRate))
	}
	if dsp.RMS(a.Samples) < silentRecording {
		return store.Voice{}, wire.BadRecording(wire.CodeAudioSilent, "The recording is silent (below -60 dBFS); a clone needs someone speaking.")
	}
	sample, err := cloner.CloneVoice(r.Context(), engine.CloneRequest{Model: req.Model, Samples: a.Samples, SampleRate: a.SampleRate,
		Temperature: req.Temperature, Steps: req.Steps, Seed: req.Seed})
	switch {
	case errors.Is(err, engine.ErrRecording):
		return store.Voice{}, wire.BadRecording(wire.CodeUnsupportedAudio, "The recording cannot be cloned: %s.", err)
	case errors.Is(err, engine.ErrCloneSettings):
		return store.Voice{}, wire.BadRequest(wire.CodeInvalidValue, "", "%s.", err)
	case err != nil:
		return store.Voice{}, err
	}
	return s.storeVoice(r.Context(), store.Voice{ID: req.ID, Account: account, Name: req.Name, Base: req.Model,
		Speed: 1, Range: 1, Volume: 1, Sample: sample})
}

// vendorError is err as a *wire.Error to shape on a vendor's door: the
// server's own errors are logged and become a 500.
func (s *Server) vendorError(r *http.Request, err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	s.log.Error("server: internal error", "request_id", RequestID(r.Context()), "err", err)
	return wire.Internal(RequestID(r.Context()))
}
