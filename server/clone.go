package server

import (
	"github.com/voxkit/voxkit/server/internal/core"
	"net/http"

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
	sv, err := s.core.CloneUpload(w, r, core.Info(r.Context()).Account, wire.OpenAIClone)
	if err != nil {
		return err
	}
	core.WriteJSON(w, http.StatusCreated, wire.FromStoredVoice(sv))
	return nil
}
