package server

import (
	"github.com/voxkit/voxkit/server/internal/core"
	"net/http"

	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tags"
)

// listTags answers GET /v1/tags: the audio tag vocabulary, for the
// playground's palette. It needs no credentials.
func (s *Server) listTags(w http.ResponseWriter, r *http.Request) error {
	core.WriteJSON(w, http.StatusOK, wire.FromTags(tags.Vocabulary()))
	return nil
}
