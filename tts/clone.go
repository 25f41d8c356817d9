package tts

import (
	"context"
	"errors"

	"github.com/voxkit/voxkit/engine"
)

// ErrNoCloner is CloneVoice's error when no engine makes voices from
// recordings.
var ErrNoCloner = errors.New("tts: no engine clones voices")

// CloneVoice makes a voice of req's recording with the cloning engine
// (Cloner) in a render slot of account: encoding a recording costs CPU
// as speech does, so it waits its turn among the account's and others'
// synthesis. It returns what engine.Cloner.CloneVoice returns.
func (s *Synthesizer) CloneVoice(ctx context.Context, account string, req engine.CloneRequest) ([]byte, error) {
	c, _ := s.Cloner()
	if c == nil {
		return nil, ErrNoCloner
	}
	if err := s.slots.acquire(ctx, account, nil); err != nil {
		return nil, err
	}
	defer s.slots.release(account)
	return c.CloneVoice(ctx, req)
}
