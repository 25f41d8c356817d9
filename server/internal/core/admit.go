package core

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/throttle"
	"github.com/voxkit/voxkit/server/store"
)

// AdmitSpeech lets a speech request (a socket's utterance or context, a
// Wyoming synthesis) of account start: within the account's limits and
// with room in the queue in front of the render slots. It returns the
// function to call when it ends. Its refusals carry RetryAfter. An
// account in its crash cooldown (crashes.go) is refused, unless the
// caller is a gateway.
func (c *Core) AdmitSpeech(ctx context.Context, account string) (end func(), werr *fault.Error) {
	if c.Synth.Load().Waiting >= c.MaxQueue {
		return nil, &fault.Error{Status: http.StatusServiceUnavailable, Type: fault.TypeServer, Code: fault.CodeServerBusy,
			Message: "The server is busy: too many requests are waiting for synthesis. Retry shortly.", RetryAfter: time.Second}
	}
	if werr := c.crashCooldown(ctx, account); werr != nil {
		return nil, werr
	}
	end, err := c.limiter.Begin(ctx, account, c.Limits)
	var le *store.LimitError
	switch {
	case errors.As(err, &le):
		retry := max(1, int(le.RetryAfter.Seconds()+0.999))
		msg := fmt.Sprintf("Rate limit reached: at most %d speech requests per minute for this account; retry in %d s.", c.Limits.RequestsPerMinute, retry)
		if le.Concurrent {
			msg = fmt.Sprintf("Rate limit reached: at most %d concurrent speech requests for this account; retry when one ends.", c.Limits.Concurrent)
		}
		return nil, &fault.Error{Status: http.StatusTooManyRequests, Type: fault.TypeRateLimit, Code: fault.CodeRateLimit, Message: msg,
			RetryAfter: time.Duration(retry) * time.Second}
	case err != nil:
		c.Log.Error("server: counting a request against the limits", "err", err, "request_id", route.RequestID(ctx))
		return nil, fault.Internal(route.RequestID(ctx))
	}
	return end, nil
}

// loadGate is the engine.LoadGate of account's speech: each voice an
// engine loads for it (a voice or a clone not in memory) takes one of the
// account's Config.VoiceLoadsPerMinute, a bucket refilled evenly over the
// minute, counted in this server's memory (a load costs this server's
// CPU and memory, whatever the fleet). nil when there is no such limit,
// and for the gateway scope: a gateway's one account speaks for all of
// its users, whom the gateway's own limits count.
func (c *Core) loadGate(ctx context.Context, account string) engine.LoadGate {
	n := c.VoiceLoadsPerMinute
	if n <= 0 || route.GatewayCaller(ctx) {
		return nil
	}
	return func(string) error {
		k := throttle.Key{Name: "voice loads " + account, Rate: throttle.Rate{Burst: n, Every: time.Minute / time.Duration(n)}}
		if wait := c.loads.Reserve(k); wait > 0 {
			return fault.VoiceLoadLimit(n, wait)
		}
		return nil
	}
}
