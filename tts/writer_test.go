package tts_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
	"github.com/voxkit/voxkit/tts"
)

var errDiskFull = errors.New("disk full")

// failingWriter takes ok writes, then fails every one.
type failingWriter struct{ ok int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.ok == 0 {
		return 0, errDiskFull
	}
	w.ok--
	return len(p), nil
}

// TestWriteErrorReachesCaller: a writer's error is the caller's to match
// (errors.Is), whichever write fails, and is never taken for a format the
// Synthesizer cannot encode.
func TestWriteErrorReachesCaller(t *testing.T) {
	s, _ := fakeSynth(t, enginetest.FakeOptions{SampleRate: 16000})
	for _, name := range []string{"wav", "pcm", "flac"} {
		for _, streaming := range []bool{true, false} {
			for _, ok := range []int{0, 1, 2} {
				t.Run(fmt.Sprintf("%s/streaming=%v/ok=%d", name, streaming, ok), func(t *testing.T) {
					req := tts.Request{Voice: "fake", Input: "Hello there. Bye now. And again.",
						Format: encode.Format{Name: name, Streaming: streaming}}
					_, err := s.Stream(context.Background(), &failingWriter{ok: ok}, req)
					if !errors.Is(err, errDiskFull) {
						t.Errorf("Stream: %v, want the writer's error", err)
					}
					if errors.Is(err, tts.ErrUnsupportedFormat) {
						t.Errorf("Stream: %v is ErrUnsupportedFormat", err)
					}
				})
			}
		}
	}
}

// TestWriteClipToPipe: WriteClip to an *os.File that cannot be written at
// offset 0 (a pipe, as a program's standard output piped on is) writes the
// clip in order, where the header's rewrite failed with "illegal seek".
func TestWriteClipToPipe(t *testing.T) {
	s, _ := fakeSynth(t, enginetest.FakeOptions{SampleRate: 16000})
	req := tts.Request{Voice: "fake", Input: "Hello there. Bye now.", Format: encode.Format{Name: "wav"}}
	want, _, err := s.SynthesizeRequest(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := audiotest.ThroughPipe(func(w *os.File) error {
		_, err := s.WriteClip(context.Background(), w, req)
		return err
	})
	if err != nil {
		t.Fatalf("WriteClip to a pipe: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the pipe got %d bytes, not the clip's %d", len(got), len(want))
	}
}

// TestResultSoFar: a stream that ends in an error after writing audio
// returns the result so far, its Samples and Audio those written, as
// TextStream.Close says, where they were 0.
func TestResultSoFar(t *testing.T) {
	s, _ := fakeSynth(t, enginetest.FakeOptions{SampleRate: 24000})
	pcm := encode.Format{Name: "pcm", Streaming: true}
	input := "Hello there. Bye now. And again."
	for _, how := range []string{"Stream", "TextStream"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var b bytes.Buffer
			req := tts.Request{Voice: "fake", Format: pcm, OnSentence: func(tts.SentenceDone) { cancel() }}
			var res tts.Result
			var err error
			if how == "Stream" {
				req.Input = input
				res, err = s.Stream(ctx, &b, req)
			} else {
				ts, serr := s.StreamText(ctx, &b, req)
				if serr != nil {
					t.Fatal(serr)
				}
				ts.WriteString(input)
				res, err = ts.Close()
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: %v, want context.Canceled", how, err)
			}
			if b.Len() == 0 || res.Samples != b.Len()/2 {
				t.Errorf("%s wrote %d samples, its result says %d (%v)", how, b.Len()/2, res.Samples, res.Audio)
			}
			if want := time.Duration(b.Len()/2) * time.Second / 24000; res.Audio != want {
				t.Errorf("result's Audio %v, want %v", res.Audio, want)
			}
		})
	}
}
