package tts_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// sentenceWatch is the espeak engine, noting how many bytes out held when
// each sentence's synthesis began.
type sentenceWatch struct {
	*espeak.Engine
	mu    sync.Mutex
	out   *bytes.Buffer
	onset []int
}

func (s *sentenceWatch) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	s.mu.Lock()
	s.onset = append(s.onset, s.out.Len())
	s.mu.Unlock()
	return s.Engine.Synthesize(ctx, req, emit)
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Stream streams in every format: by the time the second sentence is
// synthesized, the first one's audio has been written, not held for the
// end. WriteClip, on the same input, writes nothing until the end in the
// formats whose header holds the length.
func TestStreamWritesFirstSentenceFirst(t *testing.T) {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	watch := &sentenceWatch{Engine: e, out: new(bytes.Buffer)}
	// Rendered in turn (no Ahead): the engine's calls mark the sentences.
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": watch}, Ahead: -1})
	if err != nil {
		t.Fatal(err)
	}
	n := 6
	if testing.Short() {
		n = 3 // make test says six
	}
	input := strings.Repeat("This sentence takes about two seconds to say. ", n)
	for _, name := range encode.DefaultRegistry.Names() {
		t.Run(name, func(t *testing.T) {
			run := func(f func(w lockedBuffer) (tts.Result, error)) (onset []int, total int) {
				watch.mu.Lock()
				watch.out.Reset()
				watch.onset = nil
				watch.mu.Unlock()
				if _, err := f(lockedBuffer{&watch.mu, watch.out}); err != nil {
					t.Fatal(err)
				}
				return watch.onset, watch.out.Len()
			}
			req := tts.Request{Voice: "en-us", Input: input, Format: encode.Format{Name: name}}
			onset, total := run(func(w lockedBuffer) (tts.Result, error) { return synth.Stream(context.Background(), w, req) })
			if len(onset) != n {
				t.Fatalf("%d sentences synthesized, want %d", len(onset), n)
			}
			// The first sentence is an nth of the audio; allow for
			// headers and encoder delay.
			if onset[1] < total/n/2 {
				t.Errorf("Stream: %d of %d bytes written when the second sentence began", onset[1], total)
			}
			if name == "pcm" || name == "opus" {
				return // no length in the header: a clip is the stream
			}
			onset, total = run(func(w lockedBuffer) (tts.Result, error) { return synth.WriteClip(context.Background(), w, req) })
			if onset[n-1] != 0 || total == 0 {
				t.Errorf("WriteClip: %d bytes written before the last sentence began, %d in all", onset[5], total)
			}
		})
	}
}

// A Synthesizer made from engines alone lists their voices; the zero
// Format is wav; Close closes the engines it was told to.
func TestSynthesizerFromEngines(t *testing.T) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Voices().Lookup("", "en-us"); err != nil {
		t.Errorf("en-us: %v", err)
	}
	if synth.MaxInput() != tts.DefaultMaxInput || synth.MaxAudio() != tts.DefaultMaxAudio || synth.Formats() != encode.DefaultRegistry {
		t.Errorf("limits %d %v, formats %p", synth.MaxInput(), synth.MaxAudio(), synth.Formats())
	}
	clip, res, err := synth.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: "Hi <|wink|> there."})
	if err != nil {
		t.Fatal(err)
	}
	if string(clip[:4]) != "RIFF" || res.Audio <= 0 || len(res.IgnoredTags) != 1 || res.IgnoredTags[0] != "wink" {
		t.Errorf("%q…, %+v", clip[:4], res)
	}
	if err := synth.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Synthesize(context.Background(), "en-us", "Hi.", encode.WAV); !errors.Is(err, espeak.ErrClosed) {
		t.Errorf("after Close: %v, want espeak.ErrClosed", err)
	}
}

// fortyWords is a first sentence of 40 words with clause marks.
const fortyWords = "When the morning light finally came over the distant hills, the farmers of the valley " +
	"went out to the wide fields together, and they worked steadily through the long day until the " +
	"hot sun stood high above them and the birds fell silent."

// A long first sentence is streamed clause first: the engine is asked for
// its first clause alone, and the audio lasts within 3% of the uncut
// sentence's.
func TestQuickStartStreams(t *testing.T) {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var texts []string
	rec := recordTexts{Engine: e, texts: &texts}
	synth, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": rec}, Ahead: -1}) // calls in turn
	if err != nil {
		t.Fatal(err)
	}
	req := tts.Request{Voice: "en-us", Input: fortyWords + " A second sentence follows.", Format: encode.Format{Name: "pcm"}}
	var streamed bytes.Buffer
	res, err := synth.Stream(context.Background(), &streamed, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 3 || !strings.HasSuffix(texts[0], "hills,") || res.Sentences != 2 {
		t.Errorf("engine asked for %q, %d sentences reported", texts, res.Sentences)
	}
	texts = nil
	clip, _, err := synth.SynthesizeRequest(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 2 {
		t.Errorf("a complete clip: engine asked for %q, want the two sentences whole", texts)
	}
	ratio := float64(streamed.Len()) / float64(len(clip))
	t.Logf("streamed %d bytes, whole %d: ratio %.4f", streamed.Len(), len(clip), ratio)
	if ratio < 0.97 || ratio > 1.03 {
		t.Errorf("the cut changes the duration by a factor %.3f", ratio)
	}
}

// recordTexts is the espeak engine, recording the texts it is asked for.
type recordTexts struct {
	*espeak.Engine
	texts *[]string
}

func (r recordTexts) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	*r.texts = append(*r.texts, req.Text)
	return r.Engine.Synthesize(ctx, req, emit)
}

// BenchmarkQuickStart reports the time to the first byte of a pcm stream
// whose first sentence has 40 words, as a fraction of the whole stream's
// time (the sentence and a short second one), with and without the cut.
func BenchmarkQuickStart(b *testing.B) {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for _, v := range []struct {
		name  string
		quick int
	}{{"whole", -1}, {"cut", 0}} {
		s, err := tts.New(tts.Options{Engines: map[string]engine.Engine{"espeak": e}, QuickStart: v.quick, Ahead: -1})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(v.name, func(b *testing.B) {
			var first, total time.Duration
			for b.Loop() {
				w := new(firstWrite)
				start := time.Now()
				if _, err := s.Stream(context.Background(), w, tts.Request{Voice: "en-us", Input: fortyWords + " Done.", Format: encode.Format{Name: "pcm"}}); err != nil {
					b.Fatal(err)
				}
				first += w.at.Sub(start)
				total += time.Since(start)
			}
			b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "ttfb-ms")
			b.ReportMetric(float64(first)/float64(total), "ttfb/total")
		})
	}
}
