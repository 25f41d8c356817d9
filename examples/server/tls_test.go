package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM files.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	return certFile, keyFile
}

// TestTLSFlags: -tls-cert and -tls-key serve HTTPS (plain HTTP is
// refused) and healthcheck asks over HTTPS; one without the other, or a -trusted-proxies that is not
// addresses, is an error at start.
func TestTLSFlags(t *testing.T) {
	t.Parallel() // its own app, data and listeners; no timing bound
	certFile, keyFile := selfSigned(t)
	var stderr bytes.Buffer
	addr, cancel, done := serve(t, newApp(io.Discard, &stderr), &stderr, "-data", t.TempDir(), "-tls-cert", certFile, "-tls-key", keyFile,
		"-trusted-proxies", "10.0.0.0/8, 192.168.1.5")
	defer func() { cancel(); <-done }()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	res, err := client.Get("https://" + addr.String() + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("https /healthz: %v %v", res, err)
	}
	res.Body.Close()
	if res, err := http.Get("http://" + addr.String() + "/healthz"); err == nil && res.StatusCode == 200 {
		t.Errorf("plain HTTP answered 200 on the TLS listener")
	}
	// The healthcheck subcommand (a container's HEALTHCHECK) asks it over
	// HTTPS; a port with nothing behind it fails.
	for _, c := range []struct {
		addr string
		ok   bool
	}{{addr.String(), true}, {"127.0.0.1:1", false}} {
		err := newApp(io.Discard, io.Discard).run(context.Background(), []string{"-addr", c.addr, "-tls-cert", certFile, "-tls-key", keyFile, "-log", "off", "healthcheck"})
		if (err == nil) != c.ok {
			t.Errorf("healthcheck of %s: %v", c.addr, err)
		}
	}
	for _, args := range [][]string{{"-tls-cert", certFile}, {"-trusted-proxies", "10.0.0.0/33"}, {"-trusted-proxies", "proxy.local"}} {
		err := newApp(io.Discard, io.Discard).run(context.Background(), append([]string{"-data", t.TempDir(), "-log", "off"}, args...))
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "-")) {
			t.Errorf("%q: %v", args, err)
		}
	}
}
