//go:build cgo

package espeak

import (
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
)

// Texts that crash libespeak-ng 1.51 (and the espeak-ng command): each
// ended the process that called the library.
var crashers = []struct{ name, text, phonemes string }{
	{name: "spelled letters", text: strings.Repeat("a.", 100)},
	{name: "spelled words", text: strings.Repeat("u.s. ", 100)},
	{name: "dotted host", text: "http://" + strings.Repeat("a.", 100) + "com"},
	{name: "stops before letters", text: strings.Repeat(" .a", 150)},
	// Symbols espeak-ng spells as letters (found by TestSearchSpelled).
	{name: "circled letters", text: strings.Repeat("ⓐ.", 100)},
	{name: "circled capitals", text: strings.Repeat("Ⓐ.", 100)},
	{name: "negative circled capitals", text: strings.Repeat("🅐.", 100)},
	{name: "roman numerals", text: strings.Repeat("ⅷ.", 100)},
	{name: "parenthesized hangul", text: strings.Repeat("㈠.", 100)},
	{name: "braille", text: strings.Repeat("⠁.", 100)},
	{name: "combining accents", text: strings.Repeat("\u0300.", 100)},
	{name: "accented letters", text: strings.Repeat("é.", 100)},
	{name: "hebrew maqaf", text: strings.Repeat("\u05be.", 100)},
	{name: "hebrew paseq", text: strings.Repeat("\u05c0.", 100)},
	{name: "long phonemes", text: "hello", phonemes: strings.Repeat("həl", 300)},
	{name: "stress marks", text: "hello", phonemes: strings.Repeat("ˈ", 1500) + "hə"},
}

// TestCrashContained: unguarded, each crasher crashes libespeak-ng for
// real; the engine process dies, the call fails with engine.ErrCrashed,
// calls running beside it succeed, and the next call on the same engine
// speaks.
func TestCrashContained(t *testing.T) {
	e, err := New(Options{Unguarded: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	hello := engine.Request{Voice: "en-us", Text: "Hello there, how are you today?"}
	for _, c := range crashers {
		if testing.Short() && c.name != "spelled letters" && c.name != "long phonemes" {
			continue // one text, one phoneme string; make test crashes each, TestCrashersSpeak speaks each
		}
		t.Run(c.name, func(t *testing.T) {
			var wg sync.WaitGroup
			others := make([]error, 4)
			for i := range others {
				wg.Go(func() {
					for range 5 {
						if _, err := enginetest.Collect(ctx, e, hello); err != nil {
							others[i] = err
							return
						}
					}
				})
			}
			_, err := enginetest.Collect(ctx, e, engine.Request{Voice: "en-us", Text: c.text, Phonemes: c.phonemes})
			wg.Wait()
			if !errors.Is(err, engine.ErrCrashed) {
				t.Errorf("got %v, want engine.ErrCrashed", err)
			}
			for i, err := range others {
				if err != nil {
					t.Errorf("call %d beside the crash: %v", i, err)
				}
			}
			got, err := enginetest.Collect(ctx, e, hello)
			if err != nil || got.RMS() < 0.01 {
				t.Fatalf("after the crash: err %v, RMS %v", err, got.RMS())
			}
		})
	}
}

// TestCrashersSpeak: guarded, as engines are by default, the crashers
// never reach libespeak-ng as they are: they speak.
func TestCrashersSpeak(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	for _, c := range crashers {
		t.Run(c.name, func(t *testing.T) {
			got, err := enginetest.Collect(ctx, e, engine.Request{Voice: "en-us", Text: c.text, Phonemes: c.phonemes})
			if err != nil || got.RMS() < 0.01 {
				t.Fatalf("err %v, RMS %v", err, got.RMS())
			}
			if _, err := e.Phonemize(ctx, "en-us", c.text); err != nil {
				t.Fatalf("phonemize: %v", err)
			}
		})
	}
}

// BenchmarkProcessStart measures what a crash costs beside its call: the
// start of the engine process that takes the dead one's place (libespeak-ng
// initialized, its voice table read).
func BenchmarkProcessStart(b *testing.B) {
	p := &processes{dataDir: nativeDataDir(""), limits: defaultLimits}
	p.timeout.Store(int64(callTimeout))
	for b.Loop() {
		w, _, err := p.start()
		if err != nil {
			b.Fatal(err)
		}
		w.kill()
		<-w.exited
	}
}

// TestHungProcessKilled: a call its engine process does not answer within
// the timeout (the process stopped, as a hang inside the library would
// leave it) fails with engine.ErrCrashed, and the next call speaks.
func TestHungProcessKilled(t *testing.T) {
	p, err := startProcesses("", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.timeout.Store(int64(300 * time.Millisecond))
	w := <-p.idle
	if err := w.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	p.idle <- w
	ctx := context.Background()
	call := synthCall{Voice: "en-us", Text: "Hello.", WPM: normalWPM}
	if _, err := p.synth(ctx, call); !errors.Is(err, engine.ErrCrashed) {
		t.Fatalf("stopped process: got %v, want engine.ErrCrashed", err)
	}
	if w.alive() {
		t.Error("the stopped process was not killed")
	}
	// The next call, the first of a new process, gets the usual time: on
	// a loaded machine it can take longer than the short one above.
	p.timeout.Store(int64(callTimeout))
	res, err := p.synth(ctx, call)
	if err != nil || len(res.PCM) == 0 {
		t.Fatalf("next call: %v, %d bytes", err, len(res.PCM))
	}
}

// TestCancelStopsTheCall: a cancelled call stops inside its engine
// process, which then serves the next call (it is not killed).
func TestCancelStopsTheCall(t *testing.T) {
	p, err := startProcesses("", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	long := synthCall{Voice: "en-us", Text: strings.Repeat("This sentence goes on and on, ", 60) + "until it ends.", WPM: normalWPM}
	ctx, cancel := context.WithCancel(context.Background())
	w := <-p.idle
	p.idle <- w
	done := make(chan error, 1)
	go func() {
		_, err := p.synth(ctx, long)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	res, err := p.synth(context.Background(), synthCall{Voice: "en-us", Text: "Hello.", WPM: normalWPM})
	if err != nil || len(res.PCM) == 0 {
		t.Fatalf("next call: %v, %d bytes", err, len(res.PCM))
	}
	if got := <-p.idle; got != w || !w.alive() {
		t.Error("the cancelled call's process was replaced")
	}
}
