package tts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/engine/espeak"
)

// silentText is text that ends sentences but makes no audio: 3,000
// characters of periods on lines of their own.
var silentText = strings.Repeat(".\n\n", 1000)

// TestTextStreamHoldsPending: a stream holds only the text that waits
// for its sentence's end, and looks for a sentence's words in that
// sentence alone: what it keeps stays the size of one sentence however
// much came before, while the words' offsets still index the whole text.
func TestTextStreamHoldsPending(t *testing.T) {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Engines: map[string]engine.Engine{"espeak": e}, CloseEngines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var last SentenceDone
	ts, err := s.StreamText(context.Background(), io.Discard, Request{Voice: "en-us", Format: encode.PCM,
		OnSentence: func(d SentenceDone) { last = d }})
	if err != nil {
		t.Fatal(err)
	}
	const sentence = "Hello there.\n\n"
	chars := 0 // characters written before the sentence
	for i := range 20 {
		for _, text := range []string{silentText, sentence} {
			if _, err := ts.WriteString(text); err != nil {
				t.Fatal(err)
			}
		}
		chars += utf8.RuneCountInString(silentText)
		if len(ts.text)-ts.done > len(sentence) || len(ts.text) > len(sentence) {
			t.Fatalf("after %d characters: %d bytes of text held, %d of them waiting", chars, len(ts.text), ts.Buffered())
		}
		if n := len(ts.o.r.loc.input); n > len(sentence) {
			t.Fatalf("after %d characters: words looked for in %d bytes", chars, n)
		}
		if len(last.Words) != 2 || last.Words[0].CharStart != chars || last.Words[1].CharEnd != chars+len("Hello there") {
			t.Fatalf("sentence %d: words %+v, want Hello at %d", i, last.Words, chars)
		}
		chars += utf8.RuneCountInString(sentence)
	}
	if _, err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	if ts.Written() != chars {
		t.Errorf("Written() = %d, want %d", ts.Written(), chars)
	}
}

// TestTextStreamCap: all the text a stream is written counts against
// Options.MaxStreamInput, silent sentences too; past it the stream ends
// with an *InputTooLongError for the stream.
func TestTextStreamCap(t *testing.T) {
	fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake"}})
	s, err := New(Options{Engines: map[string]engine.Engine{"fake": fake}, MaxInput: 100})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := s.StreamText(context.Background(), io.Discard, Request{Voice: "fake", Format: encode.PCM})
	if err != nil {
		t.Fatal(err)
	}
	if s.MaxStreamInput() != StreamInputFactor*100 {
		t.Fatalf("MaxStreamInput() = %d", s.MaxStreamInput())
	}
	for ts.Written()+30 <= s.MaxStreamInput() {
		if _, err := ts.WriteString(strings.Repeat("!\n\n", 10)); err != nil {
			t.Fatalf("after %d characters: %v", ts.Written(), err)
		}
	}
	_, err = ts.WriteString(strings.Repeat("!\n\n", 10))
	var tooLong *InputTooLongError
	if !errors.As(err, &tooLong) || !tooLong.Stream || tooLong.Max != s.MaxStreamInput() {
		t.Fatalf("past the cap: %v, want an InputTooLongError of the stream", err)
	}
	if _, err := ts.WriteString("Hi."); err != tooLong {
		t.Errorf("after the cap: %v, want the same error", err)
	}
}

// BenchmarkTextStreamSentence measures a sentence of a stream with word
// timings after 1 KB and after 500 KB of text: it costs the same.
func BenchmarkTextStreamSentence(b *testing.B) {
	for _, prior := range []int{1 << 10, 500 << 10} {
		b.Run(fmt.Sprintf("prior=%dKB", prior>>10), func(b *testing.B) {
			fake := enginetest.NewFake(enginetest.FakeOptions{Voices: []string{"fake"}})
			s, err := New(Options{Engines: map[string]engine.Engine{"fake": fake}, MaxAudio: 1000 * time.Hour, MaxStreamInput: 1 << 30})
			if err != nil {
				b.Fatal(err)
			}
			ts, err := s.StreamText(context.Background(), io.Discard, Request{Voice: "fake", Format: encode.PCM, OnSentence: func(SentenceDone) {}})
			if err != nil {
				b.Fatal(err)
			}
			for range prior / len(silentText) {
				ts.WriteString(silentText)
			}
			ts.WriteString(silentText[:prior%len(silentText)])
			for b.Loop() {
				if _, err := ts.WriteString("Hi.\n\n"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
