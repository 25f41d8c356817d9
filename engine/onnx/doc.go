// Package onnx is a speech engine for Piper (VITS) voices, run through
// ONNX Runtime with github.com/yalue/onnxruntime_go.
//
// A Piper voice is a model NAME.onnx with its config NAME.onnx.json. Load
// reads a directory of them (Options.VoicesDir) and any single models
// (Options.Models); Rescan picks up voices added, changed or removed
// since. Each model gets one ONNX Runtime session, shared by all of its
// speakers and all requests. A single-speaker voice is named NAME, and
// each speaker of a multi-speaker voice NAME:SPEAKER, for example
// "en_GB-vctk-medium:p239".
//
// Text is split into sentences, each phonemized to IPA by an
// engine.Phonemizer (the espeak engine) with the voice's espeak voice,
// turned into Piper's id sequence (Config.IDs) and synthesized; each
// sentence is delivered as one chunk at the voice's sample rate as soon
// as it is ready.
//
// ONNX Runtime is a shared library loaded at run time (cgo and dlopen);
// see FindLibrary for where it is looked for and InstallHint for how to
// get it. Its environment is global to the process: the first Load
// initializes it and it stays until the process exits.
package onnx
