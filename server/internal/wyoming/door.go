package wyoming

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/wire"
)

// busyLogEvery is how often, at most, refused connections are logged:
// once when the limit is first reached, then with the count refused
// since.
const busyLogEvery = time.Minute

// Door serves Wyoming connections over a core, and bounds them over all
// of its listeners.
type Door struct {
	core         *core.Core
	maxConns     int // 0: no limit
	eventTimeout time.Duration

	mu      sync.Mutex
	conns   int
	refused int       // refused since the last log line
	logged  time.Time // when refusals were last logged
}

// New returns the door of c that holds at most maxConns connections at
// once (0: no limit) and gives an event eventTimeout from its first
// byte to its last.
func New(c *core.Core, maxConns int, eventTimeout time.Duration) *Door {
	return &Door{core: c, maxConns: maxConns, eventTimeout: eventTimeout}
}

// Serve serves the connections of l, each speaking as account ("": the
// global voices only). A connection over the limit gets an error event
// (server_busy) and is closed. Serve returns when l fails, or nil when
// the core shuts down; it waits for its connections to end.
func (d *Door) Serve(l net.Listener, account string) error {
	stop := context.AfterFunc(d.core.Closing(), func() { l.Close() })
	defer stop()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if d.core.Closing().Err() != nil {
				return nil
			}
			return err
		}
		if !d.admit() {
			d.refuse(c)
			continue
		}
		conns.Go(func() {
			defer d.release()
			d.serveConn(c, account)
		})
	}
}

// refuse answers a connection over the limit with an error event,
// briefly (it is written in the accept loop), and closes it.
func (d *Door) refuse(c net.Conn) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	Write(c, "error", map[string]string{"code": wire.CodeServerBusy,
		"text": fmt.Sprintf("wyoming: the server holds its most connections (%d); try again later", d.maxConns)}, nil)
	c.Close()
}

// admit takes a connection slot, or reports that all are taken. A burst
// of refusals is logged once, then at most every busyLogEvery.
func (d *Door) admit() bool {
	d.mu.Lock()
	if d.maxConns == 0 || d.conns < d.maxConns {
		d.conns++
		d.mu.Unlock()
		return true
	}
	d.refused++
	refused, now := d.refused, time.Now()
	quiet := now.Sub(d.logged) < busyLogEvery
	if !quiet {
		d.refused, d.logged = 0, now
	}
	d.mu.Unlock()
	if !quiet {
		d.core.Log.Warn("server: Wyoming connection limit reached; new connections are refused until some close",
			"limit", d.maxConns, "refused", refused)
	}
	return false
}

// release gives back the slot of a connection that ended.
func (d *Door) release() {
	d.mu.Lock()
	d.conns--
	d.mu.Unlock()
}
