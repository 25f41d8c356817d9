package upstream

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"sync"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/vocab"
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

// cloneSet is the voices cloned from recordings, by name (AddClone,
// LoadClone), and the samples read lately; mu guards both and every
// clone's fields.
type cloneSet struct {
	mu      sync.Mutex
	clones  map[string]*clone
	samples sampleCache
}

// clone is a voice cloned from a recording (AddClone, LoadClone). Its
// fields are guarded by cloneSet.mu.
type clone struct {
	name   string                                // the engine's name of it (AddClone)
	fetch  func(context.Context) ([]byte, error) // reads the sample; nil for LoadClone's
	sample []byte                                // nil unless held or cached
	hash   [sha256.Size]byte                     // the sample's, once read
	hashed bool
	// loading is closed when a read under way ends; cached is the
	// clone's place in cloneSet.samples (nil: not there); removed is set
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
	p.clones.put(name, &clone{name: name, fetch: fetch})
}

// LoadClone implements engine.Cloner: data, a sample a worker's cloning
// engine made, is spoken as name, and held. The gateway cannot check
// it: the worker that speaks it does.
func (p *Pool) LoadClone(name string, data []byte) error {
	if len(data) == 0 {
		return errors.New("upstream: an empty voice sample")
	}
	p.clones.put(name, &clone{sample: bytes.Clone(data), hash: sha256.Sum256(data), hashed: true})
	return nil
}

// UnloadClone implements engine.Cloner.
func (p *Pool) UnloadClone(name string) { p.clones.put(name, nil) }

// put makes c the clone of name (nil: none).
func (s *cloneSet) put(name string, c *clone) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.clones[name]; old != nil {
		old.removed = true
		s.uncache(old)
	}
	if c == nil {
		delete(s.clones, name)
		return
	}
	if s.clones == nil {
		s.clones = make(map[string]*clone)
	}
	s.clones[name] = c
}

// voice returns the clone name and its voice on the workers (nil
// and "" when name is no clone), reading its sample the first time.
func (s *cloneSet) voice(ctx context.Context, name string) (*clone, string, error) {
	s.mu.Lock()
	c := s.clones[name]
	switch {
	case c == nil:
		s.mu.Unlock()
		return nil, "", nil
	case c.hashed:
		sum := c.hash
		s.mu.Unlock()
		return c, vocab.SampleVoiceOf(sum), nil
	}
	s.mu.Unlock()
	_, voice, err := s.sampleOf(ctx, c)
	return c, voice, err
}

// sampleOf returns c's sample and its voice on the workers: the one held
// or cached, else read with c.fetch (one read at a time: others wait for
// it) and cached.
func (s *cloneSet) sampleOf(ctx context.Context, c *clone) ([]byte, string, error) {
	s.mu.Lock()
	for c.sample == nil && c.loading != nil {
		wait := c.loading
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
		s.mu.Lock()
	}
	if c.sample != nil {
		if c.cached != nil {
			s.samples.lru.MoveToFront(c.cached)
		}
		sample, sum := c.sample, c.hash
		s.mu.Unlock()
		return sample, vocab.SampleVoiceOf(sum), nil
	}
	// Reading a sample is a voice load, counted against the account
	// whose speech causes it (engine.LoadGate), as a worker counts its
	// own loads.
	if err := engine.AllowLoad(ctx, c.name); err != nil {
		s.mu.Unlock()
		return nil, "", err
	}
	c.loading = make(chan struct{})
	s.mu.Unlock()
	sample, err := c.fetch(ctx)
	if err == nil && len(sample) == 0 {
		err = errors.New("upstream: an empty voice sample")
	}
	var sum [sha256.Size]byte
	if err == nil {
		sum = sha256.Sum256(sample)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	close(c.loading)
	c.loading = nil
	if err != nil {
		return nil, "", err
	}
	c.hash, c.hashed = sum, true
	if !c.removed {
		s.cache(c, sample)
	}
	return sample, vocab.SampleVoiceOf(sum), nil
}

// cache keeps sample as c's, dropping the least recently used samples
// past maxCachedSamples; a sample larger than that is not kept.
// s.mu is held.
func (s *cloneSet) cache(c *clone, sample []byte) {
	if len(sample) > maxCachedSamples {
		return
	}
	c.sample, c.cached = sample, s.samples.lru.PushFront(c)
	s.samples.bytes += len(sample)
	for s.samples.bytes > maxCachedSamples {
		s.uncache(s.samples.lru.Back().Value.(*clone))
	}
}

// uncache drops c's sample from the cache, if there. s.mu is held.
func (s *cloneSet) uncache(c *clone) {
	if c.cached == nil {
		return
	}
	s.samples.lru.Remove(c.cached)
	s.samples.bytes -= len(c.sample)
	c.sample, c.cached = nil, nil
}

// CachedSamples is the number of clones' samples the pool holds read
// (AddClone's, not LoadClone's), and their bytes.
func (p *Pool) CachedSamples() (n, bytes int) {
	p.clones.mu.Lock()
	defer p.clones.mu.Unlock()
	return p.clones.samples.lru.Len(), p.clones.samples.bytes
}
