package admin

import (
	"errors"
	"net/http"

	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"

	"github.com/voxkit/voxkit/server/internal/throttle"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

func (d *door) getAccount(w http.ResponseWriter, r *http.Request) error {
	if d.store == nil { // an account of the host application's
		respond.WriteJSON(w, http.StatusOK, wire.FromAccount(store.Account{Name: route.Info(r.Context()).Account}))
		return nil
	}
	a, err := d.store.Account(r.Context(), route.Info(r.Context()).Account)
	if err != nil {
		return err
	}
	out := wire.FromAccount(a)
	out.Scope = string(route.Info(r.Context()).Scope)
	respond.WriteJSON(w, http.StatusOK, out)
	return nil
}

// createAccount is the playground's sign-up. It needs
// Options.AllowSignup. With a store that keeps passwords it takes
// {"name", "password"} and signs the new account in; with one that does
// not, it takes {"name"} and returns the account's first key.
func (d *door) createAccount(w http.ResponseWriter, r *http.Request) error {
	if !d.signup {
		return &fault.Error{Status: http.StatusForbidden, Type: fault.TypeInvalidRequest, Code: fault.CodeSignupDisabled,
			Message: "Sign-up is disabled on this server; ask its operator for an account."}
	}
	body, werr := d.body.ReadBody(w, r)
	if werr != nil {
		return werr
	}
	var in wire.SignIn
	var err error
	if d.logins != nil {
		in, err = wire.ParseSignIn(body, "name")
	} else {
		in.Account, err = wire.ParseName(body, "name", 64)
	}
	if err != nil {
		return fault.ToError(err, "")
	}
	var bad *store.NameError
	if err := store.ValidateAccountName(in.Account); errors.As(err, &bad) {
		return fault.BadRequest(fault.CodeInvalidValue, "name", "%s", bad.Reason)
	}
	if d.logins != nil && len([]rune(in.Password)) < store.MinPasswordLen {
		return fault.WeakPassword("password", store.MinPasswordLen)
	}
	if werr := d.reserveAttempt(w, throttle.Key{Name: "signup " + d.proxies.ClientAddress(r), Rate: signupAttempts}); werr != nil {
		return werr
	}
	var a store.Account
	if d.logins != nil {
		// Hashed first, then the account and its password in one
		// transaction: an interrupted sign-up leaves nothing behind.
		hash, werr := d.hashPassword(w, r.Context(), in.Password)
		if werr != nil {
			return werr
		}
		a, err = d.logins.CreateAccountWithPassword(r.Context(), in.Account, hash)
	} else {
		a, err = d.store.CreateAccount(r.Context(), in.Account)
	}
	if errors.Is(err, store.ErrAccountExists) {
		return &fault.Error{Status: http.StatusConflict, Type: fault.TypeInvalidRequest, Code: fault.CodeAccountExists,
			Param: "name", Message: "An account with this name already exists."}
	}
	if err != nil {
		return err
	}
	route.Info(r.Context()).Account = a.Name
	out := wire.Signup{Account: wire.FromAccount(a)}
	if d.logins != nil {
		ss, err := d.startSession(w, r, a.Name)
		if err != nil {
			return err
		}
		out.Session = &ss
	} else {
		k, plain, err := d.store.CreateKey(r.Context(), store.NewKey{Account: a.Name, Name: "playground", Scope: store.ScopeAdmin})
		if err != nil {
			return err
		}
		key := wire.FromKey(k, plain)
		out.Key = &key
	}
	respond.WriteJSON(w, http.StatusCreated, out)
	return nil
}

func (d *door) listKeys(w http.ResponseWriter, r *http.Request) error {
	ks, err := d.store.Keys(r.Context(), route.Info(r.Context()).Account)
	if err != nil {
		return err
	}
	respond.WriteJSON(w, http.StatusOK, wire.FromKeys(ks))
	return nil
}

func (d *door) createKey(w http.ResponseWriter, r *http.Request) error {
	body, werr := d.body.ReadBody(w, r)
	if werr != nil {
		return werr
	}
	kc, err := wire.ParseKeyCreate(body)
	if err != nil {
		return fault.ToError(err, "")
	}
	k, plain, err := d.store.CreateKey(r.Context(), store.NewKey{Account: route.Info(r.Context()).Account, Name: kc.Name, Scope: kc.Scope, Max: d.maxKeys})
	switch {
	case errors.Is(err, store.ErrLimit):
		return fault.KeyLimit(d.maxKeys)
	case err != nil:
		return err
	default:
		respond.WriteJSON(w, http.StatusCreated, wire.FromKey(k, plain))
		return nil
	}
}

func (d *door) revokeKey(w http.ResponseWriter, r *http.Request) error {
	prefix := r.PathValue("prefix")
	k, err := d.store.RevokeKey(r.Context(), route.Info(r.Context()).Account, prefix)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrAmbiguous):
		return &fault.Error{Status: http.StatusNotFound, Type: fault.TypeInvalidRequest, Code: fault.CodeKeyNotFound,
			Param: "prefix", Message: "No single key of this account starts with " + credentials.Printable(prefix) + "."}
	case err != nil:
		return err
	default:
		respond.WriteJSON(w, http.StatusOK, wire.FromKey(k, ""))
		return nil
	}
}
