package server

import "net/http"

func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {}
