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
//
// # Performance
//
// Measured with `go test -bench . ./engine/onnx` on the shared 2-core
// reference machine (AMD EPYC, ONNX Runtime 1.30.0) with a generated model
// of a Piper medium voice's architecture and size (testdata/gen/medium.py:
// 15.4 M parameters, 22.05 kHz, about 84 ms per phoneme) speaking a fixed
// 20-sentence text (126 s of audio):
//
//   - real-time factor 0.043 to 0.055 for one stream with one intra-op
//     thread (0.12 while other processes loaded the machine);
//   - the pipeline (sentences, espeak-ng, ids, tensors, clipping) costs
//     0.5 to 1.2 % over bare ORT runs of the same id sequences (median per
//     sentence), of which phonemizing, ids and clipping are 0.1 to 0.15 %;
//   - 20 to 22 s of audio per second for one stream, up to 45 for two
//     streams when both cores are free;
//   - each voice loaded after the first adds 65 to 70 MB of resident memory
//     (the weights are 62 MB; the first adds 125 to 140 MB with ONNX
//     Runtime's own); with Options.MemArena about 145 MB;
//   - a cancelled request stops within 3 ms, in the middle of a run.
package onnx
