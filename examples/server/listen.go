package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"

	"github.com/voxkit/voxkit/server/store"
)

// listeners are the server's, bound (and its certificate loaded) before
// the first start makes an account: its password and key are printed
// only once, so nothing that can still fail may come after.
type listeners struct {
	api     net.Listener
	metrics net.Listener // nil without -metrics-addr
	wyoming net.Listener // nil without -wyoming-addr
	tls     *tls.Config  // nil without -tls-cert
}

// listen loads the -tls-cert certificate and binds -addr, -metrics-addr
// and -wyoming-addr. On an error nothing stays bound.
func (a *app) listen() (*listeners, error) {
	ls := &listeners{}
	if a.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(a.tlsCert, a.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("-tls-cert and -tls-key: %w", err)
		}
		ls.tls = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	for _, l := range []struct {
		flag, addr string
		to         *net.Listener
	}{{"-addr", a.addr, &ls.api}, {"-metrics-addr", a.metricsAddr, &ls.metrics}, {"-wyoming-addr", a.wyomingAddr, &ls.wyoming}} {
		if l.addr == "" && l.flag != "-addr" {
			continue
		}
		var err error
		if *l.to, err = net.Listen("tcp", l.addr); err != nil {
			ls.close()
			return nil, fmt.Errorf("%s: %w", l.flag, err)
		}
	}
	return ls, nil
}

// close closes the listeners that are bound; the servers given them
// close them too, which is harmless.
func (ls *listeners) close() {
	for _, l := range []net.Listener{ls.api, ls.metrics, ls.wyoming} {
		if l != nil {
			l.Close()
		}
	}
}

// errNoWyomingAccount is the error for a -wyoming-account the store does
// not have and the first start will not make.
var errNoWyomingAccount = errors.New("-wyoming-account: no such account")

// checkWyomingAccount refuses a -wyoming-account that does not exist:
// every Wyoming request would fail. On an empty store the first start
// makes "local", so that one is fine there.
func (a *app) checkWyomingAccount(ctx context.Context, st store.Store) error {
	if a.wyomingAddr == "" || a.wyomingAccount == "" { // "": the global voices only
		return nil
	}
	accounts, err := st.Accounts(ctx)
	if err != nil {
		return err
	}
	if len(accounts) == 0 && a.wyomingAccount == "local" ||
		slices.ContainsFunc(accounts, func(acct store.Account) bool { return acct.Name == a.wyomingAccount }) {
		return nil
	}
	return fmt.Errorf("%w: %q (create it with \"accounts create NAME\", or name another)", errNoWyomingAccount, a.wyomingAccount)
}
