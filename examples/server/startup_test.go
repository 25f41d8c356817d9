package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// start runs the server with args (and a text log) until it is ready,
// then stops it. It returns what it printed and logged, and its error: a
// start that should fail and did not returns nil.
func start(t *testing.T, args ...string) (stdout, log string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(&out, &errOut)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.ready = func(net.Addr) { cancel() }
	done := make(chan error, 1)
	go func() { done <- a.run(ctx, append([]string{"-log", "text"}, args...)) }()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the server neither started nor failed")
	}
	return out.String(), errOut.String(), err
}

// busyPort returns an address something listens on until the test ends.
func busyPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().String()
}

// TestFailedStartKeepsSecrets: a first start that cannot serve (a TLS key
// that does not load, a port in use for any listener) prints no password
// or key, logs no "listening", and fails; the next good start on the same
// data directory prints them.
func TestFailedStartKeepsSecrets(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	certFile, _ := selfSigned(t)
	badKey := filepath.Join(t.TempDir(), "key.pem")
	os.WriteFile(badKey, []byte("-----BEGIN EC PRIVATE KEY-----\nbm90IGEga2V5\n-----END EC PRIVATE KEY-----\n"), 0o600)
	for name, args := range map[string][]string{
		"TLS key":              {"-addr", "127.0.0.1:0", "-tls-cert", certFile, "-tls-key", badKey},
		"-addr in use":         {"-addr", busyPort(t)},
		"-metrics-addr in use": {"-addr", "127.0.0.1:0", "-metrics-addr", busyPort(t)},
		"-wyoming-addr in use": {"-addr", "127.0.0.1:0", "-wyoming-addr", busyPort(t)},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out, log, err := start(t, append([]string{"-data", dir}, args...)...)
			if err == nil {
				t.Fatal("the server started")
			}
			if passwordOf(out) != "" || keyOf(out) != "" || strings.Contains(log, "listening") {
				t.Errorf("a failed start printed secrets or logged listening (%v):\n%s\n%s", err, out, log)
			}
			out, log, err = start(t, "-data", dir, "-addr", "127.0.0.1:0")
			if err != nil || len(passwordOf(out)) != 20 || keyOf(out) == "" {
				t.Errorf("the good start after it: %v, printed %q\n%s", err, out, log)
			}
		})
	}
}

// TestWyomingAccountMustExist: a -wyoming-account the store does not have
// is refused at start, before anything is printed; one it has, or
// "local" on an empty store (the first start makes it), starts.
func TestWyomingAccountMustExist(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	dir := t.TempDir()
	wyoming := []string{"-addr", "127.0.0.1:0", "-wyoming-addr", "127.0.0.1:0"}
	out, log, err := start(t, append([]string{"-data", dir, "-wyoming-account", "nobody"}, wyoming...)...)
	if !errors.Is(err, errNoWyomingAccount) || !strings.Contains(err.Error(), `"nobody"`) || out != "" {
		t.Fatalf("an unknown -wyoming-account: %v, printed %q\n%s", err, out, log)
	}
	if _, log, err := start(t, append([]string{"-data", dir}, wyoming...)...); err != nil {
		t.Fatalf("-wyoming-account local on an empty store: %v\n%s", err, log)
	}
	cmd(t, dir, "accounts", "create", "acme")
	if _, log, err := start(t, append([]string{"-data", dir, "-wyoming-account", "acme"}, wyoming...)...); err != nil {
		t.Errorf("-wyoming-account of an account made: %v\n%s", err, log)
	}
}

// TestAliasOfACloneListed: -alias NAME=CLONE_ID is kept (no clone has
// the id at start), and the "listening" line lists what the server
// serves: the alias of the clone, not one it dropped.
func TestAliasOfACloneListed(t *testing.T) {
	_, log, err := start(t, "-data", t.TempDir(), "-addr", "127.0.0.1:0", "-alias", "narrator=my-book")
	if err != nil {
		t.Fatal(err)
	}
	var listening string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "listening") {
			listening = line
		}
	}
	if !strings.Contains(listening, "narrator") || strings.Contains(log, "dropped") {
		t.Errorf("the listening line %q, log:\n%s", listening, log)
	}
}
