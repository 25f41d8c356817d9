package tts_test

import "testing"

// BenchmarkPeerKokoroParagraph (issue 42 point 2, "the same for Kokoro"):
// the 16-sentence paragraph of BenchmarkPeerVITSParagraph on a
// Kokoro-82M-sized model (engine/onnx/testdata/gen/kokoro_bench.py
// --sherpa; sherpa-onnx reads it as a Kokoro v0.19-style model, English
// through espeak-ng and tokens.txt), against sherpa-onnx's generate() with
// 2 threads (see peerParagraphBench).
func BenchmarkPeerKokoroParagraph(b *testing.B) { peerParagraphBench(b, kokoroModel) }
