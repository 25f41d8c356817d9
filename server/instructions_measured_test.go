package server_test

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/server/internal/testserver"
)

// The acceptance of issue 44's instructions: each word of the vocabulary
// measured on the audio it gives (pitch by the fundamental frequency, the
// styles by their pace, pitch and level), and Cartesia's emotion field read
// onto the same vocabulary.

// measuredRate is the sample rate of a pcm response.
const measuredRate = 24000

// pcmSamples turns s16le bytes into samples in [-1, 1).
func pcmSamples(pcm []byte) []float32 {
	x := make([]float32, len(pcm)/2)
	for i := range x {
		x[i] = float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
	}
	return x
}

// speechMeasure is what a test reads off a clip.
type speechMeasure struct {
	seconds, f0, level float64
}

func measure(x []float32) speechMeasure {
	return speechMeasure{float64(len(x)) / measuredRate, audiotest.EstimateF0(x, measuredRate), dsp.RMS(x)}
}

// over returns m relative to base: the ratios of duration, F0 and level.
func (m speechMeasure) over(base speechMeasure) speechMeasure {
	return speechMeasure{m.seconds / base.seconds, m.f0 / base.f0, m.level / base.level}
}

// styledPCM speaks input with instructions on the OpenAI door as pcm and
// returns the samples and the ignored tags (the stream's trailer).
func styledPCM(t *testing.T, e *testserver.Env, input, instructions string) ([]float32, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "gpt-4o-mini-tts", "voice": "en-us", "input": input,
		"response_format": "pcm", "instructions": instructions})
	res := e.Do("POST", "/v1/audio/speech", e.Key, "application/json", strings.NewReader(string(body)))
	defer res.Body.Close()
	pcm, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("instructions %q: %d %v %s", instructions, res.StatusCode, err, pcm)
	}
	return pcmSamples(pcm), res.Trailer.Get("X-Ignored-Tags")
}

const measuredText = "We were away a year ago, and we will go there again in the early morning."

// TestInstructionsPitchMeasured: "higher" and "lower" move the fundamental
// frequency of the voice by the four semitones of <|high|> and <|low|>
// (×1.26 and ×0.79), measured by autocorrelation over the voiced frames of
// espeak-ng's voice; "deep" is "lower".
func TestInstructionsPitchMeasured(t *testing.T) {
	testserver.Long(t) // seconds of espeak-ng speech measured
	t.Parallel()
	e := testserver.New(t, testserver.Options{})
	plain, _ := styledPCM(t, e, measuredText, "")
	f0 := audiotest.EstimateF0(plain, measuredRate)
	if f0 < 60 || f0 > 300 {
		t.Fatalf("plain voice: F0 %.1f Hz", f0)
	}
	for _, c := range []struct {
		instructions, tag string
		min, max          float64 // the F0 ratio to the plain voice
	}{
		{"Speak with a higher pitch.", "high", 1.15, 1.4},
		{"a bit higher", "high", 1.15, 1.4},
		{"Use a lower pitch", "low", 0.7, 0.87},
		{"deep voice", "low", 0.7, 0.87},
	} {
		x, ignored := styledPCM(t, e, measuredText, c.instructions)
		tagged, _ := styledPCM(t, e, "<|"+c.tag+"|>"+measuredText, "")
		r, rt := audiotest.EstimateF0(x, measuredRate)/f0, audiotest.EstimateF0(tagged, measuredRate)/f0
		t.Logf("%q: F0 ×%.3f (<|%s|> ×%.3f), plain %.1f Hz", c.instructions, r, c.tag, rt, f0)
		if r < c.min || r > c.max || ignored != "" {
			t.Errorf("%q: F0 ×%.3f of the plain voice's %.1f Hz, want %.2f to %.2f; ignored %q", c.instructions, r, f0, c.min, c.max, ignored)
		}
		if d := r / rt; d < 0.97 || d > 1.03 {
			t.Errorf("%q: F0 ×%.3f, <|%s|>'s ×%.3f: not the tag's pitch", c.instructions, r, c.tag, rt)
		}
	}
}

// TestInstructionsStylesMeasured: each style word of the vocabulary gives
// its tag's mix of pace, pitch and level — measured against the plain
// voice in the direction the tag documents, and equal to the tag's own
// rendering.
func TestInstructionsStylesMeasured(t *testing.T) {
	testserver.Long(t) // seconds of espeak-ng speech measured
	t.Parallel()
	e := testserver.New(t, testserver.Options{})
	x, _ := styledPCM(t, e, measuredText, "")
	plain := measure(x)
	faster, slower, higher, lower, louder, softer := -1, 1, 1, -1, 1, -1
	for _, c := range []struct {
		instructions, tag  string
		pace, pitch, level int // the direction of each against the plain voice; 0 where the tag keeps it
	}{
		{"Speak excitedly!", "excited", faster, higher, louder},
		{"in a cheerful tone", "excited", faster, higher, louder},
		{"enthusiastic", "excited", faster, higher, louder},
		{"Speak calmly and soothing", "calm", slower, lower, softer},
		{"sad", "sad", slower, lower, softer},
		{"say it angrily", "angry", faster, 0, louder},
		{"quickly", "fast", faster, 0, 0},
		{"slower please", "slow", slower, 0, 0},
		{"louder", "loud", 0, 0, louder},
		{"quietly", "soft", 0, 0, softer},
	} {
		y, ignored := styledPCM(t, e, measuredText, c.instructions)
		z, _ := styledPCM(t, e, "<|"+c.tag+"|>"+measuredText, "")
		got, tag := measure(y).over(plain), measure(z).over(plain)
		t.Logf("%q: duration ×%.2f, F0 ×%.3f, level ×%.2f (<|%s|>: ×%.2f, ×%.3f, ×%.2f)",
			c.instructions, got.seconds, got.f0, got.level, c.tag, tag.seconds, tag.f0, tag.level)
		if ignored != "" {
			t.Errorf("%q: ignored %q", c.instructions, ignored)
		}
		for _, m := range []struct {
			name      string
			dir       int
			got, tag  float64
			threshold float64 // the least change that counts, as a ratio
		}{
			{"duration", c.pace, got.seconds, tag.seconds, 0.05},
			{"F0", c.pitch, got.f0, tag.f0, 0.04},
			{"level", c.level, got.level, tag.level, 0.1},
		} {
			switch {
			case m.dir > 0 && m.got < 1+m.threshold, m.dir < 0 && m.got > 1-m.threshold:
				t.Errorf("%q: %s ×%.3f of the plain voice's, want it %s", c.instructions, m.name, m.got, map[int]string{1: "up", -1: "down"}[m.dir])
			case m.got/m.tag < 0.95 || m.got/m.tag > 1.05:
				t.Errorf("%q: %s ×%.3f, <|%s|>'s ×%.3f", c.instructions, m.name, m.got, c.tag, m.tag)
			}
		}
	}
}

// cartesiaPCM speaks text on Cartesia's /tts/bytes as raw pcm_s16le with
// generationConfig (nil: none) and returns the samples and the fields
// voxkit names as ignored.
func cartesiaPCM(t *testing.T, e *testserver.Env, text string, voice any, generationConfig map[string]any) ([]float32, string) {
	t.Helper()
	req := map[string]any{"transcript": text, "voice": voice,
		"output_format": map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": measuredRate}}
	if generationConfig != nil {
		req["generation_config"] = generationConfig
	}
	b, _ := json.Marshal(req)
	res, pcm := e.CartesiaDo("POST", "/tts/bytes", e.Key, string(b))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", b, res.StatusCode, pcm)
	}
	return pcmSamples(pcm), res.Header.Get("X-Voxkit-Ignored")
}

// TestCartesiaEmotionMeasured: Cartesia's generation_config.emotion is
// read onto the instructions vocabulary — its primary emotions voxkit
// renders (angry, excited, sad) and their near words (enthusiastic, calm)
// give the tag's pace, pitch and level; "neutral" is no style and nothing
// to report; an emotion voxkit has no style for ("scared") and the older
// list form are named as ignored, and the voice speaks plainly. The older
// API's voice.__experimental_controls (speed words, "anger", "sadness",
// "positivity" at high levels) map onto the same tags; what they hold
// beyond that is named as ignored.
func TestCartesiaEmotionMeasured(t *testing.T) {
	testserver.Long(t) // seconds of espeak-ng speech measured
	t.Parallel()
	e := testserver.New(t, testserver.Options{})
	voice := map[string]any{"mode": "id", "id": "en-us"}
	x, ignored := cartesiaPCM(t, e, measuredText, voice, nil)
	plain := measure(x)
	if ignored != "" {
		t.Errorf("no emotion: ignored %q", ignored)
	}
	for _, c := range []struct{ emotion, tag string }{
		{"sad", "sad"}, {"angry", "angry"}, {"excited", "excited"}, {"enthusiastic", "excited"}, {"calm", "calm"},
	} {
		y, ignored := cartesiaPCM(t, e, measuredText, voice, map[string]any{"emotion": c.emotion})
		z, _ := cartesiaPCM(t, e, "<|"+c.tag+"|>"+measuredText, voice, nil)
		got, tag := measure(y).over(plain), measure(z).over(plain)
		t.Logf("emotion %q: duration ×%.2f, F0 ×%.3f, level ×%.2f (<|%s|>: ×%.2f, ×%.3f, ×%.2f)",
			c.emotion, got.seconds, got.f0, got.level, c.tag, tag.seconds, tag.f0, tag.level)
		if ignored != "" {
			t.Errorf("emotion %q: ignored %q", c.emotion, ignored)
		}
		if got.level/tag.level < 0.95 || got.level/tag.level > 1.05 || got.seconds/tag.seconds < 0.95 || got.seconds/tag.seconds > 1.05 ||
			got.f0/tag.f0 < 0.97 || got.f0/tag.f0 > 1.03 || (got.level > 0.97 && got.level < 1.03) {
			t.Errorf("emotion %q: ×%.2f ×%.3f ×%.2f, not <|%s|>'s ×%.2f ×%.3f ×%.2f", c.emotion,
				got.seconds, got.f0, got.level, c.tag, tag.seconds, tag.f0, tag.level)
		}
	}
	// The older API's voice.__experimental_controls, read the same way.
	for _, c := range []struct {
		controls map[string]any
		tag      string
		ignored  string
	}{
		{map[string]any{"emotion": []string{"anger"}}, "<|angry|>", ""},
		{map[string]any{"emotion": []string{"sadness:highest"}, "speed": "slow"}, "<|slow|><|sad|>", ""},
		{map[string]any{"emotion": []string{"positivity:low"}}, "", "voice.__experimental_controls"},
		{map[string]any{"speed": 0.5}, "", "voice.__experimental_controls"},
	} {
		y, ignored := cartesiaPCM(t, e, measuredText, map[string]any{"mode": "id", "id": "en-us", "__experimental_controls": c.controls}, nil)
		z, _ := cartesiaPCM(t, e, c.tag+measuredText, voice, nil)
		got, tag := measure(y).over(plain), measure(z).over(plain)
		t.Logf("controls %v: duration ×%.2f, F0 ×%.3f, level ×%.2f (%q: ×%.2f, ×%.3f, ×%.2f)",
			c.controls, got.seconds, got.f0, got.level, c.tag, tag.seconds, tag.f0, tag.level)
		if ignored != c.ignored || got.level/tag.level < 0.95 || got.level/tag.level > 1.05 ||
			got.seconds/tag.seconds < 0.95 || got.seconds/tag.seconds > 1.05 || got.f0/tag.f0 < 0.97 || got.f0/tag.f0 > 1.03 {
			t.Errorf("controls %v: ignored %q (want %q); ×%.2f ×%.3f ×%.2f, not %q's ×%.2f ×%.3f ×%.2f", c.controls, ignored, c.ignored,
				got.seconds, got.f0, got.level, c.tag, tag.seconds, tag.f0, tag.level)
		}
	}
	for _, c := range []struct {
		emotion any
		ignored string
	}{
		{"neutral", ""},
		{"scared", "generation_config.emotion"},
		{[]string{"positivity:high"}, "generation_config.emotion"},
	} {
		y, ignored := cartesiaPCM(t, e, measuredText, voice, map[string]any{"emotion": c.emotion})
		got := measure(y).over(plain)
		if ignored != c.ignored || got.level < 0.97 || got.level > 1.03 || got.f0 < 0.98 || got.f0 > 1.02 {
			t.Errorf("emotion %v: ignored %q (want %q); duration ×%.2f, F0 ×%.3f, level ×%.2f of the plain voice's",
				c.emotion, ignored, c.ignored, got.seconds, got.f0, got.level)
		}
	}
}
