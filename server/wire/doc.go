// Package wire holds the OpenAI-shaped JSON of voxkit's HTTP API — the
// speech request, the model list, the voice clones, the error object and
// the streaming events; also ElevenLabs' pronunciation dictionaries,
// which are voxkit's lexicons — and the plain functions that convert
// between them and voxkit's own types. Nothing here reads a request or writes a response (net/http
// gives only the status codes an Error carries), so the conversions are
// tested as tables of bytes in and values out.
package wire
