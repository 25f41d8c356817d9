package runner

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/voxkit/voxkit/encode"
	_ "github.com/voxkit/voxkit/encode/mp3"
	"github.com/voxkit/voxkit/internal/codec/id3"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/sqlite"
)

// finishEnv is a runner on a new SQLite store, not started, with an
// account "acme".
func finishEnv(tb testing.TB, formats *encode.Registry) *Runner {
	tb.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), sqlite.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if _, err := st.CreateAccount(ctx, "acme"); err != nil {
		tb.Fatal(err)
	}
	r, err := New(ctx, Config{Store: st, Formats: formats, Workers: 1, MaxSegment: 1000, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// renderedJob keeps a job of chapters chapters of segs segments each,
// every segment secs seconds of a tone at rate, as if rendered, and
// returns its id.
func renderedJob(tb testing.TB, r *Runner, format string, rate, chapters, segs int, secs float64) string {
	tb.Helper()
	ctx := context.Background()
	spec := Spec{Format: format, Rate: rate}
	var all []store.JobSegment
	for c := range chapters {
		spec.Chapters = append(spec.Chapters, fmt.Sprintf("Chapter %d", c+1))
		for range segs {
			all = append(all, store.JobSegment{Seq: len(all), Chapter: c, Text: "A segment."})
		}
	}
	raw, _ := json.Marshal(spec)
	j := store.Job{ID: newID(), Account: "acme", Status: store.JobRunning, Spec: raw, Segments: len(all), Chars: 10 * len(all), Created: time.Now()}
	if err := r.jobs.CreateJob(ctx, j, all, store.JobLimits{}); err != nil {
		tb.Fatal(err)
	}
	n := int(secs * float64(rate))
	for _, s := range all {
		sg, err := r.jobs.StartSegment(ctx, j.ID, s.Seq)
		if err != nil {
			tb.Fatal(err)
		}
		pcm := make([]byte, 2*n)
		for i := range n { // a tone gliding with the segment, and a little noise
			f := 220 + 40*float64(s.Seq%7)
			v := 8000*math.Sin(2*math.Pi*f*float64(i)/float64(rate)) + float64((i*7919+s.Seq*104729)%401-200)
			binary.LittleEndian.PutUint16(pcm[2*i:], uint16(int16(v)))
		}
		sg.PCM, sg.Words, sg.Rate, sg.Samples = pcm, []byte("[]"), rate, n
		if _, err := r.jobs.FinishSegment(ctx, sg, time.Duration(n)*time.Second/time.Duration(rate)); err != nil {
			tb.Fatal(err)
		}
	}
	return j.ID
}

// probe is a codec whose encoders write their samples as pcm and record
// how many were open at once; each waits, before its first samples, a
// while for another to be open (so that encoders run one after the other
// are seen as such).
type probe struct {
	mu               sync.Mutex
	open, most, made int
	more             chan struct{} // closed once two are open; nil: no waiting
}

func (p *probe) codec() encode.Codec {
	return encode.Codec{Name: "probe", ContentType: "audio/x-probe", Extension: "probe", NewEncoder: func(w io.Writer, _ encode.Format) (encode.Encoder, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.made++
		if p.open++; p.open > p.most {
			p.most = p.open
			if p.most == 2 && p.more != nil {
				close(p.more)
			}
		}
		return &probeEncoder{p: p, w: w}, nil
	}}
}

type probeEncoder struct {
	p       *probe
	w       io.Writer
	started bool
}

func (e *probeEncoder) Encode(s []int16) error {
	if !e.started && e.p.more != nil {
		e.started = true
		select {
		case <-e.p.more:
		case <-time.After(2 * time.Second):
		}
	}
	return binary.Write(e.w, binary.LittleEndian, s)
}

func (e *probeEncoder) Close() error {
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	e.p.open--
	return nil
}

// readFile is a job's result file, whole.
func readFile(tb testing.TB, r *Runner, job, name string) []byte {
	tb.Helper()
	f, err := r.jobs.JobFile(context.Background(), job, name)
	if err != nil {
		tb.Fatal(err)
	}
	var out []byte
	for i := range f.Parts {
		b, err := r.jobs.JobFilePart(context.Background(), job, name, i)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// Finishing encodes the whole audio and the chapters at once, not one
// after the other; the whole is the chapters end to end.
func TestFinishInParallel(t *testing.T) {
	p := &probe{more: make(chan struct{})}
	formats := encode.NewBuiltinRegistry()
	formats.Register(p.codec())
	r := finishEnv(t, formats)
	id := renderedJob(t, r, "probe", 8000, 4, 2, 0.25)
	if err := (&finishWorker{r: r}).finish(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if p.most < 2 {
		t.Errorf("at most %d encoders at once, want the whole's and a chapter's", p.most)
	}
	whole := readFile(t, r, id, FileAudio)
	var joined []byte
	for c := range 4 {
		joined = append(joined, readFile(t, r, id, ChapterFile(c+1))...)
	}
	if string(whole) != string(joined) || len(whole) != 4*2*2*2000 {
		t.Errorf("whole %d bytes, chapters end to end %d, want %d and the same", len(whole), len(joined), 4*2*2*2000)
	}
	if j, err := r.jobs.Job(context.Background(), "", id); err != nil || j.Status != store.JobSucceeded {
		t.Errorf("job %s %v", j.Status, err)
	}
}

// A job of one chapter is encoded once: its chapter is the whole audio
// (past the mp3's ID3 tag of chapters).
func TestFinishOneChapter(t *testing.T) {
	p := new(probe)
	formats := encode.NewBuiltinRegistry()
	formats.Register(p.codec())
	if c, err := encode.Lookup("mp3"); err == nil {
		formats.Register(c)
	}
	r := finishEnv(t, formats)
	id := renderedJob(t, r, "probe", 8000, 1, 3, 0.25)
	if err := (&finishWorker{r: r}).finish(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if p.made != 1 {
		t.Errorf("%d encoders for a job of one chapter, want 1", p.made)
	}
	if whole, ch := readFile(t, r, id, FileAudio), readFile(t, r, id, ChapterFile(1)); string(whole) != string(ch) || len(ch) != 3*2*2000 {
		t.Errorf("chapter %d bytes, whole %d, want the same %d", len(ch), len(whole), 3*2*2000)
	}

	id = renderedJob(t, r, "mp3", 24000, 1, 2, 2)
	if err := (&finishWorker{r: r}).finish(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	whole, ch := readFile(t, r, id, FileAudio), readFile(t, r, id, ChapterFile(1))
	tag, err := id3.Tag{Chapters: chapterMarks(Spec{Chapters: []string{"Chapter 1"}}, nil)}.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(whole[:3]) != "ID3" || len(ch) == 0 || len(whole) != len(tag)+len(ch) || string(whole[len(tag):]) != string(ch) {
		t.Errorf("mp3: whole %d bytes (%q), chapter %d, tag %d: the chapter is not the whole past its tag", len(whole), whole[:3], len(ch), len(tag))
	}
	if f, err := r.jobs.JobFile(context.Background(), id, ChapterFile(1)); err != nil || f.ContentType != "audio/mpeg" {
		t.Errorf("chapter's file %+v %v", f, err)
	}
}

// BenchmarkFinish finishes 20 minutes of audio as mp3 at 24 kHz: a book
// of 20 chapters of 60 s (two segments of 30 s each), and one chapter
// of 40 segments.
func BenchmarkFinish(b *testing.B) {
	for _, c := range []struct{ chapters, segs int }{{20, 2}, {1, 40}} {
		b.Run(fmt.Sprintf("chapters=%d", c.chapters), func(b *testing.B) {
			r := finishEnv(b, encode.DefaultRegistry)
			for b.Loop() {
				b.StopTimer()
				id := renderedJob(b, r, "mp3", 24000, c.chapters, c.segs, 30)
				b.StartTimer()
				if err := (&finishWorker{r: r}).finish(context.Background(), id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
