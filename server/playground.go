package server

import (
	_ "embed"
	"net/http"
)

//go:embed playground.html
var playgroundHTML []byte

func (s *Server) playground(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; media-src blob:; img-src data:; connect-src 'self'")
	h.Set("X-Frame-Options", "DENY")
	w.Write(playgroundHTML)
	return nil
}
