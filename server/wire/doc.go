// Package wire holds the OpenAI-shaped JSON of voxkit's HTTP API — the
// speech request, the model list, the voice clones, the error object and
// the streaming events — and the plain functions that convert between them and voxkit's
// own types. Nothing here touches HTTP, so the conversions are tested as
// tables of bytes in and values out.
package wire
