// Package vocab holds the words the core, its rooms and every door share
// that are no door's own: a voice to clone from a recording (Clone) and
// the bound of its upload, the voice ids of samples a gateway sends
// (SampleVoice), the longest id a client may send (MaxClientID), the
// header of health checks (HeaderProbe). server/wire names them again for
// the OpenAI shapes' clients.
//
// It imports no door, no core, no room and not server/wire.
package vocab
