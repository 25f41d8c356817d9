package tts_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

const pcmRate = 24000 // encode.PCM's default rate

// tagRig is a synthesizer with a main voice and a second voice for
// <|voice:…|>, on one engine.
type tagRig struct {
	name  string
	synth *tts.Synthesizer
	voice string
	other string  // a second catalog voice
	ratio float64 // F0 of other / F0 of voice, at least
	fake  *enginetest.Fake
}

func tagRigs(t *testing.T) []tagRig {
	t.Helper()
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake", "fake2"}})
	fakeSynth := newSynth(t, map[string]engine.Engine{"fake": fake})

	es, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { es.Close() })
	cat := new(voices.Catalog)
	for _, v := range []voices.Voice{
		{ID: "en-us", Engine: "espeak", EngineVoice: "en-us"},
		{ID: "alice", Engine: "espeak", EngineVoice: "en-us+f3"},
		{ID: "secret", Engine: "espeak", EngineVoice: "en-us+f4", Owner: "acct-2"},
	} {
		if err := cat.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	esSynth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": es}, Voices: cat})
	if err != nil {
		t.Fatal(err)
	}
	// The same espeak voices with espeak's native features hidden, so the
	// DSP stage renders everything but the rate on real speech.
	dspSynth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": rateOnly{es}}, Voices: cat})
	if err != nil {
		t.Fatal(err)
	}
	return []tagRig{
		{name: "fake", synth: fakeSynth, voice: "fake", other: "fake2", ratio: 160.0 / 120, fake: fake},
		{name: "espeak", synth: esSynth, voice: "en-us", other: "alice", ratio: 1.5},
		{name: "espeak-dsp", synth: dspSynth, voice: "en-us", other: "alice", ratio: 1.5},
	}
}

// rateOnly hides an engine's Renderer: it renders the rate only.
type rateOnly struct{ engine.Engine }

// say renders input and returns the audio at pcmRate.
func (r tagRig) say(t *testing.T, input string) ([]float32, tts.Result) {
	t.Helper()
	var buf bytes.Buffer
	res, err := r.synth.Stream(context.Background(), &buf, tts.Request{Voice: r.voice, Input: input, Format: encode.PCM})
	if err != nil {
		t.Fatalf("%s: %q: %v", r.name, input, err)
	}
	x := make([]float32, buf.Len()/2)
	for i := range x {
		x[i] = float32(int16(binary.LittleEndian.Uint16(buf.Bytes()[2*i:]))) / 32768
	}
	return x, res
}

func seconds(x []float32) float64 { return float64(len(x)) / pcmRate }

const sample = "The quick brown fox jumps over the lazy dog."

// shortOnFake skips the measures of the espeak-ng rigs in -short runs:
// they render seconds of real speech per tag (make test runs them); the
// fake engine's rig measures the same effects in a fraction of that.
func shortOnFake(t *testing.T, rig string) {
	if testing.Short() && strings.HasPrefix(rig, "espeak") {
		t.Skip("espeak-ng's measures take seconds; make test runs them")
	}
}

// TestTagEffects measures each tag's effect against the same text said
// plainly, on the fake engine and on espeak-ng.
func TestTagEffects(t *testing.T) {
	for _, rig := range tagRigs(t) {
		t.Run(rig.name, func(t *testing.T) {
			shortOnFake(t, rig.name)
			plain, _ := rig.say(t, sample)
			d0, f0, r0, p0 := seconds(plain), audiotest.EstimateF0(plain, pcmRate), dsp.RMS(plain), audiotest.Periodicity(plain, pcmRate)
			t.Logf("plain: %.3f s, F0 %.1f Hz, RMS %.4f, periodicity %.2f", d0, f0, r0, p0)
			tol := 0.04 // relative, on durations
			if strings.HasPrefix(rig.name, "espeak") {
				tol = 0.15 // espeak's rate is not exactly proportional
			}
			type measure struct {
				tag                   string
				dur, f0, rms, period  float64 // wanted ratios to plain; 0 = not checked
				durTol, f0Tol, rmsTol float64
				periodBelow           float64 // periodicity must fall below this
			}
			for _, m := range []measure{
				{tag: "<|slow|>", dur: 1 / tags.SlowRate, durTol: tol},
				{tag: "<|fast|>", dur: 1 / tags.FastRate, durTol: tol},
				{tag: "<|rate:2|>", dur: 0.5, durTol: tol},
				{tag: "<|rate:0.3|>", dur: 1 / 0.3, durTol: tol},
				{tag: "<|high|>", f0: math.Pow(2, 4.0/12), f0Tol: 0.05, dur: 1, durTol: 0.02},
				{tag: "<|low|>", f0: math.Pow(2, -4.0/12), f0Tol: 0.05, dur: 1, durTol: 0.02},
				{tag: "<|pitch:+7|>", f0: math.Pow(2, 7.0/12), f0Tol: 0.05},
				{tag: "<|pitch:-3|>", f0: math.Pow(2, -3.0/12), f0Tol: 0.05},
				{tag: "<|volume:0.5|>", rms: 0.5, rmsTol: 0.03, dur: 1, durTol: 0.001},
				{tag: "<|loud|>", rms: math.Pow(10, tags.LoudGain/20), rmsTol: 0.03},
				{tag: "<|soft|>", rms: math.Pow(10, tags.SoftGain/20), rmsTol: 0.03},
				{tag: "<|whisper|>", periodBelow: 0.45},
			} {
				t.Run(m.tag, func(t *testing.T) {
					x, _ := rig.say(t, m.tag+sample)
					// The pitch analyses are the slow part: each runs
					// only for the measure that checks it.
					var f, p float64
					if m.f0 != 0 {
						f = audiotest.EstimateF0(x, pcmRate) / f0
					}
					if m.periodBelow != 0 {
						p = audiotest.Periodicity(x, pcmRate)
					}
					d, r := seconds(x)/d0, dsp.RMS(x)/r0
					t.Logf("duration ×%.3f, F0 ×%.3f, RMS ×%.3f, periodicity %.2f (0: not measured)", d, f, r, p)
					check := func(what string, got, want, tol float64) {
						if want != 0 && math.Abs(got-want) > tol*want {
							t.Errorf("%s ×%.3f, want ×%.3f ± %.0f%%", what, got, want, tol*100)
						}
					}
					check("duration", d, m.dur, m.durTol)
					check("F0", f, m.f0, m.f0Tol)
					check("RMS", r, m.rms, m.rmsTol)
					if m.periodBelow != 0 && (p >= m.periodBelow || p0 < m.periodBelow+0.1) {
						t.Errorf("periodicity %.2f → %.2f, want below %.2f", p0, p, m.periodBelow)
					}
				})
			}
		})
	}
}

// TestTagEvents measures what pause, breath, sigh, laugh and cough add.
func TestTagEvents(t *testing.T) {
	for _, rig := range tagRigs(t) {
		t.Run(rig.name, func(t *testing.T) {
			plain, _ := rig.say(t, "One. Two.")
			for _, tc := range []struct {
				tag    string
				dur    float64 // seconds added
				rms    float64 // RMS of what is added; 0 for silence
				durTol float64
				rmsTol float64
			}{
				{"<|pause|>", 0.5, 0, 0.01, 0},
				{"<|pause:250ms|>", 0.25, 0, 0.01, 0},
				{"<|pause:1.5s|>", 1.5, 0, 0.01, 0},
				{"<|breath|>", 0.4, 0.02, 0.01, 0.3},
				{"<|sigh|>", 0.9, 0.03, 0.01, 0.3},
				{"<|laugh|>", 0.8, 0.08, 0.01, 0.3},
				{"<|cough|>", 0.3, 0.1, 0.01, 0.3},
			} {
				t.Run(tc.tag, func(t *testing.T) {
					x, _ := rig.say(t, "One."+tc.tag+" Two.")
					added := seconds(x) - seconds(plain)
					energy := audiotest.Energy(x) - audiotest.Energy(plain)
					rms := math.Sqrt(max(energy, 0) / (added * pcmRate))
					t.Logf("adds %.3f s at RMS %.4f", added, rms)
					// espeak's output length varies a little between calls.
					if math.Abs(added-tc.dur) > tc.durTol+0.01 {
						t.Errorf("adds %.3f s, want %.3f", added, tc.dur)
					}
					if tc.rms == 0 && math.Abs(energy) > 0.05*audiotest.Energy(plain) {
						t.Errorf("a pause changed the energy by %.3f", energy)
					}
					if tc.rms != 0 && math.Abs(rms-tc.rms) > tc.rmsTol*tc.rms {
						t.Errorf("adds energy at RMS %.4f, want %.4f", rms, tc.rms)
					}
				})
			}
		})
	}
}

// TestTagStylesMore measures emphasis, spelling, the presets and voice.
func TestTagStylesMore(t *testing.T) {
	for _, rig := range tagRigs(t) {
		t.Run(rig.name, func(t *testing.T) {
			shortOnFake(t, rig.name)
			plain, _ := rig.say(t, sample)
			d0, f0, r0 := seconds(plain), audiotest.EstimateF0(plain, pcmRate), dsp.RMS(plain)
			ratios := func(x []float32) (d, f, r float64) {
				return seconds(x) / d0, audiotest.EstimateF0(x, pcmRate) / f0, dsp.RMS(x) / r0
			}
			t.Run("emphasis", func(t *testing.T) {
				d, f, r := ratios(must(rig.say(t, "<|emphasis|>"+sample)))
				t.Logf("duration ×%.3f, F0 ×%.3f, RMS ×%.3f", d, f, r)
				if d < 1.1 || f < 1.05 || r < 1.1 {
					t.Errorf("emphasis: duration ×%.3f, F0 ×%.3f, RMS ×%.3f; want all up", d, f, r)
				}
			})
			t.Run("spell", func(t *testing.T) {
				word, _ := rig.say(t, "hello")
				spelled, _ := rig.say(t, "<|spell|>hello")
				ratio := seconds(spelled) / seconds(word)
				t.Logf("spelled ×%.2f of the word's duration", ratio)
				if ratio < 1.3 {
					t.Errorf("spelled hello lasts ×%.2f of hello", ratio)
				}
			})
			for _, p := range []struct {
				tag                string
				faster, higher, up bool
			}{
				{"<|excited|>", true, true, true},
				{"<|sad|>", false, false, false},
				{"<|calm|>", false, false, false},
				{"<|angry|>", true, true, true},
			} {
				t.Run(p.tag, func(t *testing.T) {
					d, f, r := ratios(must(rig.say(t, p.tag+sample)))
					t.Logf("duration ×%.3f, F0 ×%.3f, RMS ×%.3f", d, f, r)
					if (d < 0.97) != p.faster || (f > 1.02) != p.higher || (r > 1.05) != p.up {
						t.Errorf("duration ×%.3f, F0 ×%.3f, RMS ×%.3f: want faster %v, higher %v, louder %v", d, f, r, p.faster, p.higher, p.up)
					}
				})
			}
			if rig.name != "fake" { // the fake voice is a monotone
				t.Run("range", func(t *testing.T) {
					s0 := audiotest.F0Spread(plain, pcmRate)
					sad := audiotest.F0Spread(must(rig.say(t, "<|sad|>"+sample)), pcmRate)
					excited := audiotest.F0Spread(must(rig.say(t, "<|excited|>"+sample)), pcmRate)
					t.Logf("F0 spread: sad %.2f st, plain %.2f, excited %.2f", sad, s0, excited)
					if sad > 0.85*s0 || excited < 1.15*s0 {
						t.Errorf("F0 spread: sad %.2f st, plain %.2f, excited %.2f", sad, s0, excited)
					}
				})
			}
			t.Run("voice", func(t *testing.T) {
				x, res := rig.say(t, "<|voice:"+rig.other+"|>"+sample)
				_, f, _ := ratios(x)
				t.Logf("F0 ×%.3f in voice %s", f, rig.other)
				if f < rig.ratio*0.95 {
					t.Errorf("voice %s: F0 ×%.3f, want ×%.2f or more", rig.other, f, rig.ratio)
				}
				if len(res.IgnoredTags) != 0 {
					t.Errorf("ignored %v", res.IgnoredTags)
				}
				// Back to the request's voice after the closing tag.
				y, _ := rig.say(t, "<|voice:"+rig.other+"|>Hi.<|/voice|> "+sample)
				if g := audiotest.EstimateF0(y, pcmRate) / f0; g > 1.1 {
					t.Errorf("after <|/voice|> F0 ×%.3f", g)
				}
			})
		})
	}
}

func must(x []float32, _ tts.Result) []float32 { return x }

// TestTagsNeverSpoken checks that the engine never receives tag text, and
// that an input of tags only is silence.
func TestTagsNeverSpoken(t *testing.T) {
	rig := tagRigs(t)[0]
	inputs := []string{
		"<|slow|>Hello <|wink|>there<|/slow|>.",
		"<|sl<|x|>ow|>odd",
		"<|whisper|><|spell|>abc<|reset|> and <|rate:9|>more",
		"<|voice:fake2|>Hi<|voice:nobody|> there",
		"<|loud|>Yes<|/loud|>! <|slow|>(<|/slow|>No<|breath|>)",
	}
	for _, in := range inputs {
		rig.say(t, in)
	}
	for _, req := range rig.fake.Requests() {
		if tagText.MatchString(req.Text) || strings.Contains(req.Text, "wink") {
			t.Errorf("engine was asked to say %q", req.Text)
		}
		// Punctuation alone would be read out ("exclamation").
		if !strings.ContainsFunc(req.Text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			t.Errorf("engine was asked to say %q", req.Text)
		}
	}
	for _, tc := range []struct {
		in   string
		want float64 // seconds
	}{{"<|pause|>", 0.5}, {"<|slow|>", 0}, {"<|pause:2s|><|pause:1s|>", 3}} {
		x, _ := rig.say(t, tc.in)
		if math.Abs(seconds(x)-tc.want) > 0.001 || dsp.RMS(x) != 0 {
			t.Errorf("%q: %.3f s at RMS %g, want %.1f s of silence", tc.in, seconds(x), dsp.RMS(x), tc.want)
		}
	}
}

func TestStrictTags(t *testing.T) {
	for _, rig := range tagRigs(t) {
		t.Run(rig.name, func(t *testing.T) {
			ctx := context.Background()
			req := tts.Request{Voice: rig.voice, Input: "Hi <|wink|>there<|rate:9|>.", Format: encode.PCM}
			var buf bytes.Buffer
			res, err := rig.synth.Stream(ctx, &buf, req)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.IgnoredTags, []string{"wink"}) {
				t.Errorf("IgnoredTags = %q", res.IgnoredTags)
			}
			req.StrictTags = true
			for _, call := range []func() error{
				func() error { _, err := rig.synth.Prepare(req); return err },
				func() error { _, err := rig.synth.Stream(ctx, &buf, req); return err },
			} {
				err := call()
				var te *tags.TagError
				if !errors.Is(err, tts.ErrBadTags) || !errors.As(err, &te) || te.Tag != "<|wink|>" {
					t.Errorf("strict: %v", err)
				}
				if err != nil && !strings.Contains(err.Error(), "<|rate:9|>") {
					t.Errorf("strict error %q does not name <|rate:9|>", err)
				}
			}
		})
	}
}

// TestVoiceTagNeedsAccess: a voice tag may name only voices the caller may
// use.
func TestVoiceTagNeedsAccess(t *testing.T) {
	rig := tagRigs(t)[1]
	ctx := context.Background()
	req := tts.Request{Voice: "en-us", Input: "<|voice:secret|>Hi.", Format: encode.PCM}
	var buf bytes.Buffer
	res, err := rig.synth.Stream(ctx, &buf, req)
	if err != nil || !slices.Equal(res.IgnoredTags, []string{"voice:secret"}) {
		t.Errorf("other account's voice: ignored %q, err %v", res.IgnoredTags, err)
	}
	req.Account = "acct-2"
	res, err = rig.synth.Stream(ctx, &buf, req)
	if err != nil || len(res.IgnoredTags) != 0 {
		t.Errorf("own voice: ignored %q, err %v", res.IgnoredTags, err)
	}
	req.Account, req.StrictTags = "", true
	if _, err := rig.synth.Stream(ctx, &buf, req); !errors.Is(err, tags.ErrUnknownVoice) {
		t.Errorf("strict, other account's voice: %v", err)
	}
}

// tagText matches a well-formed tag.
var tagText = regexp.MustCompile(`<\|/?[a-z0-9_-]+(:[^|<>\s]*)?\|>`)

// FuzzTagsReachEngine: whatever the input, the engine never receives tag
// text and synthesis does not fail or panic.
func FuzzTagsReachEngine(f *testing.F) {
	for _, s := range []string{
		"<|slow|>Hello <|wink|>there<|/slow|>.",
		"<|sl<|x|>ow|>odd <|pause:1|>",
		"<|whisper|><|spell|>ab<|reset|> and <|rate:9|>more<|breath|>",
		"<|voice:fake2|>Hi<|voice:nobody|> there<|excited|>!",
		"a <| b |> c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		if len(input) > 200 || strings.TrimSpace(input) == "" {
			return
		}
		fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake", "fake2"}, LetterDuration: 5 * time.Millisecond})
		s := newSynth(t, map[string]engine.Engine{"fake": fake})
		var buf bytes.Buffer
		if _, err := s.Stream(context.Background(), &buf, tts.Request{Voice: "fake", Input: input, Format: encode.PCM}); err != nil {
			t.Fatalf("%q: %v", input, err)
		}
		for _, req := range fake.Requests() {
			if tagText.MatchString(req.Text) {
				t.Fatalf("%q: engine was asked to say %q", input, req.Text)
			}
		}
	})
}

// TestVoiceTagAcrossEngines: a voice tag may switch to a voice of another
// engine with another sample rate; the output stays continuous.
func TestVoiceTagAcrossEngines(t *testing.T) {
	a := enginetest.NewFake(enginetest.FakeOptions{SampleRate: 16000, Voices: []string{"ann"}})
	b := enginetest.NewFake(enginetest.FakeOptions{SampleRate: 22050, Voices: []string{"bob", "bea"}})
	s := newSynth(t, map[string]engine.Engine{"a": a, "b": b})
	var buf bytes.Buffer
	res, err := s.Stream(context.Background(), &buf, tts.Request{Voice: "ann", Input: "Abc. <|voice:bea|>Defg.<|/voice|> Hij.", Format: encode.PCM})
	if err != nil {
		t.Fatal(err)
	}
	// 3 + 4 + 3 letters and three half-letter stops of 60 ms: 0.69 s.
	if got := res.Audio.Seconds(); math.Abs(got-0.69) > 0.002 {
		t.Errorf("%.4f s of audio, want 0.69", got)
	}
	if n := len(b.Requests()); n != 1 || b.Requests()[0].Voice != "bea" {
		t.Errorf("engine b got %v", b.Requests())
	}
	x := make([]float32, buf.Len()/2)
	for i := range x {
		x[i] = float32(int16(binary.LittleEndian.Uint16(buf.Bytes()[2*i:]))) / 32768
	}
	// The middle sentence is in bea's voice (160 Hz), the others ann's (120 Hz).
	third := len(x) / 3
	if f := audiotest.EstimateF0(x[:third*3/4], pcmRate); math.Abs(f-120) > 3 {
		t.Errorf("first sentence F0 %.1f", f)
	}
	mid := x[int(0.26*pcmRate):int(0.5*pcmRate)]
	if f := audiotest.EstimateF0(mid, pcmRate); math.Abs(f-160) > 4 {
		t.Errorf("second sentence F0 %.1f", f)
	}
}
