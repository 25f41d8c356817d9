//go:build cgo

package espeak

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
)

func newEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, newEngine(t), "en-us")
}

// TestClosed: after Close, a call fails with engine.ErrClosed.
func TestClosed(t *testing.T) {
	enginetest.RunClosed(t, newEngine(t), "en-us")
}

func TestConformanceOtherVoice(t *testing.T) {
	enginetest.Run(t, newEngine(t), "de")
}

func TestVoices(t *testing.T) {
	vs, err := newEngine(t).Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	for _, want := range []string{"en-us", "en-gb", "de", "fr-fr", "es", "it", "pt", "nl", "pl", "ru", "sv", "fi", "cmn", "ja", "hi"} {
		if !slices.Contains(names, want) {
			t.Errorf("voice %q missing from %d voices", want, len(names))
		}
	}
	e := newEngine(t)
	for _, v := range vs {
		if v.Name == "en-us" && v.Language != "en-US" {
			t.Errorf("en-us has language %q", v.Language)
		}
		if v.SampleRate != e.SampleRate() || v.Speaker != "" {
			t.Errorf("%s: rate %d (the engine's is %d), speaker %q", v.Name, v.SampleRate, e.SampleRate(), v.Speaker)
		}
	}
	// Every listed voice must be usable.
	for _, v := range vs {
		if _, err := enginetest.Collect(context.Background(), e, engine.Request{Voice: v.Name, Text: "1 2 3"}); err != nil {
			t.Errorf("voice %q listed but fails: %v", v.Name, err)
		}
	}
}

func TestUnknownVoiceDoesNotPoisonNextCall(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	for _, bad := range []string{"xx-nope", "../../etc/passwd", ""} {
		_, err := enginetest.Collect(ctx, e, engine.Request{Voice: bad, Text: "Hello."})
		if !errors.Is(err, engine.ErrUnknownVoice) {
			t.Errorf("voice %q: got %v", bad, err)
		}
	}
	c, err := enginetest.Collect(ctx, e, engine.Request{Voice: "en-us", Text: "Hello."})
	if err != nil || c.RMS() < 0.01 {
		t.Fatalf("en-us after bad voices: err %v, RMS %v", err, c.RMS())
	}
}

func TestVariantsAndAliases(t *testing.T) {
	e := newEngine(t)
	for _, voice := range []string{"en-us+f3", "en-us+whisper", "EN-US", "fr", "en"} {
		c, err := enginetest.Collect(context.Background(), e, engine.Request{Voice: voice, Text: "Hello there."})
		if err != nil || c.RMS() < 0.005 {
			t.Errorf("voice %q: err %v, RMS %v", voice, err, c.RMS())
		}
	}
}

func TestPhonemize(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	tests := []struct {
		voice, text string
		want        []string
	}{
		{"en-us", "Hello world!", []string{"həlˈoʊ wˈɜːld!"}},
		{"en-us", "Hello, world.", []string{"həlˈoʊ,", "wˈɜːld."}},
		{"en-us", "Is it? Yes", []string{"ɪz ɪt?", "jˈɛs"}},
		{"en-us", "", nil},
		{"en-us", "Wait... what?!", []string{"wˈeɪt", "wˌʌt!"}},
	}
	for _, tt := range tests {
		got, err := e.Phonemize(ctx, tt.voice, tt.text)
		if err != nil {
			t.Fatalf("Phonemize(%q): %v", tt.text, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Phonemize(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestPhonemizeTied checks the tie marks between the letters of one
// phoneme, and that the clauses and their punctuation are as Phonemize's.
func TestPhonemizeTied(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	tests := []struct {
		voice, text string
		want        []string
	}{
		{"en-us", "Hello world!", []string{"həlˈo^ʊ wˈɜːld!"}},
		{"en-us", "Hello, world.", []string{"həlˈo^ʊ,", "wˈɜːld."}},
		{"en-gb", "I know.", []string{"a^ɪ nˈə^ʊ."}},
		{"en-us", "Judge the church", []string{"d^ʒˈʌd^ʒ ðə t^ʃˈɜːt^ʃ"}},
	}
	for _, tt := range tests {
		got, err := e.PhonemizeTied(ctx, tt.voice, tt.text)
		if err != nil {
			t.Fatalf("PhonemizeTied(%q): %v", tt.text, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("PhonemizeTied(%s, %q) = %q, want %q", tt.voice, tt.text, got, tt.want)
		}
	}
}

// TestDurationMatchesCommand compares with the espeak-ng command's own
// output for the same text and voice.
func TestDurationMatchesCommand(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng command not installed")
	}
	text := "The rainbow is a division of white light into many beautiful colors."
	wav := filepath.Join(t.TempDir(), "ref.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", wav, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	out, err := exec.Command("soxi", "-D", wav).Output()
	if err != nil {
		t.Skipf("soxi: %v", err)
	}
	var ref float64
	if _, err := fmt.Sscan(strings.TrimSpace(string(out)), &ref); err != nil {
		t.Fatal(err)
	}
	c, err := enginetest.Collect(context.Background(), newEngine(t), engine.Request{Voice: "en-us", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	got := c.Duration().Seconds()
	if got < 0.9*ref || got > 1.1*ref {
		t.Errorf("duration %.3fs, espeak-ng command gives %.3fs", got, ref)
	}
}

// TestControlCharacters: a NUL must not cut the text short, as C strings
// would, and other control characters are not read.
func TestControlCharacters(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	plain, err := enginetest.Collect(ctx, e, engine.Request{Voice: "en-us", Text: "Hello there, this sentence goes on for a while."})
	if err != nil {
		t.Fatal(err)
	}
	withNUL, err := enginetest.Collect(ctx, e, engine.Request{Voice: "en-us", Text: "Hello\x00 there,\x01 this sentence\x7f goes on for a while."})
	if err != nil {
		t.Fatal(err)
	}
	if ratio := withNUL.Duration().Seconds() / plain.Duration().Seconds(); ratio < 0.9 || ratio > 1.1 {
		t.Errorf("with control characters %v of audio, without %v", withNUL.Duration(), plain.Duration())
	}
	ph, err := e.Phonemize(ctx, "en-us", "Hello\x00 world.")
	if err != nil || len(ph) != 1 || !strings.Contains(ph[0], "wˈɜːld") {
		t.Errorf("Phonemize with NUL = %q, %v", ph, err)
	}
}

// A voice with an espeak-ng variant ("en-us+f3") is resolved and spoken,
// differently from the plain voice; an unknown variant is an unknown
// voice.
func TestVariants(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	for _, name := range []string{"en-us+f3", "EN-US+F3", "en-gb+m3", "en-us+Alex"} {
		if v, err := e.ResolveVoice(name); err != nil || v.Language == "" {
			t.Errorf("ResolveVoice(%s) = %+v, %v", name, v, err)
		}
	}
	for _, name := range []string{"en-us+nope", "en-us+../f3", "xx+f3", "en-us"} {
		if _, err := e.ResolveVoice(name); !errors.Is(err, engine.ErrUnknownVoice) {
			t.Errorf("ResolveVoice(%s): %v, want ErrUnknownVoice", name, err)
		}
	}
	plain, err := enginetest.Collect(ctx, e, engine.Request{Voice: "en-us", Text: "Hello there."})
	if err != nil {
		t.Fatal(err)
	}
	f3, err := enginetest.Collect(ctx, e, engine.Request{Voice: "en-us+f3", Text: "Hello there."})
	if err != nil {
		t.Fatal(err)
	}
	if len(f3.Samples) == 0 || slices.Equal(plain.Samples, f3.Samples) {
		t.Errorf("en-us+f3: %d samples, the same as en-us: %v", len(f3.Samples), slices.Equal(plain.Samples, f3.Samples))
	}
}

// Breaks put exactly their silence in the speech, before the word at their
// offset, without splitting the sentence.
func TestBreaks(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	plain, err := enginetest.Collect(ctx, e, engine.Request{Voice: "en-us", Text: "Hello there world."})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		breaks []engine.Break
		add    time.Duration
	}{
		{[]engine.Break{{Offset: 6, Duration: time.Second}}, time.Second},
		{[]engine.Break{{Offset: 6, Duration: 0}}, 0},
		{[]engine.Break{{Offset: 5, Duration: 250 * time.Millisecond}, {Offset: 12, Duration: 500 * time.Millisecond}}, 750 * time.Millisecond},
		{[]engine.Break{{Offset: 18, Duration: 300 * time.Millisecond}}, 300 * time.Millisecond}, // at the end
	} {
		got, err := enginetest.Collect(ctx, e, engine.Request{Voice: "en-us", Text: "Hello there world.", Breaks: tc.breaks})
		if err != nil {
			t.Fatal(err)
		}
		// Within 2 ms: espeak-ng's output varies by up to about 25
		// samples from call to call (its pitch flutter carries over; 100
		// calls of this text gave 26,070 to 26,095 samples, in one
		// process and across engine processes alike).
		want := len(plain.Samples) + int(tc.add.Seconds()*float64(plain.SampleRate)+0.5)
		if d := len(got.Samples) - want; d > plain.SampleRate/500 || d < -plain.SampleRate/500 {
			t.Errorf("%v: %d samples, want %d (%+d)", tc.breaks, len(got.Samples), want, d)
		}
	}
}

// The same request gives the same speech whatever ran before it:
// libespeak-ng reads past the end of a clause's phoneme list into what
// earlier, longer clauses left there, which lengthened the last word of
// "Hello world." by 49 ms after "This is one. And this is two.". What
// still varies is below the phoneme level (pitch flutter, gain control),
// about a millisecond of length (its pitch flutter carries over, and a
// voiced sound ends where its wave cycle does): within 2 ms here. See
// docs/tags.md.
func TestSameRequestSameSpeech(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	hello := engine.Request{Voice: "en-us", Text: "Hello world."}
	first, err := enginetest.Collect(ctx, e, hello)
	if err != nil {
		t.Fatal(err)
	}
	for _, before := range []engine.Request{
		{Voice: "en-us", Text: "This is one. And this is two."},
		{Voice: "en-us", Text: "And this is two."},
		{Voice: "en-us", Text: "Hello, world."},
		{Voice: "en-us", Text: "This is one and this is two and this is three and this is four, five, six, seven and eight."},
		{Voice: "de", Text: "Guten Tag, wie geht es Ihnen heute?"},
		{Voice: "en-us+f3", Text: "And this is two."},
		{Voice: "en-us", Text: "And this is two.", Prosody: engine.Prosody{Rate: 1.7}},
		{Voice: "en-us", Text: "And this is two.", Prosody: engine.Prosody{Rate: 0.4}},
		{Voice: "en-us", Text: "And this is two.", Prosody: engine.Prosody{Whisper: true, Emphasis: true}},
		{Voice: "en-us", Text: "Hello"},
	} {
		if _, err := enginetest.Collect(ctx, e, before); err != nil {
			t.Fatal(err)
		}
		got, err := enginetest.Collect(ctx, e, hello)
		if err != nil {
			t.Fatal(err)
		}
		if d := len(got.Samples) - len(first.Samples); d > first.SampleRate/500 || d < -first.SampleRate/500 {
			t.Errorf("after %+v: %d samples, first %d (%+.1f ms)", before, len(got.Samples), len(first.Samples), float64(d)*1000/float64(first.SampleRate))
		}
	}
}

// BenchmarkSynthesize measures a sentence's synthesis in an engine
// process and in this one (their ratio is what crash isolation costs),
// the same at 1, 2 and 4 goroutines at once, and, apart, the priming that
// every synthesis begins with (see prime): its ratio to a synthesis is
// what priming costs.
func BenchmarkSynthesize(b *testing.B) {
	text := "The rainbow is a division of white light into many beautiful colors."
	req := engine.Request{Voice: "en-us", Text: text}
	ctx := context.Background()
	for _, where := range []struct {
		name string
		opts Options
	}{{"processes", Options{}}, {"in-process", Options{InProcess: true}}} {
		e, err := New(where.opts)
		if err != nil {
			b.Fatal(err)
		}
		for _, clients := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/clients=%d", where.name, clients), func(b *testing.B) {
				// clients goroutines share b.N syntheses: ns/op is the
				// inverse of throughput.
				cpu := treeCPU()
				var done atomic.Int64
				var wg sync.WaitGroup
				for range clients {
					wg.Go(func() {
						for done.Add(1) <= int64(b.N) {
							if _, err := enginetest.Collect(ctx, e, req); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				// CPU time counts what wall time hides on a busy machine.
				b.ReportMetric(float64(treeCPU()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
		e.Close()
	}
	b.Run("prime", func(b *testing.B) {
		for b.Loop() {
			nativeMu.Lock()
			prime(text)
			nativeMu.Unlock()
		}
	})
}

// treeCPU returns the CPU time, user and system, that this process and its
// children (the engine processes) have used so far, in nanoseconds.
func treeCPU() time.Duration {
	self := os.Getpid()
	var total time.Duration
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: state is
		// the first, ppid the second, utime and stime the 12th and 13th.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		pid, _ := strconv.Atoi(d.Name())
		ppid, _ := strconv.Atoi(f[1])
		if pid != self && ppid != self {
			continue
		}
		utime, _ := strconv.Atoi(f[11])
		stime, _ := strconv.Atoi(f[12])
		total += time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100
	}
	return total
}
