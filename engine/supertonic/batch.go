package supertonic

import (
	"context"
	"sync"
	"sync/atomic"
)

// DefaultMaxBatch is the most chunks run as one batch when
// Options.MaxBatch is 0.
const DefaultMaxBatch = 8

// batcher runs a model's chunks, from whichever requests, in batches. A
// chunk that finds fewer than workers batches running starts one at
// once, so a lone request waits for nothing; chunks that come while every
// worker is busy wait in the queue and go together, up to max in a batch,
// when a worker is free. So batches form only while the model is busy,
// and a request's chunk never waits for a timer.
type batcher struct {
	m       *model
	max     int // most jobs in a batch
	workers int // most batches running at once

	mu      sync.Mutex
	queue   []*job
	running int
	largest int // the largest batch run, for tests
	batches int // batches run and the jobs in them, for benchmarks
	jobs    int
}

func newBatcher(m *model, maxBatch, workers int) *batcher {
	return &batcher{m: m, max: maxBatch, workers: max(workers, 1)}
}

// do runs j in the next batch and returns its audio, or j.ctx's error
// once it is done first (the batch runs on for the others).
func (b *batcher) do(j *job) ([]float32, error) {
	j.done = make(chan struct{})
	b.mu.Lock()
	b.queue = append(b.queue, j)
	if b.running < b.workers {
		b.running++
		go b.work()
	}
	b.mu.Unlock()
	select {
	case <-j.done:
		return j.wav, j.err
	case <-j.ctx.Done():
		return nil, j.ctx.Err()
	}
}

// work runs batches while the queue holds jobs.
func (b *batcher) work() {
	for {
		b.mu.Lock()
		batch := b.take()
		if len(batch) == 0 {
			b.running--
			b.mu.Unlock()
			return
		}
		b.largest = max(b.largest, len(batch))
		b.batches++
		b.jobs += len(batch)
		b.mu.Unlock()
		b.run(batch)
	}
}

// padPerChunk is how much padding, in ids of text, a batch may add for
// each chunk it takes beside its first: about half what a run's fixed cost
// comes to. A batch pads every chunk to its longest, and on a CPU batching
// saves only that fixed cost (measured on the full-size generated model,
// one thread: about 35 ms a run, the time of 8 ids; 10 % of a sentence's
// time, 30 % of a few words'), so chunks of unlike lengths run apart.
const padPerChunk = 4

// take removes the next batch from the queue: the first job still wanted
// and, in their order, up to max−1 others that run with it: the same
// steps and style shapes, and lengths close enough that padding them to
// the longest adds at most padPerChunk ids of work for each chunk beside
// the first. Jobs whose requests have ended are dropped. b.mu is held.
func (b *batcher) take() []*job {
	var batch, rest []*job
	var longest, sum float64
	for _, j := range b.queue {
		if j.ctx.Err() != nil {
			j.err = j.ctx.Err()
			close(j.done)
			continue
		}
		w := j.work()
		if len(batch) == 0 || len(batch) < b.max && j.steps == batch[0].steps &&
			j.st.ttlDims == batch[0].st.ttlDims && j.st.dpDims == batch[0].st.dpDims &&
			float64(len(batch)+1)*max(longest, w)-(sum+w) <= padPerChunk*float64(len(batch)) {
			batch = append(batch, j)
			longest, sum = max(longest, w), sum+w
			continue
		}
		rest = append(rest, j)
	}
	b.queue = rest
	return batch
}

// work is about how much j costs, in ids: its text's length over its
// speed (the model gives a character about the same time, so the frames
// it makes go as that).
func (j *job) work() float64 { return float64(len(j.ids)) / float64(j.speed) }

// run runs one batch with a context done when every job's context is
// (one job's own context when it is alone), and tells its jobs.
func (b *batcher) run(batch []*job) {
	ctx := batch[0].ctx
	if len(batch) > 1 {
		var cancel func()
		ctx, cancel = allDone(batch)
		defer cancel()
	}
	b.m.run(ctx, batch)
	for _, j := range batch {
		close(j.done)
	}
}

// allDone returns a context done once every job's context is done, and
// its cancel.
func allDone(jobs []*job) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var left atomic.Int64
	left.Store(int64(len(jobs)))
	stops := make([]func() bool, len(jobs))
	for i, j := range jobs {
		stops[i] = context.AfterFunc(j.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}
