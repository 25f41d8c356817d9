package server

import (
	"errors"
	"net/http"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, wire.FromVoices(s.voices.List(info(r.Context()).account)))
}

func (s *Server) getModel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	v, err := s.voices.Lookup(info(r.Context()).account, id)
	if err != nil {
		writeError(w, wire.UnknownModel(id))
		return
	}
	writeJSON(w, http.StatusOK, wire.FromVoice(v))
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request) {
	if s.store == nil { // an account of the host application's
		writeJSON(w, http.StatusOK, wire.FromAccount(store.Account{Name: info(r.Context()).account}))
		return
	}
	a, err := s.store.Account(r.Context(), info(r.Context()).account)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.FromAccount(a))
}

// internal logs err and sends a 500.
func (s *Server) internal(w http.ResponseWriter, r *http.Request, err error) {
	s.log.Error("server: internal error", "request_id", RequestID(r.Context()), "err", err)
	writeError(w, wire.Internal(RequestID(r.Context())))
}

// createAccount is the playground's sign-up: a new account and its first
// key. It needs Options.AllowSignup.
func (s *Server) createAccount(w http.ResponseWriter, r *http.Request) {
	if !s.signup {
		writeError(w, &wire.Error{Status: http.StatusForbidden, Type: wire.TypeInvalidRequest, Code: wire.CodeSignupDisabled,
			Message: "Sign-up is disabled on this server; ask its operator for an API key."})
		return
	}
	body, werr := s.readBody(w, r)
	if werr != nil {
		writeError(w, werr)
		return
	}
	name, err := wire.ParseName(body, "name", 64)
	if err != nil {
		writeError(w, wire.ToError(err, ""))
		return
	}
	if err := store.ValidateAccountName(name); err != nil {
		writeError(w, wire.BadRequest(wire.CodeInvalidValue, "name", "%s", err.Error()[len("store: "):]))
		return
	}
	a, err := s.store.CreateAccount(r.Context(), name)
	if errors.Is(err, store.ErrAccountExists) {
		writeError(w, &wire.Error{Status: http.StatusConflict, Type: wire.TypeInvalidRequest, Code: wire.CodeAccountExists,
			Param: "name", Message: "An account with this name already exists."})
		return
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	k, plain, err := s.store.CreateKey(r.Context(), store.NewKey{Account: a.Name, Name: "playground", Scope: store.ScopeAdmin})
	if err != nil {
		s.internal(w, r, err)
		return
	}
	info(r.Context()).account = a.Name
	writeJSON(w, http.StatusCreated, wire.Signup{Account: wire.FromAccount(a), Key: wire.FromKey(k, plain)})
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) {
	ks, err := s.store.Keys(r.Context(), info(r.Context()).account)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.FromKeys(ks))
}

func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	body, werr := s.readBody(w, r)
	if werr != nil {
		writeError(w, werr)
		return
	}
	kc, err := wire.ParseKeyCreate(body)
	if err != nil {
		writeError(w, wire.ToError(err, ""))
		return
	}
	k, plain, err := s.store.CreateKey(r.Context(), store.NewKey{Account: info(r.Context()).account, Name: kc.Name, Scope: kc.Scope, Max: s.maxKeys})
	switch {
	case errors.Is(err, store.ErrLimit):
		writeError(w, wire.KeyLimit(s.maxKeys))
	case err != nil:
		s.internal(w, r, err)
	default:
		writeJSON(w, http.StatusCreated, wire.FromKey(k, plain))
	}
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	prefix := r.PathValue("prefix")
	k, err := s.store.RevokeKey(r.Context(), info(r.Context()).account, prefix)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrAmbiguous):
		writeError(w, &wire.Error{Status: http.StatusNotFound, Type: wire.TypeInvalidRequest, Code: wire.CodeKeyNotFound,
			Param: "prefix", Message: "No single key of this account starts with " + printable(prefix) + "."})
	case err != nil:
		s.internal(w, r, err)
	default:
		writeJSON(w, http.StatusOK, wire.FromKey(k, ""))
	}
}
