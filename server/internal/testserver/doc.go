//go:build cgo

// Package testserver is the harness of the server's tests, beside the
// doors they test: New starts a server.Server on loopback over espeak-ng
// and fake engines and a SQLite store, with the keys of two accounts, and
// Env's methods speak to it through each door (OpenAI's SDK and HTTP,
// voxkit's WebSocket, ElevenLabs, Cartesia, Wyoming, the admin API and the
// playground). Only tests import it; it registers every codec, since the
// tests use every format. It needs cgo (espeak-ng, mp3, opus): its files
// build only with cgo, so that a CGO_ENABLED=0 build of ./server/... (make
// test's first check) passes over it.
package testserver

import (
	_ "github.com/voxkit/voxkit/encode/mp3"
	_ "github.com/voxkit/voxkit/encode/opus"
)
