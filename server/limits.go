package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
)

// DefaultMaxQueue is how many pieces of text may wait for a render slot
// when Options.MaxQueue is 0.
const DefaultMaxQueue = 64

// admitSpeech lets a speech request (or WebSocket utterance) of account
// start: within the account's limits and with room in the queue in front
// of the render slots. It returns the function to call when it ends.
func (s *Server) admitSpeech(ctx context.Context, w http.ResponseWriter, account string) (end func(), werr *wire.Error) {
	if s.synth.Load().Waiting >= s.maxQueue {
		if w != nil {
			w.Header().Set("Retry-After", "1")
		}
		return nil, &wire.Error{Status: http.StatusServiceUnavailable, Type: wire.TypeServer, Code: wire.CodeServerBusy,
			Message: "The server is busy: too many requests are waiting for synthesis. Retry shortly."}
	}
	end, err := s.limiter.Begin(ctx, account, s.limits)
	var le *store.LimitError
	switch {
	case errors.As(err, &le):
		retry := max(1, int(le.RetryAfter.Seconds()+0.999))
		if w != nil {
			w.Header().Set("Retry-After", strconv.Itoa(retry))
		}
		msg := fmt.Sprintf("Rate limit reached: at most %d speech requests per minute for this account; retry in %d s.", s.limits.RequestsPerMinute, retry)
		if le.Concurrent {
			msg = fmt.Sprintf("Rate limit reached: at most %d concurrent speech requests for this account; retry when one ends.", s.limits.Concurrent)
		}
		return nil, &wire.Error{Status: http.StatusTooManyRequests, Type: wire.TypeRateLimit, Code: wire.CodeRateLimit, Message: msg}
	case err != nil:
		s.log.Error("server: counting a request against the limits", "err", err, "request_id", RequestID(ctx))
		return nil, wire.Internal(RequestID(ctx))
	}
	return end, nil
}
