package server

import (
	"errors"
	"net/http"
	"slices"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/wavfile"
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

// silentRecording is the level (RMS) below which a recording counts as
// silence: -60 dBFS.
const silentRecording = 0.001

// cloneVoice answers a multipart POST /v1/voices.
func (s *Server) cloneVoice(w http.ResponseWriter, r *http.Request) error {
	cloner, _ := s.synth.Cloner()
	if cloner == nil {
		return wire.NoCloning()
	}
	r.Body = http.MaxBytesReader(w, r.Body, wire.MaxRecording+1<<20)
	mr, err := r.MultipartReader()
	if err != nil {
		return wire.BadRequest(wire.CodeInvalidValue, "", "The body is not well-formed multipart/form-data: %s.", err)
	}
	req, err := wire.ParseVoiceClone(mr)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		w.Header().Set("Connection", "close")
		return wire.BodyTooLarge(tooBig.Limit)
	}
	if err != nil {
		return wire.ToError(err, "")
	}
	models := cloner.CloneModels()
	switch {
	case req.Model == "" && len(models) == 1:
		req.Model = models[0]
	case !slices.Contains(models, req.Model):
		return wire.UnknownCloneModel(req.Model, models)
	}
	a, err := wavfile.Parse(req.Audio)
	if err != nil {
		return wire.BadRecording(wire.CodeUnsupportedAudio, "The recording cannot be read: %s. Upload a WAV file "+
			"(PCM of 8 to 32 bits or float, any rate and channels).", err)
	}
	if len(a.Samples) < a.SampleRate {
		return wire.BadRecording(wire.CodeAudioTooShort, "The recording is %s long; a clone needs at least 1 s "+
			"(5 to 10 s of one speaker is best; only the first 10 s are used).", wire.RecordingSeconds(len(a.Samples), a.SampleRate))
	}
	if dsp.RMS(a.Samples) < silentRecording {
		return wire.BadRecording(wire.CodeAudioSilent, "The recording is silent (below -60 dBFS); a clone needs someone speaking.")
	}
	sample, err := cloner.CloneVoice(r.Context(), engine.CloneRequest{Model: req.Model, Samples: a.Samples, SampleRate: a.SampleRate,
		Temperature: req.Temperature, Steps: req.Steps, Seed: req.Seed})
	switch {
	case errors.Is(err, engine.ErrRecording):
		return wire.BadRecording(wire.CodeUnsupportedAudio, "The recording cannot be cloned: %s.", err)
	case errors.Is(err, engine.ErrCloneSettings):
		return wire.BadRequest(wire.CodeInvalidValue, "", "%s.", err)
	case err != nil:
		return err
	}
	return s.createStoredVoice(w, r, store.Voice{ID: req.ID, Account: info(r.Context()).account, Name: req.Name, Base: req.Model,
		Speed: 1, Range: 1, Volume: 1, Sample: sample})
}
