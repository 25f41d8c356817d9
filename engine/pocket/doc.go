// Package pocket speaks with Kyutai's PocketTTS through ONNX Runtime, in
// voices cloned from a few seconds of a recording, with no transcript.
//
// # Models
//
// A model is a directory in sherpa-onnx's release layout (its
// sherpa-onnx-pocket-tts-2026-01-26 and -int8- archives of the tts-models
// release), whose name is the model's id:
//
//	lm_main.onnx        the language model over frames (with its states)
//	lm_flow.onnx        the flow that turns its conditioning into a frame
//	encoder.onnx        Mimi's encoder: a recording at 24 kHz to latents
//	decoder.onnx        Mimi's decoder: frames to 24 kHz audio (with states)
//	text_conditioner.onnx  SentencePiece pieces to embeddings
//	vocab.json, token_scores.json  the SentencePiece pieces and scores
//	test_wavs/*.wav     recordings (optional), offered as voices MODEL:STEM
//
// Each NAME.onnx may be NAME.int8.onnx instead, as in the int8 archive.
// Load finds model directories in Options.VoicesDir (the directory the
// server's -voices flag names, where engine/onnx finds Piper and Kokoro
// voices) and in Options.Models. docs/voice-cloning.md says where to
// download them and under which licence.
//
// # How it speaks
//
// This is sherpa-onnx's PocketTTS runtime (offline-tts-pocket-impl.h),
// written anew: every model's inputs and outputs are taken by position;
// lm_main's and the decoder's states start as zeros of their declared
// type and shape and are fed back after each run; the voice's latents and
// then the text's embeddings are run through lm_main before the first
// frame; each frame is one lm_main step and an Euler flow of Settings.Steps
// steps over lm_flow, starting from noise of standard deviation
// √Settings.Temperature; a piece ends three frames after the end-of-speech
// logit first passes -4 (or after 500 frames). The text is cut into pieces
// as sherpa-onnx cuts it. At temperature 0 the samples are sherpa-onnx's
// (TestParity runs sherpa-onnx-node on the same model).
//
// Where sherpa-onnx decodes a piece's frames only once all are made,
// SynthesizeVoice decodes each chunk of 15 frames (1.2 s) as soon as they
// exist, with the same chunk boundaries and so the same samples: the first
// audio of a long sentence comes after its first 15 frames.
//
// A model keeps lm_main's states from call to call (the server calls once
// per sentence): the sets its runs write into, and the states after the
// latents of the last two voices spoken, so a voice's next sentence starts
// there without running its latents again; the step that ends a piece runs
// nothing. Close frees them (docs/voice-cloning.md gives their size).
//
// # Voices
//
// Clone runs the encoder on a recording (its first 10 s, resampled to
// 24 kHz) and returns a Voice: the latents and the sampling Settings. A
// Voice is stored with MarshalBinary and spoken with SynthesizeVoice, or
// added under a name (AddVoice) for Synthesize. The recordings of a
// model's test_wavs directory are voices "MODEL:STEM", cloned with
// DefaultSettings when first spoken.
package pocket
