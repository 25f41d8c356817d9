package server

import (
	"net/http"

	"github.com/voxkit/voxkit/server/wire"
)

// listModels answers GET /v1/models: the voices the caller may use, as
// OpenAI models.
func (s *Server) listModels(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, wire.FromVoices(s.voices.List(info(r.Context()).account)))
	return nil
}

// getModel answers GET /v1/models/{id}: one voice, as a model.
func (s *Server) getModel(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	v, err := s.voices.Lookup(info(r.Context()).account, id)
	if err != nil {
		return wire.UnknownModel(id)
	}
	writeJSON(w, http.StatusOK, wire.FromVoice(v))
	return nil
}
