package core

import (
	"context"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tts"
)

// SpeakBackground is Speak for work the server took on and admitted
// earlier (a long-form job's segment, admitted with its job): the same
// checks, lexicons, SSML and tags, voices the account may use, crash
// cooldown and metrics, but no per-request limit and no place in the
// queue. Its sentences take render slots as any request's do (shared
// fairly between accounts), and render ahead only on slots nobody waits
// for.
func (c *Core) SpeakBackground(ctx context.Context, job Job, speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) (tts.Result, error) {
	job.Admitted = true
	return c.Speak(ctx, job, speak)
}

// admitJob admits job (AdmitSpeech), or for one admitted earlier checks
// only the crash cooldown of its account.
func (c *Core) admitJob(ctx context.Context, job Job) (end func(), werr *fault.Error) {
	if !job.Admitted {
		return c.AdmitSpeech(ctx, job.Request.Account)
	}
	if werr := c.crashCooldown(ctx, job.Request.Account); werr != nil {
		return nil, werr
	}
	return func() {}, nil
}
