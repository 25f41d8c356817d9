package testserver

import (
	"context"

	"github.com/voxkit/voxkit/engine"
)

// gate holds each sentence until the test lets it through, and reports
// its text as it arrives.
type Gate struct {
	engine.Engine
	Arrived chan string
	Next    chan struct{}
	Open    chan struct{} // closed: let everything through
}

func (g Gate) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	g.Arrived <- req.Text
	select {
	case <-g.Next:
	case <-g.Open:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.Engine.Synthesize(ctx, req, emit)
}
