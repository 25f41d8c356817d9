package catalog

import (
	"context"
	"errors"
	"fmt"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/store"
)

// A voice cloned from a recording is loaded on demand: the catalog lists
// it from its record alone (store.VoiceHeader lists the clones without
// reading their samples), and a cloning engine that loads clones itself
// (engine.LazyCloner, engine/pocket) reads the sample from the store when
// the voice is first spoken, and forgets it again under the memory budget
// it shares with the voices (-voice-memory); a gateway's pool
// (server/upstream) reads a sample when a worker needs it, and keeps a
// few recently sent. A cloning engine that holds what it is given
// (engine.Cloner only) is given each sample, read one at a time.

// StoredVoices lists the clones of account in the store (every
// account's for ""), without their samples when the store can
// (store.VoiceHeader): a sample is 0.5 MB, and a list needs none.
func (c *Catalog) StoredVoices(ctx context.Context, account string) ([]store.Voice, error) {
	if h, ok := c.Store.(store.VoiceHeader); ok {
		return h.VoiceHeads(ctx, account)
	}
	return c.Store.Voices(ctx, account)
}

// loadClone makes the stored clone sv, cloned from a recording, speakable
// by cloner as cloneName.
func (c *Catalog) loadClone(cloner engine.Cloner, sv store.Voice) error {
	name := cloneName(sv.Account, sv.ID)
	if lazy, ok := cloner.(engine.LazyCloner); ok {
		account, id := sv.Account, sv.ID
		lazy.AddClone(name, func(ctx context.Context) ([]byte, error) { return c.cloneSample(ctx, account, id) })
		return nil
	}
	sample := sv.Sample
	if len(sample) == 0 { // listed without it
		var err error
		if sample, err = c.cloneSample(context.Background(), sv.Account, sv.ID); err != nil {
			return err
		}
	}
	return cloner.LoadClone(name, sample)
}

// cloneSample reads the sample of account's clone id from the store.
func (c *Catalog) cloneSample(ctx context.Context, account, id string) ([]byte, error) {
	sv, err := c.Store.Voice(ctx, account, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, fmt.Errorf("server: %w %q: deleted meanwhile", engine.ErrUnknownVoice, id)
	case err != nil:
		return nil, fmt.Errorf("server: reading voice clone %q: %w", id, err)
	case sv.Sample == nil:
		return nil, fmt.Errorf("server: %w %q: no longer a voice cloned from a recording", engine.ErrUnknownVoice, id)
	}
	return sv.Sample, nil
}
