package upstream

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"errors"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/wire"
)

// A clone's sample is read when a worker needs it. AddClone
// (engine.LazyCloner) keeps only how to read it (fetch: the gateway's
// store). The gateway names the voice to a worker by the sample's SHA-256
// (wire.SampleVoice) and sends the sample itself only to a worker that
// does not hold it: the first piece a worker gets in the voice, or one it
// answers 409 voice_sample_needed. The first piece spoken in a clone
// reads its sample, and the clone keeps the hash (32 bytes) from then on;
// the sample stays in a cache of the samples sent lately, at most
// maxCachedSamples bytes in all, the least recently used dropped first,
// so a clone in use is not read from the store piece after piece while
// the clones not spoken hold nothing. A sample given by LoadClone is held
// as it is given.

var _ engine.LazyCloner = (*Pool)(nil)

// maxCachedSamples bounds the bytes of the samples the gateway keeps
// read: about 32 PocketTTS voices of 10 s (0.5 MB each).
const maxCachedSamples = 16 << 20

// clone is a voice cloned from a recording (AddClone, LoadClone). Its
// fields are guarded by Pool.clonesMu.
type clone struct {
	name   string                                // the engine's name of it (AddClone)
	fetch  func(context.Context) ([]byte, error) // reads the sample; nil for LoadClone's
	sample []byte                                // nil unless held or cached
	hash   [sha256.Size]byte                     // the sample's, once read
	hashed bool
	// loading is closed when a read under way ends; cached is the
	// clone's place in Pool.samples (nil: not there); removed is set
	// once the clone is replaced or unloaded.
	loading chan struct{}
	cached  *list.Element
	removed bool
}

// sampleCache holds the samples read lately, the most recent first.
type sampleCache struct {
	lru   list.List // of *clone
	bytes int
}

// AddClone implements engine.LazyCloner: name speaks the sample fetch
// reads, read when a piece in it must carry it.
func (p *Pool) AddClone(name string, fetch func(context.Context) ([]byte, error)) {
	p.putClone(name, &clone{name: name, fetch: fetch})
}

// LoadClone implements engine.Cloner: data, a sample a worker's cloning
// engine made, is spoken as name, and held. The gateway cannot check
// it: the worker that speaks it does.
func (p *Pool) LoadClone(name string, data []byte) error {
	if len(data) == 0 {
		return errors.New("upstream: an empty voice sample")
	}
	p.putClone(name, &clone{sample: bytes.Clone(data), hash: sha256.Sum256(data), hashed: true})
	return nil
}

// UnloadClone implements engine.Cloner.
func (p *Pool) UnloadClone(name string) { p.putClone(name, nil) }

// putClone makes c the clone of name (nil: none).
func (p *Pool) putClone(name string, c *clone) {
	p.clonesMu.Lock()
	defer p.clonesMu.Unlock()
	if old := p.clones[name]; old != nil {
		old.removed = true
		p.uncache(old)
	}
	if c == nil {
		delete(p.clones, name)
		return
	}
	if p.clones == nil {
		p.clones = make(map[string]*clone)
	}
	p.clones[name] = c
}

// cloneVoice returns the clone name and its voice on the workers (nil
// and "" when name is no clone), reading its sample the first time.
func (p *Pool) cloneVoice(ctx context.Context, name string) (*clone, string, error) {
	p.clonesMu.Lock()
	c := p.clones[name]
	switch {
	case c == nil:
		p.clonesMu.Unlock()
		return nil, "", nil
	case c.hashed:
		sum := c.hash
		p.clonesMu.Unlock()
		return c, wire.SampleVoiceOf(sum), nil
	}
	p.clonesMu.Unlock()
	_, voice, err := p.sampleOf(ctx, c)
	return c, voice, err
}

// sampleOf returns c's sample and its voice on the workers: the one held
// or cached, else read with c.fetch (one read at a time: others wait for
// it) and cached.
func (p *Pool) sampleOf(ctx context.Context, c *clone) ([]byte, string, error) {
	p.clonesMu.Lock()
	for c.sample == nil && c.loading != nil {
		wait := c.loading
		p.clonesMu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
		p.clonesMu.Lock()
	}
	if c.sample != nil {
		if c.cached != nil {
			p.samples.lru.MoveToFront(c.cached)
		}
		sample, sum := c.sample, c.hash
		p.clonesMu.Unlock()
		return sample, wire.SampleVoiceOf(sum), nil
	}
	// Reading a sample is a voice load, counted against the account
	// whose speech causes it (engine.LoadGate), as a worker counts its
	// own loads.
	if err := engine.AllowLoad(ctx, c.name); err != nil {
		p.clonesMu.Unlock()
		return nil, "", err
	}
	c.loading = make(chan struct{})
	p.clonesMu.Unlock()
	sample, err := c.fetch(ctx)
	if err == nil && len(sample) == 0 {
		err = errors.New("upstream: an empty voice sample")
	}
	var sum [sha256.Size]byte
	if err == nil {
		sum = sha256.Sum256(sample)
	}
	p.clonesMu.Lock()
	defer p.clonesMu.Unlock()
	close(c.loading)
	c.loading = nil
	if err != nil {
		return nil, "", err
	}
	c.hash, c.hashed = sum, true
	if !c.removed {
		p.cache(c, sample)
	}
	return sample, wire.SampleVoiceOf(sum), nil
}

// cache keeps sample as c's, dropping the least recently used samples
// past maxCachedSamples; a sample larger than that is not kept.
// p.clonesMu is held.
func (p *Pool) cache(c *clone, sample []byte) {
	if len(sample) > maxCachedSamples {
		return
	}
	c.sample, c.cached = sample, p.samples.lru.PushFront(c)
	p.samples.bytes += len(sample)
	for p.samples.bytes > maxCachedSamples {
		p.uncache(p.samples.lru.Back().Value.(*clone))
	}
}

// uncache drops c's sample from the cache, if there. p.clonesMu is held.
func (p *Pool) uncache(c *clone) {
	if c.cached == nil {
		return
	}
	p.samples.lru.Remove(c.cached)
	p.samples.bytes -= len(c.sample)
	c.sample, c.cached = nil, nil
}

// CachedSamples is the number of clones' samples the pool holds read
// (AddClone's, not LoadClone's), and their bytes.
func (p *Pool) CachedSamples() (n, bytes int) {
	p.clonesMu.Lock()
	defer p.clonesMu.Unlock()
	return p.samples.lru.Len(), p.samples.bytes
}
