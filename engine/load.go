package engine

import "context"

// LazyCloner is implemented by cloners (Cloner) that can take a clone
// without holding it: AddClone makes name speakable as LoadClone does,
// but the engine reads data by calling fetch only when the clone is
// first spoken (HoldVoice, or Synthesize), and may forget it again to
// make room (a memory budget), reading it again when it is next spoken.
// UnloadClone forgets it for good. A server holding many accounts' clones
// keeps only the ones in use in memory this way.
type LazyCloner interface {
	Cloner
	// AddClone makes name speakable, its data (made by CloneVoice) read by
	// fetch when needed, replacing a clone of that name. fetch's error
	// is the speech's; it is called with the speaking request's context.
	AddClone(name string, fetch func(ctx context.Context) ([]byte, error))
}

// LoadGate is asked by an engine that loads a voice on first use
// (VoiceHolder, LazyCloner) before it starts a load for a caller whose
// context carries it (WithLoadGate): an error refuses the load, and the
// speech fails with it. A server counts voice loads against the account
// that causes them this way; waiting for another caller's load, or
// speaking a loaded voice, asks nothing.
type LoadGate func(voice string) error

type loadGateKey struct{}

// WithLoadGate returns ctx carrying gate (nil: none).
func WithLoadGate(ctx context.Context, gate LoadGate) context.Context {
	if gate == nil {
		return ctx
	}
	return context.WithValue(ctx, loadGateKey{}, gate)
}

// AllowLoad asks ctx's LoadGate, if any, whether voice may be loaded.
func AllowLoad(ctx context.Context, voice string) error {
	if gate, ok := ctx.Value(loadGateKey{}).(LoadGate); ok {
		return gate(voice)
	}
	return nil
}
