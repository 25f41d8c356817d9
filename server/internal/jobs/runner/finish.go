package runner

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/captions"
	"github.com/voxkit/voxkit/internal/codec/id3"
	"github.com/voxkit/voxkit/server/store"
)

// PartSize is the size of the parts a result file is kept in.
const PartSize = 1 << 20

// The names of a job's result files (store.JobFile.Name); a chapter's
// audio is ChapterFile(n).
const (
	FileAudio      = "audio"
	FileSRT        = "captions.srt"
	FileVTT        = "captions.vtt"
	FileTimestamps = "timestamps.json"
)

// ChapterFile names the audio file of chapter n (from 1).
func ChapterFile(n int) string { return fmt.Sprintf("chapter-%d", n) }

type finishWorker struct {
	river.WorkerDefaults[finishArgs]
	r *Runner
}

// Timing is a word's place in a job's whole audio (timestamps.json).
type Timing struct {
	Word    string  `json:"word"`
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Chapter int     `json:"chapter"`
}

// Timestamps is the body of timestamps.json.
type Timestamps struct {
	Chapters []ChapterTiming `json:"chapters"`
	Words    []Timing        `json:"words"`
}

// ChapterTiming is where a chapter lies in the whole audio, in seconds.
type ChapterTiming struct {
	Title string  `json:"title"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Work encodes a job's whole audio once, through one encoder, and each
// chapter's, all at once (as many at a time as Go has CPUs, at least
// two: the whole and a chapter; a job of one chapter copies the whole,
// past its ID3 tag, as the chapter), keeps them with the captions and word
// timings, and ends the job succeeded; its segments' audio is then
// dropped.
func (w *finishWorker) Work(ctx context.Context, rj *river.Job[finishArgs]) error {
	err := w.finish(ctx, rj.Args.Job)
	if err != nil && rj.Attempt >= rj.MaxAttempts && ctx.Err() == nil {
		w.r.fail(ctx, rj.Args.Job, "the job's results could not be made: "+messageOf(err))
		return nil
	}
	return err
}

// finish finishes job id. A job that ends meanwhile (cancelled, failed
// or deleted, here or on another replica) stops its encoding within
// Config.Poll, and the files it wrote are dropped.
func (w *finishWorker) finish(parent context.Context, id string) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	go w.r.follow(ctx, id, cancel)
	err := w.encode(ctx, id)
	if err != nil && parent.Err() == nil && ctx.Err() != nil {
		return w.r.jobs.DropSegmentAudio(parent, id) // the job ended
	}
	return err
}

func (w *finishWorker) encode(ctx context.Context, id string) error {
	r := w.r
	j, err := r.jobs.Job(ctx, "", id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return err
	case store.JobFinished(j.Status):
		return nil
	}
	var spec Spec
	if err := json.Unmarshal(j.Spec, &spec); err != nil {
		r.fail(ctx, j.ID, "the job's request could not be read")
		return nil
	}
	segs, err := r.jobs.JobSegments(ctx, j.ID, false)
	if err != nil {
		return err
	}
	format := encode.Format{Name: spec.Format, SampleRate: spec.Rate}
	codec, err := r.cfg.Formats.Lookup(spec.Format)
	if err != nil {
		r.fail(ctx, j.ID, messageOf(err))
		return nil
	}
	marks := chapterMarks(spec, segs)
	stamps := Timestamps{Chapters: make([]ChapterTiming, len(marks)), Words: []Timing{}}
	for i, m := range marks {
		stamps.Chapters[i] = ChapterTiming{Title: spec.Chapters[i], Start: m.Start.Seconds(), End: m.End.Seconds()}
	}
	var head []byte // what the whole file begins with, before its audio
	whole := format
	switch spec.Format {
	case "mp3":
		if head, err = (id3.Tag{Chapters: marks}).Marshal(); err != nil {
			return err
		}
	case "opus", "flac":
		whole.Comments = chapterComments(marks)
	}
	var at time.Duration // where the segment starts in the whole
	var cues []captions.Cue
	var segmentBytes int64 // the segments' audio, dropped once the results are kept
	tasks := []func(context.Context) error{func(ctx context.Context) error {
		_, err := r.encodeFile(ctx, j.ID, FileAudio, codec, whole, head, segs, func(s store.JobSegment, pcm []int16, words []word) {
			segmentBytes += int64(len(s.PCM) + len(s.Words))
			for _, wd := range words {
				stamps.Words = append(stamps.Words, Timing{Word: wd.W, Start: (at + ms(wd.S)).Seconds(), End: (at + ms(wd.E)).Seconds(), Chapter: s.Chapter + 1})
			}
			cues = append(cues, segmentCues(s.Text, words, at)...)
			at += time.Duration(len(pcm)) * time.Second / time.Duration(spec.Rate)
		})
		return err
	}}
	for ch := range spec.Chapters {
		if len(spec.Chapters) == 1 {
			break // the chapter is the whole, copied once encoded
		}
		var mine []store.JobSegment
		for _, s := range segs {
			if s.Chapter == ch {
				mine = append(mine, s)
			}
		}
		tasks = append(tasks, func(ctx context.Context) error {
			_, err := r.encodeFile(ctx, j.ID, ChapterFile(ch+1), codec, format, nil, mine, nil)
			return err
		})
	}
	if err := inParallel(ctx, max(2, runtime.GOMAXPROCS(0)), tasks); err != nil {
		return err
	}
	if len(spec.Chapters) == 1 {
		if err := r.copyFile(ctx, j.ID, FileAudio, ChapterFile(1), int64(len(head))); err != nil {
			return err
		}
	}
	raw, _ := json.Marshal(stamps)
	for name, f := range map[string]struct {
		data []byte
		typ  string
	}{
		FileTimestamps: {raw, "application/json"},
		FileSRT:        {captionFile(cues, captions.SRT), captions.SRT.ContentType()},
		FileVTT:        {captionFile(cues, captions.WebVTT), captions.WebVTT.ContentType()},
	} {
		if err := r.putFile(ctx, j.ID, name, f.typ, f.data); err != nil {
			return err
		}
	}
	// The results may take the account past its storage where the
	// segments did not (a wav book and its chapters hold its audio twice).
	if r.overStorage(ctx, j, segmentBytes) {
		return nil
	}
	if _, err := r.jobs.SetJobStatus(ctx, j.ID, []string{store.JobRunning, store.JobQueued}, store.JobSucceeded, ""); err != nil {
		return err
	}
	return r.jobs.DropSegmentAudio(ctx, j.ID)
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// maxMarkTitle is the most characters of a chapter's title in the mp3's
// ID3 tag.
const maxMarkTitle = 200

// chapterMarks are a job's chapters, named (an untitled chapter is
// "Chapter N") and timed by their segments' samples, which are known
// before any file is encoded: the ID3 chapters of an mp3, the Vorbis
// comments of Opus and FLAC, and the chapters of the timestamps file all
// come from them.
func chapterMarks(spec Spec, segs []store.JobSegment) []id3.Chapter {
	marks := make([]id3.Chapter, len(spec.Chapters))
	var at time.Duration
	for i, s := range segs {
		if i == 0 || segs[i-1].Chapter != s.Chapter {
			marks[s.Chapter].Start = at
		}
		if s.Rate > 0 {
			at += time.Duration(s.Samples) * time.Second / time.Duration(s.Rate)
		}
		marks[s.Chapter].End = at
	}
	for i, t := range spec.Chapters {
		t = strings.TrimSpace(t)
		if t == "" {
			t = fmt.Sprintf("Chapter %d", i+1)
		}
		if r := []rune(t); len(r) > maxMarkTitle {
			t = string(r[:maxMarkTitle])
		}
		marks[i].Title = t
	}
	return marks
}

// maxCommentChapters is the most chapters Vorbis comments mark: the
// convention numbers them with three digits (CHAPTER001 to CHAPTER999).
const maxCommentChapters = 999

// chapterComments are the Vorbis comments (CHAPTERnnn=HH:MM:SS.mmm,
// CHAPTERnnnNAME=title) that mark a job's chapters in an Ogg Opus or FLAC
// file.
func chapterComments(marks []id3.Chapter) []string {
	var out []string
	for i, m := range marks[:min(len(marks), maxCommentChapters)] {
		d := m.Start
		stamp := fmt.Sprintf("%02d:%02d:%02d.%03d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60, d.Milliseconds()%1000)
		out = append(out, fmt.Sprintf("CHAPTER%03d=%s", i+1, stamp), fmt.Sprintf("CHAPTER%03dNAME=%s", i+1, m.Title))
	}
	return out
}

// inParallel runs the tasks, at most n at a time, and returns the first
// error; the tasks still running are cancelled then, and no more start.
func inParallel(ctx context.Context, n int, tasks []func(context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	slots := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, task := range tasks {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := task(ctx); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// encodeFile encodes segs, in order, through one encoder into the file
// name, after head's bytes (an ID3 tag, say); each segment's samples and
// words go to seen, if set, as they are read. It returns the file.
func (r *Runner) encodeFile(ctx context.Context, job, name string, codec encode.Codec, f encode.Format, head []byte,
	segs []store.JobSegment, seen func(store.JobSegment, []int16, []word)) (store.JobFile, error) {
	pw := &partWriter{ctx: ctx, jobs: r.jobs, f: store.JobFile{Job: job, Name: name, ContentType: codec.ContentType}}
	if _, err := pw.Write(head); err != nil {
		return pw.f, err
	}
	enc, err := r.cfg.Formats.NewEncoder(&offsetWriter{pw, int64(len(head))}, f)
	if err != nil {
		return pw.f, err
	}
	for _, s := range segs {
		full, err := r.jobs.JobSegment(ctx, job, s.Seq)
		if err != nil {
			return pw.f, err
		}
		pcm := make([]int16, len(full.PCM)/2)
		for i := range pcm {
			pcm[i] = int16(binary.LittleEndian.Uint16(full.PCM[2*i:]))
		}
		if seen != nil {
			var words []word
			if len(full.Words) > 0 {
				if err := json.Unmarshal(full.Words, &words); err != nil {
					return pw.f, err
				}
			}
			seen(full, pcm, words)
		}
		if err := enc.Encode(pcm); err != nil {
			return pw.f, err
		}
	}
	if err := enc.Close(); err != nil {
		return pw.f, err
	}
	return pw.f, pw.Close()
}

// copyFile keeps the bytes of the job's file from past skip as the file
// to, a part at a time.
func (r *Runner) copyFile(ctx context.Context, job, from, to string, skip int64) error {
	f, err := r.jobs.JobFile(ctx, job, from)
	if err != nil {
		return err
	}
	pw := &partWriter{ctx: ctx, jobs: r.jobs, f: store.JobFile{Job: job, Name: to, ContentType: f.ContentType}}
	for i := range f.Parts {
		b, err := r.jobs.JobFilePart(ctx, job, from, i)
		if err != nil {
			return err
		}
		cut := min(skip, int64(len(b)))
		skip -= cut
		if _, err := pw.Write(b[cut:]); err != nil {
			return err
		}
	}
	return pw.Close()
}

// putFile keeps a small file whole.
func (r *Runner) putFile(ctx context.Context, job, name, contentType string, data []byte) error {
	pw := &partWriter{ctx: ctx, jobs: r.jobs, f: store.JobFile{Job: job, Name: name, ContentType: contentType}}
	if _, err := pw.Write(data); err != nil {
		return err
	}
	return pw.Close()
}

// partWriter writes a file into the store in parts of PartSize. It
// holds the first part until Close, so that an encoder may rewrite its
// header there (WriteAt, as a complete clip's encoder does).
type partWriter struct {
	ctx   context.Context
	jobs  store.Jobs
	f     store.JobFile
	first []byte
	cur   []byte
}

func (w *partWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		buf := &w.cur
		if w.f.Parts == 0 {
			buf = &w.first
		}
		take := min(len(p), PartSize-len(*buf))
		*buf = append(*buf, p[:take]...)
		p = p[take:]
		w.f.Size += int64(take)
		if len(*buf) < PartSize {
			continue
		}
		if w.f.Parts > 0 {
			if err := w.jobs.PutJobFilePart(w.ctx, w.f.Job, w.f.Name, w.f.Parts, w.cur); err != nil {
				return 0, err
			}
			w.cur = w.cur[:0]
		}
		w.f.Parts++
	}
	return n, nil
}

// WriteAt rewrites bytes of the first part.
func (w *partWriter) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(w.first)) {
		return 0, fmt.Errorf("jobs: a rewrite at %d past the first part of %s", off, w.f.Name)
	}
	return copy(w.first[off:], p), nil
}

// Close keeps the last and the first part, then the file.
func (w *partWriter) Close() error {
	if w.f.Parts == 0 {
		w.f.Parts = 1 // the first part, not full
	} else if len(w.cur) > 0 {
		if err := w.jobs.PutJobFilePart(w.ctx, w.f.Job, w.f.Name, w.f.Parts, w.cur); err != nil {
			return err
		}
		w.f.Parts++
	}
	if err := w.jobs.PutJobFilePart(w.ctx, w.f.Job, w.f.Name, 0, append([]byte{}, w.first...)); err != nil {
		return err
	}
	return w.jobs.PutJobFile(w.ctx, w.f)
}

// offsetWriter is a partWriter seen from off, where an encoder's output
// starts after a head.
type offsetWriter struct {
	w   *partWriter
	off int64
}

func (o *offsetWriter) Write(p []byte) (int, error) { return o.w.Write(p) }

func (o *offsetWriter) WriteAt(p []byte, off int64) (int, error) { return o.w.WriteAt(p, off+o.off) }

var _ io.WriterAt = (*offsetWriter)(nil)
