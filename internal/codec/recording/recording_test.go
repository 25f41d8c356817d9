package recording_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"

	"github.com/voxkit/voxkit/encode"
	_ "github.com/voxkit/voxkit/encode/mp3"
	"github.com/voxkit/voxkit/internal/codec/recording"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
)

// speech is n 16-bit samples of a generated recording at 24 kHz.
func speech(n int) []int16 {
	return dsp.AppendInt16(nil, pockettest.Recording(float64(n)/pockettest.SampleRate, 190))[:n]
}

// encoded is samples in the format name (wav, flac, mp3 or opus) at rate.
func encoded(t *testing.T, name string, samples []int16, rate int) []byte {
	return audiotest.Encoded(t, encode.Format{Name: name, SampleRate: rate}, samples)
}

// stereoFLAC is a 24-bit stereo FLAC at rate whose left channel is left
// and right channel right, in verbatim frames of 1000 samples.
func stereoFLAC(t *testing.T, left, right []int32, rate int) []byte {
	t.Helper()
	var b bytes.Buffer
	enc, err := flac.NewEncoder(&b, &meta.StreamInfo{BlockSizeMin: 16, BlockSizeMax: 1000, SampleRate: uint32(rate),
		NChannels: 2, BitsPerSample: 24, NSamples: uint64(len(left))})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(left); i += 1000 {
		end := min(i+1000, len(left))
		sub := func(s []int32) *frame.Subframe {
			return &frame.Subframe{SubHeader: frame.SubHeader{Pred: frame.PredVerbatim}, Samples: s, NSamples: len(s)}
		}
		f := &frame.Frame{Header: frame.Header{BlockSize: uint16(end - i), SampleRate: uint32(rate), Channels: frame.ChannelsLR,
			BitsPerSample: 24}, Subframes: []*frame.Subframe{sub(left[i:end]), sub(right[i:end])}}
		if err := enc.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDecode: WAV and FLAC of the same samples decode alike; a stereo
// 24-bit FLAC is mixed down to the mean of its channels; maxSeconds cuts.
func TestDecode(t *testing.T) {
	samples := speech(30000)
	wav, err := recording.Decode(encoded(t, "wav", samples, 24000), 0)
	if err != nil {
		t.Fatal(err)
	}
	fl, err := recording.Decode(encoded(t, "flac", samples, 24000), 0)
	if err != nil {
		t.Fatal(err)
	}
	if fl.SampleRate != 24000 || len(fl.Samples) != len(samples) {
		t.Fatalf("flac: %d samples at %d Hz, want %d at 24000", len(fl.Samples), fl.SampleRate, len(samples))
	}
	for i := range samples {
		if fl.Samples[i] != wav.Samples[i] || fl.Samples[i] != float32(samples[i])/32768 {
			t.Fatalf("sample %d: flac %v, wav %v, want %v", i, fl.Samples[i], wav.Samples[i], float32(samples[i])/32768)
		}
	}

	left, right := make([]int32, 4500), make([]int32, 4500)
	for i := range left {
		left[i], right[i] = int32(i*1000), -int32(i*500)
	}
	st, err := recording.Decode(stereoFLAC(t, left, right, 48000), 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.SampleRate != 48000 || len(st.Samples) != len(left) {
		t.Fatalf("stereo: %d samples at %d Hz", len(st.Samples), st.SampleRate)
	}
	for i := range left {
		if want := float32(float64(left[i]+right[i]) / 2 / (1 << 23)); math.Abs(float64(st.Samples[i]-want)) > 1e-7 {
			t.Fatalf("stereo sample %d: %v, want %v", i, st.Samples[i], want)
		}
	}

	// An ID3v2 tag (10 bytes of header, 12 of frames) before FLAC or MP3
	// is looked past to tell them apart.
	id3 := []byte("ID3\x04\x00\x00\x00\x00\x00\x0cTIT2\x00\x00\x00\x02\x00\x00\x03a")
	for name, want := range map[string]int{"flac": len(samples), "mp3": len(samples)} {
		a, err := recording.Decode(append(bytes.Clone(id3), encoded(t, name, samples, 24000)...), 0)
		if err != nil || a.SampleRate != 24000 || len(a.Samples) != want {
			t.Errorf("ID3 then %s: %d samples at %d Hz, %v; want %d", name, len(a.Samples), a.SampleRate, err, want)
		}
	}

	for name, data := range map[string][]byte{"wav": encoded(t, "wav", samples, 24000), "flac": encoded(t, "flac", samples, 24000)} {
		a, err := recording.Decode(data, 0.5)
		if err != nil || len(a.Samples) != 12000 {
			t.Errorf("%s cut at 0.5 s: %d samples, %v; want 12000", name, len(a.Samples), err)
		}
	}
}

// garbled is data with n bytes from the middle on overwritten.
func garbled(data []byte, n int) []byte {
	b := bytes.Clone(data)
	for i := range min(n, len(b)/2) {
		b[len(b)/2+i] = byte(i*37 + 11)
	}
	return b
}

// TestDecodeErrors: what is not a recording, or one cut short before
// its first second (these are shorter), is an ErrFormat.
func TestDecodeErrors(t *testing.T) {
	flacData := encoded(t, "flac", speech(10000), 24000)
	mp3Data := encoded(t, "mp3", speech(10000), 24000)
	oggData := encoded(t, "opus", speech(10000), 24000)
	webmData, err := os.ReadFile(chromiumFixture)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"mp3 cut":       mp3Data[:len(mp3Data)-7],
		"mp3 garbled":   garbled(mp3Data, 300),
		"id3 then text": append([]byte("ID3\x04\x00\x00\x00\x00\x00\x02\x00\x00"), "not audio"...),
		"ogg cut":       oggData[:len(oggData)-9],
		"ogg garbled":   garbled(oggData, 40),
		"ogg header":    oggData[:40],
		"webm cut":      webmData[:len(webmData)/5], // 0.6 s of 3 s before the cut
		"webm garbled":  garbled(webmData, 40),
		"webm header":   webmData[:30],
		"empty":         nil,
		"text":          []byte("not audio at all"),
		"mp3 header":    {0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0},
		"flac header":   flacData[:30],
		"flac cut":      flacData[:len(flacData)/2],
		"flac garbled":  append(append([]byte{}, flacData[:42]...), bytes.Repeat([]byte{0xFF, 0xF8, 0x69}, 200)...),
		"wav no header": []byte("RIFF\x00\x00\x00\x00WAVE"),
	} {
		if _, err := recording.Decode(data, 0); !errors.Is(err, recording.ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}

// FuzzDecode: any data decodes or fails with ErrFormat, without a panic
// or a crash in the C decoders. The seeds are short recordings in each
// format.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("fLaC"))
	for _, name := range []string{"wav", "flac", "mp3", "opus"} {
		f.Add(audiotest.Encoded(f, encode.Format{Name: name, SampleRate: 24000}, speech(2000)))
	}
	p, la := opusPackets(f, 3, 160000)
	f.Add(webmOf(la, append(simpleBlock(1, xiphLacing, p[0], p[1]), simpleBlock(1, ebmlLacing, p[2], p[0], p[1])...)))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := recording.Decode(data, 1)
		if err != nil && !errors.Is(err, recording.ErrFormat) {
			t.Fatalf("error not ErrFormat: %v", err)
		}
		if err == nil && len(a.Samples) > a.SampleRate {
			t.Fatalf("%d samples at %d Hz past 1 s", len(a.Samples), a.SampleRate)
		}
	})
}
