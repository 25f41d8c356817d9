// Package fault is voxkit's own error: an HTTP status, a type, a code,
// the field at fault and a message (Error), with the constructors of every
// error the server answers and the one mapping of the library's typed
// errors onto them (ToError, ToErrorOf). The core, the socket runtime and
// the rooms return it; each door words it in its client's shape: the
// OpenAI shapes of server/wire (whose Error is this type, rendered as
// {"error":{"message","type","param","code"}}, the body every voxkit
// answer and the OpenAI door share), ElevenLabs' {"detail":…}, Cartesia's
// error events, Wyoming's error events.
//
// It imports no door, no core, no room and not server/wire.
package fault
