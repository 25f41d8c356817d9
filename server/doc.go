// Package server is voxkit's speech server: an http.Handler with several
// front doors over one speech core, so that the clients of other services
// work when pointed at it unchanged:
//
//   - the OpenAI speech and model-listing API under /v1 (below), with
//     voxkit's WebSocket at /v1/audio/speech/ws;
//   - ElevenLabs' API under /elevenlabs and Cartesia's under /cartesia
//     (Options.ElevenLabs, Options.Cartesia; see docs/agents.md);
//   - Home Assistant's Wyoming protocol on listeners of its own
//     (Server.ServeWyoming).
//
// Each door translates its protocol into jobs of the one core, which
// admits, limits, synthesizes, times and meters them the same way for
// all (docs/architecture.md).
//
// New returns a *Server routed with the standard ServeMux. Under /v1 it
// serves
//
//	POST   /v1/audio/speech      synthesize speech (audio or SSE)
//	GET    /v1/audio/speech/ws   WebSocket: speech sentence by sentence
//	GET    /v1/models            the voices the caller's account may use
//	GET    /v1/models/{id}       one of them
//	GET    /v1/account           the caller's account
//	POST   /v1/accounts          create an account and its first key (if allowed)
//	GET    /v1/keys              the account's API keys
//	POST   /v1/keys              create a key; the plaintext is returned once
//	DELETE /v1/keys/{prefix}     revoke a key
//	POST   /v1/voices            create a voice clone: a base voice with a stored style
//	                             (JSON), or a voice cloned from a recording (multipart)
//	GET    /v1/voices            the account's voice clones
//	GET    /v1/voices/{id}       one of them
//	DELETE /v1/voices/{id}       delete one
//	POST   /v1/lexicons          store a pronunciation lexicon (a PLS document)
//	GET    /v1/lexicons          the account's lexicons
//	GET    /v1/lexicons/{id}     one of them, as PLS
//	DELETE /v1/lexicons/{id}     delete one
//	GET    /v1/account/lexicons  the lexicons a request naming none applies
//	PUT    /v1/account/lexicons  set them
//	GET    /                     the web playground
//
// Every /v1 endpoint except POST /v1/accounts needs "Authorization: Bearer
// sk_..." (a key of Options.Store), or the host application's own sign-in
// through Options.Authenticate; errors are OpenAI-shaped JSON. The key,
// voice and account routes exist only with a Store. Mount it under a prefix with
// http.StripPrefix. A voice clone is a derived voice, or a voice cloned
// from a recording by the Synthesizer's engine.Cloner (engine/pocket),
// stored with what the engine made of the recording; New loads the clones
// in the Store into the catalog.
// docs/server.md describes the protocol, the error table
// and the limits.
//
// The server serves the formats its Synthesizer's registry holds. mp3 and
// opus need cgo and register themselves when their packages are imported.
// The OpenAI SDKs send no response_format unless the caller sets one (such
// a request gets wav), but clients written for OpenAI's own service, whose
// default is mp3, often ask for mp3 or opus by name, so a server for them
// imports both:
//
//	import (
//		_ "github.com/voxkit/voxkit/encode/mp3"
//		_ "github.com/voxkit/voxkit/encode/opus"
//	)
package server
