package pocket

import (
	"context"
	"errors"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/onnx"
)

// Clones added with AddClone are held in memory only while they are used:
// the first request for one reads it (its fetch) and decodes it, and it
// stays while requests hold it (HoldVoice … release, or one Synthesize).
// Loaded, its latents count in Options.Memory; when the budget is passed,
// the least recently used things that no request holds — clones, or
// another engine's voices sharing the budget — are unloaded, a clone to
// be read again when next spoken (onnx.Memory.MakeRoom). Others that come for a clone while it
// loads wait for that load rather than start their own.

var (
	_ engine.LazyCloner  = (*Engine)(nil)
	_ engine.VoiceHolder = (*Engine)(nil)
)

// lazyClone is a clone added with AddClone. Its fields are guarded by
// Engine.lz.
type lazyClone struct {
	fetch   func(context.Context) ([]byte, error)
	v       *Voice        // nil while not loaded
	size    int64         // what v counts in Options.Memory
	loading chan struct{} // closed when a load under way ends
	holds   int           // requests using v
	used    uint64        // Options.Memory's Tick when last released
}

// ClonesLoaded is the number of clones added with AddClone that are in
// memory now, and the bytes they count in Options.Memory.
func (e *Engine) ClonesLoaded() (n int, bytes int64) {
	e.lz.Lock()
	defer e.lz.Unlock()
	for _, c := range e.lazy {
		if c.v != nil {
			n++
			bytes += c.size
		}
	}
	return n, bytes
}

// AddClone implements engine.LazyCloner: name speaks the voice that fetch
// reads (encoded by CloneVoice), read when it is first spoken.
func (e *Engine) AddClone(name string, fetch func(context.Context) ([]byte, error)) {
	e.RemoveVoice(name)
	e.lz.Lock()
	defer e.lz.Unlock()
	e.lazy[name] = &lazyClone{fetch: fetch}
}

// forget drops the clone name added with AddClone, if any. A request
// holding it finishes with it. e.lz is held.
func (e *Engine) forget(name string) {
	if c := e.lazy[name]; c != nil {
		if c.v != nil {
			e.opts.Memory.Add(-c.size)
		}
		delete(e.lazy, name)
	}
}

// HoldVoice implements engine.VoiceHolder: a clone added with AddClone is
// loaded unless it is, and kept until release; other voices need no
// holding (release does nothing).
func (e *Engine) HoldVoice(ctx context.Context, voice string) (release func(), load time.Duration, err error) {
	c, _, load, err := e.holdClone(ctx, voice)
	if err != nil || c == nil {
		return func() {}, load, err
	}
	return func() { e.releaseClone(c) }, load, nil
}

// holdClone holds the clone name added with AddClone, loading it first
// unless it is loaded, and returns it and its voice; nil when name is no
// such clone. load is the time spent loading it or waiting for another
// caller's load.
func (e *Engine) holdClone(ctx context.Context, name string) (*lazyClone, *Voice, time.Duration, error) {
	start := time.Now()
	waited := false
	e.lz.Lock()
	for {
		c := e.lazy[name]
		switch {
		case c == nil:
			e.lz.Unlock()
			return nil, nil, 0, nil
		case c.v != nil:
			c.holds++
			v := c.v
			e.lz.Unlock()
			if !waited {
				return c, v, 0, nil
			}
			return c, v, time.Since(start), nil
		case c.loading != nil:
			waited = true
			wait := c.loading
			e.lz.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, nil, time.Since(start), ctx.Err()
			}
			e.lz.Lock()
			continue
		}
		// A load for this caller: its gate may refuse it.
		if err := engine.AllowLoad(ctx, name); err != nil {
			e.lz.Unlock()
			return nil, nil, 0, err
		}
		c.loading = make(chan struct{})
		e.lz.Unlock()
		v, err := e.readClone(ctx, c.fetch)
		e.lz.Lock()
		close(c.loading)
		c.loading = nil
		waited = true
		if err != nil {
			e.lz.Unlock() // not kept: the next request reads it again
			return nil, nil, time.Since(start), err
		}
		if e.lazy[name] != c {
			continue // replaced or removed meanwhile: take what is there now
		}
		c.v, c.size, c.holds = v, 4*int64(len(v.Latents)), 1
		e.opts.Memory.Add(c.size)
		e.lz.Unlock()
		e.opts.Memory.MakeRoom()
		e.log.Debug("pocket: clone loaded", "voice", name, "seconds", time.Since(start).Seconds())
		return c, v, time.Since(start), nil
	}
}

// readClone reads and decodes a clone with fetch.
func (e *Engine) readClone(ctx context.Context, fetch func(context.Context) ([]byte, error)) (*Voice, error) {
	data, err := fetch(ctx)
	if err != nil {
		return nil, err
	}
	return e.decodeClone(data)
}

// releaseClone ends a hold of holdClone's.
func (e *Engine) releaseClone(c *lazyClone) {
	e.lz.Lock()
	c.holds--
	c.used = e.opts.Memory.Tick()
	e.lz.Unlock()
	e.opts.Memory.MakeRoom()
}

// residentClones are an Engine's loaded clones as Options.Memory sees
// them: MakeRoom forgets the least recently used that no request holds.
type residentClones struct{ e *Engine }

var _ onnx.Resident = residentClones{}

// lru returns the least recently used loaded clone that no request holds,
// or nil. e.lz is held.
func (e *Engine) lru() *lazyClone {
	var lru *lazyClone
	for _, c := range e.lazy {
		if c.v != nil && c.holds == 0 && (lru == nil || c.used < lru.used) {
			lru = c
		}
	}
	return lru
}

// Oldest implements onnx.Resident.
func (r residentClones) Oldest() (uint64, bool) {
	r.e.lz.Lock()
	defer r.e.lz.Unlock()
	if c := r.e.lru(); c != nil {
		return c.used, true
	}
	return 0, false
}

// Unload implements onnx.Resident.
func (r residentClones) Unload(stamp uint64) bool {
	r.e.lz.Lock()
	defer r.e.lz.Unlock()
	c := r.e.lru()
	if c == nil || c.used != stamp {
		return false
	}
	c.v = nil
	r.e.opts.Memory.Add(-c.size)
	return true
}

// decodeClone decodes a voice made by CloneVoice and checks it against
// its model; a voice whose model is not loaded is taken as it is (see
// LoadClone).
func (e *Engine) decodeClone(data []byte) (*Voice, error) {
	var v Voice
	if err := v.UnmarshalBinary(data); err != nil {
		return nil, err
	}
	m, err := e.model(v.Model)
	switch {
	case errors.Is(err, ErrUnknownModel):
		return &v, nil
	case err != nil:
		return nil, err
	}
	if err := m.fits(&v); err != nil {
		return nil, err
	}
	return &v, nil
}
