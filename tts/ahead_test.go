package tts_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/internal/testkit/onnxtest"
	"github.com/voxkit/voxkit/internal/testkit/pockettest"
	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/tts"
)

// counted is an engine that counts the calls it runs at once, and runs
// hold (when set) before each call.
type counted struct {
	engine.Engine
	mu       sync.Mutex
	inFlight int
	most     int
	texts    []string
	hold     func(ctx context.Context, n int, text string) error // n: the calls begun, this one included
}

func (c *counted) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	c.mu.Lock()
	c.inFlight++
	c.most = max(c.most, c.inFlight)
	c.texts = append(c.texts, req.Text)
	n := len(c.texts)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.inFlight--
		c.mu.Unlock()
	}()
	if c.hold != nil {
		if err := c.hold(ctx, n, req.Text); err != nil {
			return err
		}
	}
	return c.Engine.Synthesize(ctx, req, emit)
}

func (c *counted) Voices(ctx context.Context) ([]engine.Voice, error) {
	return c.Engine.(engine.VoiceLister).Voices(ctx)
}

// state returns the calls running, the most that ran at once and the
// calls begun.
func (c *counted) state() (inFlight, most, begun int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inFlight, c.most, len(c.texts)
}

func aheadSynth(t *testing.T, e engine.Engine, name string, parallel int) *tts.Synthesizer {
	t.Helper()
	s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{name: e}, MaxParallel: parallel})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// numbered is a text of n sentences, each its own.
func numbered(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Sentence number %d is here. ", i+1)
	}
	return b.String()
}

// aheadRun is what a request wrote, with its sentences' timings.
type aheadRun struct {
	audio     []byte
	sentences []tts.SentenceDone
}

// speakAhead writes req as a complete clip, which looks ahead from its
// start (a stream waits for its first audio: see
// TestAheadStreamAfterFirstAudio).
func speakAhead(t *testing.T, s *tts.Synthesizer, req tts.Request) aheadRun {
	t.Helper()
	var out aheadRun
	var buf bytes.Buffer
	req.OnSentence = func(d tts.SentenceDone) { out.sentences = append(out.sentences, d) }
	if _, err := s.WriteClip(context.Background(), &buf, req); err != nil {
		t.Fatal(err)
	}
	out.audio = buf.Bytes()
	return out
}

// A stream renders nothing ahead until its first audio is out, so that
// other work never slows its first audio; then it looks ahead. Before,
// the second sentence began while the first was held, nothing written.
func TestAheadStreamAfterFirstAudio(t *testing.T) {
	e := &counted{Engine: enginetest.NewFake(enginetest.FakeOptions{})}
	var mu sync.Mutex
	var audio bytes.Buffer
	var early []string // calls begun before any audio was out
	e.hold = func(ctx context.Context, n int, text string) error {
		if n == 1 { // a second would begin now, if it were let
			window := time.Second
			if testing.Short() {
				window = 250 * time.Millisecond // a second begins at once if let; make test waits 1 s
			}
			wait.For(window, func() bool { _, _, begun := e.state(); return begun > 1 })
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if audio.Len() == 0 {
			early = append(early, text)
		}
		return nil
	}
	s := aheadSynth(t, e, "fake", 4)
	if _, err := s.Stream(context.Background(), lockedBuffer{&mu, &audio}, tts.Request{Voice: "fake", Input: numbered(6), Format: encode.Format{Name: "pcm"}}); err != nil {
		t.Fatal(err)
	}
	if len(early) > 0 {
		t.Errorf("%q began before the first audio was out", early)
	}
	if _, most, begun := e.state(); most < 2 || begun != 6 {
		t.Errorf("at most %d calls at once of %d, want sentences rendered ahead after the first", most, begun)
	}
}

// A request of several sentences renders the next ones on free slots
// while the first renders (its first call waits until another has begun:
// before, none did, and the call gave up waiting); the stream is the same,
// byte for byte and word for word, as rendered in turn (one slot), with
// pauses, effects, a phoneme-free voice change and words.
func TestAheadSameAsInTurn(t *testing.T) {
	input := "First, a sentence with a comma. [pause:200ms] The <|whisper|>second<|/whisper|> one. " +
		"A third, <|pitch:+3|>higher<|/pitch|>, sentence. " + numbered(5)
	var runs [2]aheadRun
	var most int
	for i, parallel := range []int{1, 4} {
		e := &counted{Engine: enginetest.NewFake(enginetest.FakeOptions{SampleRate: 22050})}
		e.hold = func(ctx context.Context, n int, _ string) error {
			if n == 1 && parallel > 1 {
				wait.For(10*time.Second, func() bool { _, _, begun := e.state(); return begun > 1 })
			}
			return nil
		}
		runs[i] = speakAhead(t, aheadSynth(t, e, "fake", parallel), tts.Request{Voice: "fake", Input: input, Format: encode.Format{Name: "wav"}})
		_, most, _ = e.state()
	}
	if most < 2 {
		t.Errorf("at most %d calls at once on 4 slots, want sentences rendered ahead", most)
	}
	if len(runs[0].audio) < 1000 || !bytes.Equal(runs[0].audio, runs[1].audio) {
		t.Errorf("rendered ahead: %d bytes, in turn %d: not the same", len(runs[1].audio), len(runs[0].audio))
	}
	if len(runs[0].sentences) != 8 || !reflect.DeepEqual(runs[0].sentences, runs[1].sentences) {
		t.Errorf("sentences in turn %+v\nahead %+v", runs[0].sentences, runs[1].sentences)
	}
}

// espeak-ng's sentences rendered ahead come out in order, each as long
// as rendered in turn within espeak-ng's call-to-call spread.
func TestAheadEspeakInOrder(t *testing.T) {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	input := "One short sentence. Then a considerably longer sentence follows it here. Three. " +
		"The fourth sentence is of middling length."
	var runs [2]aheadRun
	for i, parallel := range []int{1, 4} {
		runs[i] = speakAhead(t, aheadSynth(t, e, "espeak", parallel), tts.Request{Voice: "en-us", Input: input, Format: encode.Format{Name: "pcm"}})
	}
	if len(runs[0].sentences) != 4 || len(runs[1].sentences) != 4 {
		t.Fatalf("%d and %d sentences", len(runs[0].sentences), len(runs[1].sentences))
	}
	for k := range 4 {
		a, b := runs[0].sentences[k], runs[1].sentences[k]
		d := (a.End - a.Start) - (b.End - b.Start)
		if d.Abs() > 50*time.Millisecond {
			t.Errorf("sentence %d: %v in turn, %v ahead", k, a.End-a.Start, b.End-b.Start)
		}
	}
}

// No sentence is rendered ahead while the other slots are taken, nor past
// the account's slots (Request.AccountSlots).
func TestAheadStopsAtSlots(t *testing.T) {
	t.Run("taken", func(t *testing.T) {
		release := make(chan struct{})
		e := &counted{Engine: enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake", "other"}})}
		var others sync.WaitGroup
		e.hold = func(ctx context.Context, _ int, text string) error {
			if strings.HasPrefix(text, "Busy") {
				others.Done()
				<-release
			}
			return nil
		}
		s := aheadSynth(t, e, "fake", 3)
		others.Add(2)
		var done sync.WaitGroup
		for i := range 2 {
			done.Go(func() {
				s.Stream(context.Background(), new(bytes.Buffer), tts.Request{Voice: "other", Account: fmt.Sprint("b", i), Input: "Busy now."})
			})
		}
		others.Wait()
		speakAhead(t, s, tts.Request{Voice: "fake", Account: "a", Input: numbered(6), Format: encode.Format{Name: "pcm"}})
		close(release)
		done.Wait()
		if _, most, _ := e.state(); most != 3 {
			t.Errorf("at most %d calls at once, want the two others' and one of the request's", most)
		}
	})
	t.Run("account", func(t *testing.T) {
		e := &counted{Engine: enginetest.NewFake(enginetest.FakeOptions{})}
		e.hold = func(ctx context.Context, n int, _ string) error {
			if n == 1 { // until every sentence has begun
				wait.For(10*time.Second, func() bool { _, _, begun := e.state(); return begun == 6 })
			}
			return nil
		}
		speakAhead(t, aheadSynth(t, e, "fake", 4), tts.Request{Voice: "fake", Account: "a", AccountSlots: 2, Input: numbered(6), Format: encode.Format{Name: "pcm"}})
		if _, most, begun := e.state(); most != 2 || begun != 6 {
			t.Errorf("at most %d calls at once of %d, want 2 (the account's slots)", most, begun)
		}
	})
}

// A cancelled request stops what it renders ahead at once: when Stream
// returns, no call of its runs, and none begins after.
func TestAheadCancelStops(t *testing.T) {
	e := &counted{Engine: enginetest.NewFake(enginetest.FakeOptions{})}
	e.hold = func(ctx context.Context, _ int, _ string) error {
		<-ctx.Done()
		return ctx.Err()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := aheadSynth(t, e, "fake", 4)
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err = s.WriteClip(ctx, new(bytes.Buffer), tts.Request{Voice: "fake", Input: numbered(20), Format: encode.Format{Name: "pcm"}})
	}()
	if !wait.For(10*time.Second, func() bool { n, _, _ := e.state(); return n == 4 }) {
		n, _, _ := e.state()
		t.Errorf("%d calls at once on 4 free slots, want 4", n)
	}
	cancel()
	<-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Stream: %v", err)
	}
	n, _, begun := e.state()
	if n != 0 {
		t.Errorf("%d calls still run after Stream returned", n)
	}
	if busy := s.Load().Busy; busy != 0 {
		t.Errorf("%d slots held after Stream returned", busy)
	}
	if _, _, later := e.state(); later != begun || begun > 5 {
		t.Errorf("%d calls begun at the return, %d now", begun, later)
	}
}

// A 100-sentence request renders at most tts.DefaultAhead sentences ahead
// of the one it writes: with the first held, the look-ahead stops there.
func TestAheadBounded(t *testing.T) {
	release := make(chan struct{})
	var opts enginetest.FakeOptions
	if testing.Short() {
		opts.LetterDuration = 5 * time.Millisecond // 13 s of audio, not 160; make test the usual 60 ms
	}
	e := &counted{Engine: enginetest.NewFake(opts)}
	e.hold = func(ctx context.Context, _ int, text string) error {
		if strings.Contains(text, " one ") {
			<-release
		}
		return nil
	}
	s := aheadSynth(t, e, "fake", 4)
	done := make(chan aheadRun)
	go func() {
		done <- speakAhead(t, s, tts.Request{Voice: "fake", Input: numbered(100), Format: encode.Format{Name: "pcm"}})
	}()
	stalled := func() bool {
		n, _, begun := e.state()
		return n == 1 && begun == 1+tts.DefaultAhead && s.Load().Busy == 1
	}
	if !wait.For(10*time.Second, stalled) {
		n, _, begun := e.state()
		t.Errorf("%d calls running, %d begun, %d slots busy; want the first alone after %d", n, begun, s.Load().Busy, 1+tts.DefaultAhead)
	}
	close(release)
	out := <-done
	if _, _, begun := e.state(); begun != 100 || len(out.sentences) != 100 {
		t.Errorf("%d calls, %d sentences written", begun, len(out.sentences))
	}
}

// PocketTTS's sentences rendered ahead at a fixed seed are the samples of
// rendering them in turn: each call's noise starts from the seed.
func TestAheadPocketSameAsInTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("generating and loading the PocketTTS model is long; make test runs it (TestAheadSameAsInTurn and engine/pocket's TestSeed under -short)")
	}
	dir, err := pockettest.Shared()
	if err != nil {
		t.Skip(err)
	}
	pk, err := pocket.Load(context.Background(), pocket.Options{LibraryPath: onnxtest.Library(t), VoicesDir: dir, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pk.Close()
	input := "The first sentence is here. A second one follows it. And a third, the last."
	var runs [2]aheadRun
	var most int
	for i, parallel := range []int{1, 3} {
		e := &counted{Engine: pk}
		e.hold = func(ctx context.Context, n int, _ string) error {
			if n == 1 && parallel > 1 {
				wait.For(10*time.Second, func() bool { _, _, begun := e.state(); return begun > 1 })
			}
			return nil
		}
		runs[i] = speakAhead(t, aheadSynth(t, e, "pocket", parallel),
			tts.Request{Voice: pockettest.Model + ":alto", Input: input, Seed: 7, Format: encode.Format{Name: "pcm"}})
		_, most, _ = e.state()
	}
	if most < 2 {
		t.Errorf("at most %d calls at once on 3 slots", most)
	}
	if len(runs[0].audio) < 24000 || !bytes.Equal(runs[0].audio, runs[1].audio) {
		t.Errorf("rendered ahead: %d bytes, in turn %d: not the same samples", len(runs[1].audio), len(runs[0].audio))
	}
}

// An engine's panic in a sentence rendered ahead reaches Stream's caller,
// on its goroutine, when the request comes to that sentence.
func TestAheadPanicReachesCaller(t *testing.T) {
	e := &counted{Engine: enginetest.NewFake(enginetest.FakeOptions{})}
	e.hold = func(ctx context.Context, n int, text string) error {
		if strings.Contains(text, "three") {
			panic("the engine broke")
		}
		if n == 1 {
			wait.For(10*time.Second, func() bool { _, _, begun := e.state(); return begun >= 3 })
		}
		return nil
	}
	defer func() {
		if v := recover(); v != "the engine broke" {
			t.Errorf("recovered %v", v)
		}
	}()
	aheadSynth(t, e, "fake", 4).WriteClip(context.Background(), new(bytes.Buffer), tts.Request{Voice: "fake", Input: numbered(5), Format: encode.Format{Name: "pcm"}})
	t.Error("Stream returned")
}
