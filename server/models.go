package server

import (
	"github.com/voxkit/voxkit/server/internal/core"
	"net/http"

	"github.com/voxkit/voxkit/server/wire"
)

// listModels answers GET /v1/models: the voices the caller may use, as
// OpenAI models.
func (s *Server) listModels(w http.ResponseWriter, r *http.Request) error {
	core.WriteJSON(w, http.StatusOK, wire.FromVoices(s.core.Voices.List(core.Info(r.Context()).Account)))
	return nil
}

// getModel answers GET /v1/models/{id}: one voice, as a model.
func (s *Server) getModel(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	v, err := s.core.Voices.Lookup(core.Info(r.Context()).Account, id)
	if err != nil {
		return wire.UnknownModel(id)
	}
	core.WriteJSON(w, http.StatusOK, wire.FromVoice(v))
	return nil
}
