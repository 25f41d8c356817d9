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
// fairly between accounts), one at a time: it renders nothing ahead
// (accountSlots), leaving the other slots to interactive speech.
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

// accountSlots is the most render slots job's request may hold to render
// ahead (tts.Request.AccountSlots): the account's concurrency limit, and
// one for work admitted earlier, which so renders no sentence ahead and
// leaves the other slots to interactive speech.
func (c *Core) accountSlots(job Job) int {
	if job.Admitted {
		return 1
	}
	return c.Limits.Concurrent
}
