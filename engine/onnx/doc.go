// Package onnx is a speech engine for Piper (VITS) voices and Kokoro
// models, run through ONNX Runtime with github.com/yalue/onnxruntime_go.
//
// A Piper voice is a model NAME.onnx with its config NAME.onnx.json. Load
// reads a directory of them (Options.VoicesDir) and any single models
// (Options.Models); Rescan picks up voices added, changed or removed
// since. Both read only the configs and the model files' inputs and
// outputs (from their protobuf framing, skipping the weights), so they
// take milliseconds whatever the directory holds. A model gets its ONNX
// Runtime session, shared by all of its speakers and all requests, at its
// first use (or HoldVoice), once however many requests come for it
// meanwhile; Options.MemoryBudget unloads the least recently used models
// that no request is using once the loaded ones pass it, and Residency
// reports what is loaded. A single-speaker voice is named NAME, and
// each speaker of a multi-speaker voice NAME:SPEAKER, for example
// "en_GB-vctk-medium:p239".
//
// Text is split into sentences, each phonemized to IPA by an
// engine.Phonemizer (the espeak engine) with the voice's espeak voice,
// turned into Piper's id sequence (Config.IDs) and synthesized; each
// sentence is delivered as one chunk at the voice's sample rate as soon
// as it is ready.
//
// # Kokoro
//
// The engine also runs Kokoro-82M exports (24 kHz). In the voices
// directory (or Options.Models) a Kokoro model is a NAME.onnx with no
// NAME.onnx.json and its voice packs beside it, in one of:
//
//	NAME.voices/VOICE.bin  one raw little-endian float32 [510,1,256] pack
//	                       per voice (522,240 bytes; kokoro.js, onnx-community)
//	NAME.voices.bin        a NumPy .npz archive VOICE -> [510,1,256]
//	                       (kokoro-onnx's voices-v1.0.bin), or the packs
//	                       back to back in the order of the model's
//	                       speaker_names metadata (sherpa-onnx's voices.bin)
//
// kokoro-onnx's files also work as downloaded, not renamed. A model
// with neither of those beside it, whose inputs and outputs are a
// Kokoro export's, takes one pack file (FILE.bin or FILE.npz, either
// content) beside it:
//
//  1. the one whose name has the model's release version: kokoro-v1.0.onnx,
//     kokoro-v1.0.int8.onnx and kokoro-v1.0.fp16.onnx take voices-v1.0.bin,
//     kokoro-v1.1-zh.onnx takes voices-v1.1-zh.bin;
//  2. else the only pack file there, not counting those with another
//     version than the model's or with another such model's version.
//
// A pack file that two such models would take by the same rule (say
// kokoro-v1.0.onnx and kokoro-v1.0.int8.onnx beside one voices-v1.0.bin),
// two pack files that fit, or none leave the model out with a warning
// that names the model file, the candidates and the name that pairs it
// for sure (NAME.voices.bin); Load with Options.Strict and Rescan return
// an error wrapping ErrNoPacks. A model with NAME.onnx.json is always a
// Piper voice, and one that is not a Kokoro export is reported as a Piper
// voice missing its config.
//
// The file's content tells an .npz from raw packs, and the model's inputs
// and outputs tell the export (tokens or input_ids; speed float32 or, for
// kokoro-v1.1-zh, int32, which gets the rate rounded to a whole number),
// never the file names. Every pack is a global voice named by its pack
// name: af_heart for af_heart.npy in an .npz, af_heart.bin in
// NAME.voices/, or af_heart in speaker_names. The model's and the pack
// file's names never enter a voice id, so the downloaded
// kokoro-v1.0.onnx and voices-v1.0.bin give the ids of the packs inside
// (af_heart, am_adam, bf_emma, ...), the same ids as when renamed
// kokoro-v1.0.voices.bin, and the model's NAME (kokoro-v1.0) shows only
// in the voices' descriptions. If two Kokoro models have a pack of the
// same name, the model whose NAME sorts first has it, and a Piper voice
// of that name hides it. The first letter gives the language: a US and b UK English,
// e Spanish, f French, h Hindi, i Italian, p Brazilian Portuguese. j
// (Japanese) and z (Mandarin) packs need front ends other than espeak-ng:
// they are not listed, and using one fails with an error wrapping
// engine.ErrUnknownVoice and ErrUnsupportedLanguage (itself wrapping
// engine.ErrUnsupportedVoice) that says so; the server answers it with
// a 400 that quotes the reason.
//
// Blends as Kokoro-FastAPI writes them, "af_bella(2)+af_sky(1)", are the
// weighted mean of packs of one model (weights, 1 when left out, divided
// by their sum; "-" subtracts a pack) and speak the language of their
// first voice. They are not listed; Engine.ResolveVoice
// (engine.VoiceResolver) accepts them, and so does a voices.Catalog the
// engine was added to.
//
// Text is split into sentences as for Piper; each is phonemized by
// espeak-ng with tie marks (TiePhonemizer), mapped to misaki's phoneme set
// with misaki's espeak tables (English: its fallback table and the US or
// UK steps, plus "ɾ" to "T" for US English; other languages: its shorter
// table), and turned into ids with Kokoro's vocabulary, unknown symbols
// dropped. Punctuation that espeak-ng ends a clause with (. , ; : ! ?) is
// kept as a token; quotes, dashes and brackets are not. A sentence of more
// than 510 ids is cut after its last ". ! ?" that fits, else ": ;", else
// ", —", else a space. Each piece runs with the pack's style row min(n,
// 509) for its n ids and is one chunk. Rate maps to the speed input.
//
// This is misaki's espeak fallback, not misaki's English G2P: misaki looks
// words up in its gold and silver lexicons first, picks heteronyms by part
// of speech, and spells out numbers its own way; voxkit does none of that,
// so words espeak-ng reads differently from misaki's lexicon sound as
// espeak-ng reads them.
//
// # Word timings
//
// Every chunk carries engine.Word timings for the words of the request's
// text heard in it: runs of letters, digits and apostrophes, given as
// byte offsets into the text and as samples counted from the first
// sample of the Synthesize call. A word spans its phonemes (with the pad
// after each, for Piper); the pause of the space or punctuation after it
// is left out.
//
// Exact timings (Estimated false) come from a model that reports how long
// it makes each input id:
//
//   - A Piper voice patched for alignments by piper1-gpl (below), whose
//     second output is the duration predictor's Ceil node: frames per
//     phoneme id, [1,1,N]. Load uses the first output of any Piper model
//     as its audio and the second, when there is one, as these durations,
//     in frames of the config's hop_length samples (256 when the config
//     has none).
//   - A Kokoro export with an output named duration or durations: frames
//     of 600 samples per token, its pads included.
//
// To patch a Piper voice, with piper1-gpl and the onnx Python package
// installed (the patched model still runs in any Piper):
//
//	python3 -m piper.patch_voice_with_alignment model.onnx
//
// Voices without such an output (Piper voices as published, Kokoro
// exports with an audio output only) get estimates
// (Estimated true): the audio of a sentence is shared out over its ids,
// a phoneme counting 1, a stress or length mark 0.4, a pad 0.25, a space
// 0.5 and punctuation 3. They place words well enough to follow the
// reading along, not to cut audio at word boundaries.
//
// Phoneme words are matched to the text's words sentence by sentence.
// Where espeak-ng reads a sentence as more or fewer words than it has
// (numbers: "42" is "forty-two"; symbols, abbreviations, hyphenated
// words), that sentence's words share out its speech in proportion to
// their length, a digit counting three letters, and are Estimated even
// with durations.
//
// ONNX Runtime is a shared library loaded at run time (cgo and dlopen);
// see FindLibrary for where it is looked for and InstallHint for how to
// get it. Its environment is global to the process: the first Load
// initializes it and it stays until the process exits.
//
// # Performance
//
// The benchmarks in bench_test.go (BenchmarkSynthesize, BenchmarkOverhead,
// BenchmarkStreams, BenchmarkRSSPerVoice, BenchmarkCancel, BenchmarkArena,
// BenchmarkSessionOptions, BenchmarkVoiceLoad, BenchmarkKokoro,
// BenchmarkKokoroRSS) measure real-time factor, overhead over bare ONNX
// Runtime runs, memory per loaded voice, the cost of a cold voice and
// cancellation; their
// figures on the reference machine are in docs/decisions.md, "ONNX
// engine performance".
package onnx
