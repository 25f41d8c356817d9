package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// Ready reports whether the server can serve speech: it is not shutting
// down, it has voices, and its store (when it has one that is a store.Pinger)
// answers. GET /readyz answers with it. Its error's text may name the
// store's address or user: ReadyReason gives what a client may be told.
func (s *Server) Ready(ctx context.Context) error {
	if s.core.Closing().Err() != nil {
		return &notReady{reason: "shutting down"}
	}
	if len(s.core.Catalog.List("")) == 0 {
		return &notReady{reason: "no voices loaded"}
	}
	if p, ok := s.core.Store.(store.Pinger); ok {
		if err := p.Ping(ctx); err != nil {
			return &notReady{reason: "store unreachable", err: err}
		}
	}
	if s.ready != nil {
		if err := s.ready(ctx); err != nil {
			return &notReady{reason: "not ready", err: err}
		}
	}
	return nil
}

// notReady is Ready's error: a reason any client may read, and the
// details behind it, for the log and the operator's own listener.
type notReady struct {
	reason string
	err    error
}

func (e *notReady) Error() string {
	if e.err == nil {
		return e.reason
	}
	return e.reason + ": " + e.err.Error()
}

func (e *notReady) Unwrap() error { return e.err }

// ReadyReason returns the part of an error of Ready that is safe to show
// to anyone: "shutting down", "no voices loaded", "store unreachable" or
// "not ready", without the details (addresses, users) that the error's
// full text may hold.
func ReadyReason(err error) string {
	var nr *notReady
	if errors.As(err, &nr) {
		return nr.reason
	}
	return "not ready"
}

// healthz answers GET /healthz: the process is alive and serving HTTP.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	respond.WriteJSON(w, http.StatusOK, wire.Health{Status: "ok"})
	return nil
}

// readyz answers GET /readyz with Ready: 200, or 503 with the reason
// (ReadyReason; the details are logged).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.Ready(ctx); err != nil {
		s.core.Log.Warn("server: not ready", "request_id", RequestID(r.Context()), "err", err)
		respond.WriteJSON(w, http.StatusServiceUnavailable, wire.Health{Status: "unavailable", Reason: ReadyReason(err)})
		return nil
	}
	respond.WriteJSON(w, http.StatusOK, wire.Health{Status: "ok"})
	return nil
}
