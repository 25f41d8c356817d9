// Package tts is voxkit's public entry point: it turns text into encoded
// speech using the engines and voices it is given.
//
// A Synthesizer looks up the voice in its catalog, splits the input into
// sentences, has the voice's engine render each one, resamples the audio to
// the requested format's rate and encodes it. Synthesize and
// SynthesizeRequest return a complete clip, WriteClip writes one to an
// io.Writer, and Stream writes each sentence's audio as soon as it is
// ready, so the time to first audio does not grow with the length of the
// input.
//
// New builds a Synthesizer from engines (its catalog lists their voices);
// tts/espeaktts's New is the ready default on the embedded voices.
package tts
