// Package supertonic speaks with Supertone's Supertonic models (1, 2 and
// 3) through ONNX Runtime: four graphs of about 66 M parameters in all,
// 44.1 kHz, ten voices, a flow-matching model that runs many times faster
// than real time on a CPU in a few steps.
//
// # Models
//
// A model is a directory, whose name is the model's id, in one of two
// layouts. sherpa-onnx's release (its sherpa-onnx-supertonic-*-tts-*
// archives of the tts-models release):
//
//	duration_predictor.onnx  text ids, voice → the speech's duration in seconds
//	text_encoder.onnx        text ids, voice → the text's embedding
//	vector_estimator.onnx    one flow step over the latent
//	vocoder.onnx             latent → 44.1 kHz audio, 3072 samples a frame
//	tts.json                 ae.sample_rate, ae.base_chunk_size,
//	                         ttl.chunk_compress_factor, ttl.latent_dim
//	unicode_indexer.bin      the model's id of each code point (int32)
//	voice.bin                every voice's styles, in file-name order
//
// where each NAME.onnx may be NAME.int8.onnx instead; or Supertone's own,
// as its model repositories are downloaded: onnx/ holding the four graphs,
// tts.json and unicode_indexer.json, beside voice_styles/ holding one
// VOICE.json per voice. Load finds model directories in Options.VoicesDir
// (the directory the server's -voices flag names, where engine/onnx and
// engine/pocket find theirs) and in Options.Models. docs/supertonic.md
// says where to download them and under which licences.
//
// # Voices and languages
//
// Each voice of a model is MODEL:VOICE (MODEL:F1 … MODEL:M5: voice.bin's
// voices are named F1… and M1…, half each, in the order the release made
// it in; a voice_styles file gives its own name), speaking the model's
// first language, English; MODEL:VOICE:LANG speaks another language of the
// model. Supertonic 1 speaks English, 2 English, Korean, Spanish,
// Portuguese and French, 3 thirty-one languages (see Engine.Voices). The
// version is told from the characters the model's unicode indexer knows:
// Cyrillic only from version 3, Hangul jamo from version 2.
//
// # How it speaks
//
// This is sherpa-onnx's Supertonic runtime (offline-tts-supertonic-impl),
// written anew, and its samples are sherpa-onnx's (TestParity runs
// sherpa-onnx-node 1.13.8 on the same model, voice, text, steps and seed).
// The text is cut into chunks as sherpa-onnx's ChunkText cuts it (at most
// 300 code points, 120 in Korean and Japanese; paragraphs, sentences, long
// sentences at their last space or clause mark, pieces joined again while
// they fit). Each chunk goes through sherpa-onnx's front end: its
// replacements of dashes, quotes and symbols, one space between words and
// none before punctuation, a period added unless the text ends with a
// closing mark, <lang>…</lang> around it from version 2 on, then every
// code point decomposed (NFKD within the Basic Multilingual Plane, Hangul
// syllables into their jamo; code points beyond the plane dropped) and
// looked up in the indexer. The duration predictor gives the chunk's
// length; lengths are computed in float32 as sherpa-onnx computes them
// (the duration divided by the speed and held at 0.1 s or more only when
// the speed is not 1). The flow starts from standard normal noise over
// the chunk's latent frames and takes Steps Euler steps
// (DefaultSteps, 5, as in sherpa-onnx) through the vector estimator; the
// vocoder turns the latent into audio, cut to the predicted length. Each
// chunk is one engine.Chunk, sent as soon as it is made, after 0.3 s of
// silence for every chunk but the first.
//
// The noise is sherpa-onnx's: with a seed (engine.Request.Seed), one
// std::mt19937 seeded with it draws the noise of all the call's chunks, a
// fresh std::normal_distribution<float> per chunk in libstdc++'s polar
// method (the second value of each pair first), with glibc's logf called
// through cgo (math.Log rounded to float32 differs in about 0.3 % of
// values). Without a seed a new one is drawn for each call.
// Prosody.Rate is the model's speed. The model has no other
// speaking-style control and reads no phonemes.
//
// # Batches
//
// Concurrent requests for one model share its graphs' runs: each chunk
// goes to the model's batcher, which starts it at once while fewer runs
// than the machine's processors hold (GOMAXPROCS over Options.Threads)
// are under way, so a lone request waits for nothing; chunks that come
// while every run is busy wait, and go together in the next run, up to
// Options.MaxBatch (DefaultMaxBatch, 8; 1 runs every chunk alone) of the
// same steps. The batch is padded as sherpa-onnx pads one: text ids with 0
// to the longest, the text mask 1 over each chunk's own ids, the latent
// over the longest chunk's frames with each chunk's noise (drawn from its
// own request's generator, as it is drawn alone) on its own frames and
// the latent mask 1 there; each chunk's audio is cut to its own length.
// The published graphs keep a batch's items apart, so a chunk's samples
// are those it has alone (TestBatch: within one 16-bit step). On a CPU a
// batch saves only a run's fixed cost (about 35 ms on the full-size
// model: 10 % of a sentence's time, 30 % of a few words'), which padding
// spends quickly, so a batch takes only chunks whose lengths pad it by at
// most 4 ids for each chunk beside the first; the others wait for another
// batch. A request that ends while its chunk waits leaves the batch; a
// batch stops early only when every request in it has ended.
package supertonic
