package pocket

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/testkit/nodepeer"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
)

// The benchmarks compare voxkit with sherpa-onnx-node 1.13.8 on the
// generated model, at one thread, temperature 0 and 4 flow steps:
//
//	go test -run '^$' -bench . ./engine/pocket
//
// Each iteration does the work once in voxkit and once in sherpa-onnx
// (testdata/peer.js serving, timed inside Node), one after the other, so
// a busy machine slows both alike. Each reports the mean wall-clock times
// in milliseconds and their ratio voxkit/sherpa ("ratio"), and the ratio
// of the CPU times the two processes used ("cpu-ratio"), which other load
// on the machine disturbs less.

// The benchmarks use the small generated model, or with
// VOXKIT_POCKET_SIZED=DIR one whose lm_main has the published export's
// size (gen/pocket.py --sized: 75.6 M parameters, an 8 MB KV cache per
// layer), generated into DIR once and reused from there by later runs.
func benchVoices(b *testing.B) string {
	dir := os.Getenv("VOXKIT_POCKET_SIZED")
	if dir == "" {
		return voicesDir(b)
	}
	if _, err := os.Stat(filepath.Join(dir, testModel, "test_wavs", "alto.wav")); err == nil {
		return dir
	}
	if err := pockettest.Generate(dir, "--sized"); err != nil {
		b.Fatal(err)
	}
	return dir
}

// benchText has two sentences, each a piece of its own.
const benchText = "The first sentence is long enough to stand alone. The second one follows it and is a little longer than the first."

// compare runs op in voxkit (do) and in sherpa-onnx (on text) b.N times, and
// reports the figures under unit. do returns the seconds of audio it made
// (0 if it does not count them): then the real-time factors (time per
// second of audio) are reported too, sherpa-onnx's for the same audio
// (the parity test holds its samples to voxkit's).
func compare(b *testing.B, op, unit, text string, do func(e *Engine, v *Voice) float64) {
	p := findPeer(b)
	voices := benchVoices(b)
	dir := filepath.Join(voices, testModel)
	sherpa := p.serve(b, peerRequest{Model: dir, Threads: 1, Reference: filepath.Join(dir, "test_wavs", "alto.wav"), Steps: 4})
	e := load(b, Options{VoicesDir: voices, Threads: 1})
	v, err := e.voice(context.Background(), testModel+":alto")
	if err != nil {
		b.Fatal(err)
	}
	v = &Voice{Model: v.Model, Frames: v.Frames, Dim: v.Dim, Latents: v.Latents, Settings: Settings{Steps: 4}}
	do(e, v) // warm up both
	sherpa.time(b, op, text)
	var ours, theirs nodepeer.Cost
	var audio float64
	b.ResetTimer()
	for b.Loop() {
		ours.Add(nodepeer.Measure(func() { audio += do(e, v) }))
		theirs.Add(sherpa.time(b, op, text))
	}
	nodepeer.Report(b, unit, ours, theirs)
	if audio > 0 {
		b.ReportMetric(ours.Wall.Seconds()/audio, "rtf")
		b.ReportMetric(theirs.Wall.Seconds()/audio, "sherpa-rtf")
	}
}

// BenchmarkSynthesis: the whole of benchText.
func BenchmarkSynthesis(b *testing.B) {
	compare(b, "total", "total", benchText, func(e *Engine, v *Voice) float64 {
		return speakAll(b, e, v, benchText)
	})
}

// speakAll speaks each text in a call of its own and returns the seconds
// of audio made.
func speakAll(b *testing.B, e *Engine, v *Voice, texts ...string) float64 {
	samples := 0
	for _, text := range texts {
		if err := e.SynthesizeVoice(context.Background(), v, engine.Request{Text: text}, func(c engine.Chunk) error {
			samples += len(c.Samples)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	return float64(samples) / SampleRate
}

// sentencesText has five sentences, each a piece of its own.
const sentencesText = "The keeper climbed the stairs with a lantern in his hand. " +
	"Outside, the wind pulled at the shutters and the sea was loud. " +
	"He set the lantern down and looked out over the dark water. " +
	"Far away, a single light moved slowly towards the harbour. " +
	"He watched it for a long time before he went back down."

// BenchmarkSentences: sentencesText sentence by sentence, as tts speaks a
// text (one call per sentence, here per piece), against sherpa-onnx's
// generate() of the whole text, which speaks the same pieces in turn.
func BenchmarkSentences(b *testing.B) {
	compare(b, "total", "sentences", sentencesText, func(e *Engine, v *Voice) float64 {
		return speakAll(b, e, v, pieces(sentencesText)...)
	})
}

var errFirst = errors.New("first chunk")

// BenchmarkFirstAudio: the time to benchText's first audio. sherpa-onnx
// gives it once the first sentence's frames are all made and decoded.
func BenchmarkFirstAudio(b *testing.B) {
	compare(b, "first", "first", benchText, func(e *Engine, v *Voice) float64 {
		err := e.SynthesizeVoice(context.Background(), v, engine.Request{Text: benchText}, func(engine.Chunk) error { return errFirst })
		if !errors.Is(err, errFirst) {
			b.Fatal(err)
		}
		return 0
	})
}

// BenchmarkClone: making a voice of a 3 s recording (the encoder run).
// sherpa-onnx's figure is a first call's extra time over a second call
// that finds the recording's latents in its cache.
func BenchmarkClone(b *testing.B) {
	rec := recording(3, 220)
	compare(b, "clone", "clone", benchText, func(e *Engine, _ *Voice) float64 {
		if _, err := e.Clone(context.Background(), testModel, rec, SampleRate, Settings{}); err != nil {
			b.Fatal(err)
		}
		return 0
	})
}
