package runner

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// progress is how far a segment's rendering is: the sentences spoken and
// the characters of its text up to the end of the last word spoken (for
// a voice that times no words, the sentences' share of its text).
type progress struct {
	sentences, chars atomic.Int64
	// text and total are the segment's characters and sentences.
	text, total int64
}

func newProgress(seg store.JobSegment) *progress {
	return &progress{text: int64(utf8.RuneCountInString(seg.Text)), total: int64(seg.Sentences)}
}

// sentence counts a sentence spoken (tts.Request.OnSentence).
func (p *progress) sentence(d tts.SentenceDone) {
	n := p.sentences.Add(1)
	chars := p.chars.Load()
	for _, w := range d.Words {
		chars = max(chars, int64(w.CharEnd))
	}
	if len(d.Words) == 0 && p.total > 0 {
		chars = max(chars, p.text*min(n, p.total)/p.total)
	}
	p.chars.Store(chars)
}

// report writes p into the job's progress in the store every
// Config.Poll while the segment renders, when it moved: a book's
// progress moves within its segments, not only between them. The store
// keeps the counts rising, within the segment's own.
func (r *Runner) report(ctx context.Context, job string, seq int, p *progress) {
	t := time.NewTicker(r.cfg.Poll)
	defer t.Stop()
	var sentences, chars int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s, c := p.sentences.Load(), p.chars.Load()
		if s == sentences && c == chars {
			continue
		}
		sentences, chars = s, c
		if err := r.jobs.SegmentProgress(ctx, job, seq, int(s), int(c)); err != nil && ctx.Err() == nil {
			r.log.Warn("jobs: counting a segment's progress", "job", job, "seq", seq, "err", err)
		}
	}
}

// CodeStorageExceeded is the error code of a job failed because its
// account's jobs came to hold more audio than Config.Storage.
const CodeStorageExceeded = "storage_exceeded"

// overStorage fails j, removing its audio, when its account's jobs hold
// more audio than Config.Storage (a segment just kept, or the results
// just encoded, took them past it), not counting leaving bytes that are
// about to be dropped (the segments' audio once the results exist); it
// reports whether j ended so.
func (r *Runner) overStorage(ctx context.Context, j store.Job, leaving int64) bool {
	if r.cfg.Storage <= 0 {
		return false
	}
	held, err := r.jobs.JobBytes(ctx, j.Account)
	held -= leaving
	if err != nil || held <= r.cfg.Storage {
		return false
	}
	msg := fmt.Sprintf("Job storage exceeded: the account's jobs came to hold %d bytes of audio while this one rendered, more than the limit of %d (-job-storage); its audio was removed. Delete finished jobs, or submit a shorter text.",
		held, r.cfg.Storage)
	ok, err := r.jobs.FailJob(ctx, j.ID, CodeStorageExceeded, msg)
	if err != nil {
		r.log.Error("jobs: failing a job over its storage", "job", j.ID, "err", err)
	}
	if ok {
		r.stop(j.ID)
	}
	return true
}
