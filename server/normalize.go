package server

import (
	"github.com/voxkit/voxkit/server/internal/core"
	"net/http"

	"github.com/voxkit/voxkit/server/wire"
)

// normalizeText answers GET /v1/normalize?text=…&voice=…: the text the
// voice reads for an input (written forms as words), with the map back
// to the input, for the playground to show under the input.
func (s *Server) normalizeText(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	text, voice := q.Get("text"), q.Get("voice")
	switch {
	case !q.Has("text"):
		return wire.BadRequest(wire.CodeMissingParameter, "text", "Missing required parameter: 'text'.")
	case voice == "":
		return wire.BadRequest(wire.CodeMissingParameter, "voice", "Missing required parameter: 'voice'.")
	}
	account := core.Info(r.Context()).Account
	t, err := s.core.Synth.NormalizeText(account, s.core.Resolve(account, voice), text)
	if err != nil {
		return wire.ToError(err, voice)
	}
	core.WriteJSON(w, http.StatusOK, wire.FromNormalized(voice, text, t))
	return nil
}
