package tts

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/tags"
)

// DefaultAhead is how many sentences past the one being written a request
// may render ahead when Options.Ahead is 0.
const DefaultAhead = 8

// aheadSamples bounds the audio a request's look-ahead holds, in engine
// samples (4 MiB, about 44 s at 24 kHz): no sentence is started ahead
// while it holds more; those rendering go on, one sentence each.
const aheadSamples = 1 << 20

// ahead renders the sentences of a request after the one it writes on
// render slots that are free (tryAcquire: none while anything waits for
// one, nor while as many requests run as there are slots, and never more
// than the account's slots, Request.AccountSlots), one sentence per slot
// taken, the nearest first. A complete clip looks ahead from the start,
// a stream once its first audio is out (heard), so that other work on
// the machine never delays the first audio. The request writes
// them in order: a sentence rendered ahead is replayed from its chunks,
// as they come, through the request's own renderer, so that its audio,
// trims, effects, limits and word timings are those rendering it in turn
// gives. Its engine calls are the same (callOf), and engines render a call
// the same way wherever it runs (a seed is per call).
type ahead struct {
	s       *Synthesizer
	r       *renderer // only what does not change during the request is read
	sens    []tags.Sentence
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	account string
	most    int // Request.AccountSlots
	limit   int // sentences ahead

	mu      sync.Mutex
	cur     int                  // the sentence being written
	next    int                  // the first sentence not written nor taken ahead
	jobs    map[int][]*aheadPart // sentences taken ahead: their engine calls, in order
	held    int                  // samples held by the parts
	stopped bool
	// audible is set once the request's first audio is out (see heard):
	// a stream renders nothing ahead before, so that its first sentence
	// has the cores to itself.
	audible bool
}

// aheadPart is the audio of one engine call rendered ahead, as it comes.
type aheadPart struct {
	a      *ahead
	mu     sync.Mutex
	cond   sync.Cond
	chunks []engine.Chunk
	done   bool
	err    error
	// panicked is the value of the engine's panic, if it panicked.
	panicked any
}

// newAhead returns the look-ahead of a request writing sens, or nil when
// there is nothing to look ahead to or the Synthesizer renders none.
func (s *Synthesizer) newAhead(ctx context.Context, r *renderer, sens []tags.Sentence) *ahead {
	if len(sens) < 2 || s.ahead <= 0 {
		return nil
	}
	a := &ahead{s: s, r: r, sens: sens, account: r.req.Account, most: r.req.AccountSlots, limit: s.ahead,
		jobs: map[int][]*aheadPart{}, audible: !r.req.Format.Streaming}
	a.ctx, a.cancel = context.WithCancel(ctx)
	return a
}

// take returns the parts of sentence i rendered ahead, nil if it was not
// (the request renders it, and looks ahead once it holds its slot: see
// started).
func (a *ahead) take(i int) []*aheadPart {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	a.cur = i
	parts := a.jobs[i]
	delete(a.jobs, i)
	a.next = max(a.next, i+1)
	a.mu.Unlock()
	if parts != nil {
		a.fill() // the request needs no slot for i
	}
	return parts
}

// started is called when the request holds a slot of its own: the slots
// left free may render ahead.
func (a *ahead) started() {
	if a != nil {
		a.fill()
	}
}

// heard is called when audio of the request's is out to the client: a
// stream looks ahead from its first.
func (a *ahead) heard() {
	if a == nil {
		return
	}
	a.mu.Lock()
	first := !a.audible
	a.audible = true
	a.mu.Unlock()
	if first {
		a.fill()
	}
}

// fill starts rendering ahead on as many free slots as it may take.
func (a *ahead) fill() {
	for {
		i, parts, ok := a.claim()
		if !ok {
			return
		}
		go a.render(i, parts)
	}
}

// claim takes the next sentence and a slot for it, if the limits allow.
func (a *ahead) claim() (int, []*aheadPart, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped || !a.audible || a.next >= len(a.sens) || a.next > a.cur+a.limit || a.held >= aheadSamples {
		return 0, nil, false
	}
	// Every request running wants a slot for its next piece: a core is
	// idle only while fewer run than there are slots.
	if int(a.s.running.Load()) >= a.s.slots.size() {
		return 0, nil, false
	}
	if !a.s.slots.tryAcquire(a.account, a.most) {
		return 0, nil, false
	}
	i := a.next
	a.next++
	n := 1
	if _, _, ok := a.r.withBreaks(a.sens[i]); !ok {
		n = 0
		for _, p := range a.sens[i].Parts {
			if !p.IsEvent() {
				n++
			}
		}
	}
	parts := make([]*aheadPart, n)
	for k := range parts {
		parts[k] = &aheadPart{a: a}
		parts[k].cond.L = &parts[k].mu
	}
	a.jobs[i] = parts
	a.wg.Add(1)
	return i, parts, true
}

// render renders sentence i's engine calls into parts, in the slot claim
// took, then looks further ahead.
func (a *ahead) render(i int, parts []*aheadPart) {
	defer a.wg.Done()
	defer a.fill()
	defer a.s.slots.release(a.account)
	sen := a.sens[i]
	var calls []func() (call, error)
	if part, breaks, ok := a.r.withBreaks(sen); ok {
		calls = append(calls, func() (call, error) { return a.r.callOf(part, seams{}, breaks) })
	} else {
		for k, p := range sen.Parts {
			if !p.IsEvent() {
				calls = append(calls, func() (call, error) { return a.r.callOf(p, seamsOf(sen, k), nil) })
			}
		}
	}
	var err error
	for k, part := range parts {
		if err == nil {
			err = a.ctx.Err()
		}
		if err == nil {
			var c call
			if c, err = calls[k](); err == nil {
				err = part.run(a, c)
			}
		}
		part.finish(err)
	}
}

// run synthesizes c into p. A panic of the engine's is kept for replay
// to raise on the request's goroutine, where it was raised before
// rendering ahead (a server recovers it there), and ends the sentence.
func (p *aheadPart) run(a *ahead, c call) (err error) {
	defer func() {
		if v := recover(); v != nil {
			p.mu.Lock()
			p.panicked = v
			p.mu.Unlock()
			err = errPanicked
		}
	}()
	return a.synthesize(c, p)
}

// errPanicked ends a sentence rendered ahead whose engine call panicked.
var errPanicked = errors.New("tts: the engine panicked rendering ahead")

// synthesize runs c's engine call into part, holding its voice (see
// renderer.holdVoice) for the call.
func (a *ahead) synthesize(c call, part *aheadPart) error {
	ctx := engine.WithLoadGate(a.ctx, a.r.req.LoadGate)
	if h, ok := c.eng.(engine.VoiceHolder); ok {
		release, _, err := h.HoldVoice(ctx, c.v.EngineVoice)
		if err != nil {
			return err
		}
		defer release()
	}
	return c.eng.Synthesize(ctx, c.req, part.add)
}

// grow counts n more samples held (fewer, when negative).
func (a *ahead) grow(n int) {
	a.mu.Lock()
	a.held += n
	a.mu.Unlock()
}

// stop cancels what renders ahead and waits for it to end.
func (a *ahead) stop() {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.stopped = true
	a.mu.Unlock()
	a.cancel()
	a.wg.Wait()
}

// add keeps a chunk (a copy: the engine may reuse its buffers).
func (p *aheadPart) add(c engine.Chunk) error {
	c.Samples, c.Words = slices.Clone(c.Samples), slices.Clone(c.Words)
	p.a.grow(len(c.Samples))
	p.mu.Lock()
	p.chunks = append(p.chunks, c)
	p.cond.Broadcast()
	p.mu.Unlock()
	return nil
}

// finish ends the part with the engine call's error.
func (p *aheadPart) finish(err error) {
	p.mu.Lock()
	p.done, p.err = true, err
	p.cond.Broadcast()
	p.mu.Unlock()
}

// replay passes the part's chunks to emit as they come, then returns the
// engine call's error, as the engine's Synthesize would.
func (p *aheadPart) replay(emit engine.ChunkFunc) error {
	defer p.a.fill() // what it held is free
	for k := 0; ; k++ {
		p.mu.Lock()
		for k >= len(p.chunks) && !p.done {
			p.cond.Wait()
		}
		if k >= len(p.chunks) {
			err, v := p.err, p.panicked
			p.mu.Unlock()
			if v != nil {
				panic(v)
			}
			return err
		}
		c := p.chunks[k]
		p.chunks[k] = engine.Chunk{}
		p.mu.Unlock()
		p.a.grow(-len(c.Samples))
		if err := emit(c); err != nil {
			return err
		}
	}
}
