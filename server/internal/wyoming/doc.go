// Package wyoming is the server's Wyoming door: Home Assistant's speech
// protocol on TCP connections, translated onto the speech core.
//
// The codec (Read, Write, Event) reads and writes the protocol's events:
// on a TCP stream, each event is a JSON header line ({"type", "data",
// "data_length", "payload_length", and a "version" clients add}), then
// data_length bytes of JSON merged over the header's data, then
// payload_length bytes of binary payload.
//
// The door (Door, Door.Serve) answers describe with the account's voices,
// and speaks synthesize, and a streaming synthesis (synthesize-start,
// -chunk, -stop), as audio-start, an audio-chunk per sentence and
// audio-stop: 16-bit mono PCM at the voice's own rate. It maps onto the
// core so:
//
//   - a whole text (synthesize, or a streamed SSML document at its stop)
//     is a core.Job spoken by core.Speak, whose Out has started once
//     audio-start went out;
//   - a streaming synthesis is a core.StreamJob opened by core.Open, each
//     chunk given to Input.Take as the connection reads it, the stop to
//     Input.Finish; its text waits for its sentence's end (no buffer
//     delay), as Home Assistant's own servers speak it;
//   - a voice is found by catalog.Voice; a language, Piper's speaker field
//     and a model's bare name (its first speaker) are the door's
//     fallbacks;
//   - the core's *fault.Error values are error events {text, code}, and
//     the connection stays usable;
//   - admission, limits, the queue, failure logging and the metrics are
//     the core's; Wyoming has no credentials: a listener speaks as one
//     account.
//
// Each event written gets the server's write timeout (core's
// WriteTimeout); a connection's next event must begin within the
// server's socket idle time (core's SocketIdle) of its last synthesis
// event (or its opening) — a describe is answered and does not count —
// and arrive whole within the door's event timeout. The door holds at
// most its number of connections, and at most its share of them from one
// peer address.
package wyoming
