package sockets

import (
	"time"

	"github.com/voxkit/voxkit/server/internal/core"
)

// Runtime is the socket runtime over one core: what a door with sockets
// holds to serve them (Serve, CheckUpgrade), in place of the core.
type Runtime struct{ c *core.Core }

// New returns the socket runtime of c.
func New(c *core.Core) *Runtime { return &Runtime{c} }

// Idle is how long a session may go without a message
// (core.Config.SocketIdle).
func (rt *Runtime) Idle() time.Duration { return rt.c.SocketIdle }
