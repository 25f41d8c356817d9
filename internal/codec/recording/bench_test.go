package recording_test

import (
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/codec/recording"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// BenchmarkDecode decodes a 10 s recording (speech at 24 kHz, mono) in
// each format: WAV, FLAC, MP3 (64 kbps) and Ogg Opus as voxkit encodes
// them, and WebM Opus of 20 ms packets at 32 kbps in one Cluster.
func BenchmarkDecode(b *testing.B) {
	samples := speech(10 * 24000)
	files := map[string][]byte{}
	for _, name := range []string{"wav", "flac", "mp3", "opus"} {
		files[name] = audiotest.Encoded(b, encode.Format{Name: name, SampleRate: 24000}, samples)
	}
	p, la := opusPackets(b, 500, 32000)
	var blocks []byte
	for _, packet := range p {
		blocks = append(blocks, simpleBlock(1, noLacing, packet)...)
	}
	files["webm"] = webmOf(la, blocks)
	for _, name := range []string{"wav", "flac", "mp3", "opus", "webm"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(files[name])))
			for b.Loop() {
				a, err := recording.Decode(files[name], 10)
				if err != nil || len(a.Samples) < 9*a.SampleRate {
					b.Fatalf("%d samples, %v", len(a.Samples), err)
				}
			}
		})
	}
}
