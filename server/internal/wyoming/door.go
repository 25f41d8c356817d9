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
// of its listeners, and per peer address, so that one client cannot
// take every connection.
type Door struct {
	core         *core.Core
	maxConns     int // 0: no limit
	maxPeer      int // from one address; 0: no limit
	eventTimeout time.Duration

	mu      sync.Mutex
	conns   int
	peers   map[string]int // connections per peer address
	refused int            // refused since the last log line
	logged  time.Time      // when refusals were last logged
}

// New returns the door of c that holds at most maxConns connections at
// once (0: no limit), at most maxPeer of them from one address (0: no
// limit), and gives an event eventTimeout from its first byte to its
// last.
func New(c *core.Core, maxConns, maxPeer int, eventTimeout time.Duration) *Door {
	return &Door{core: c, maxConns: maxConns, maxPeer: maxPeer, eventTimeout: eventTimeout, peers: make(map[string]int)}
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
		peer := peerOf(c)
		if busy := d.admit(peer); busy != "" {
			d.refuse(c, busy)
			continue
		}
		conns.Go(func() {
			defer d.release(peer)
			d.serveConn(c, account)
		})
	}
}

// peerOf is the address (the IP) a connection comes from.
func peerOf(c net.Conn) string {
	addr := c.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// refuse answers a connection over a limit with an error event saying
// why, briefly (it is written in the accept loop), and closes it.
func (d *Door) refuse(c net.Conn, why string) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	Write(c, "error", map[string]string{"code": wire.CodeServerBusy, "text": why}, nil)
	c.Close()
}

// admit takes a connection slot for peer, or says why there is none:
// all are taken, or peer holds its share. A burst of refusals is logged
// once, then at most every busyLogEvery.
func (d *Door) admit(peer string) (busy string) {
	d.mu.Lock()
	switch {
	case d.maxConns > 0 && d.conns >= d.maxConns:
		busy = fmt.Sprintf("wyoming: the server holds its most connections (%d); try again later", d.maxConns)
	case d.maxPeer > 0 && d.peers[peer] >= d.maxPeer:
		busy = fmt.Sprintf("wyoming: the server holds its most connections from one address (%d); try again later", d.maxPeer)
	default:
		d.conns++
		d.peers[peer]++
		d.mu.Unlock()
		return ""
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
			"limit", d.maxConns, "per_address", d.maxPeer, "address", peer, "refused", refused)
	}
	return busy
}

// release gives back the slot of a connection from peer that ended.
func (d *Door) release(peer string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conns--
	if d.peers[peer]--; d.peers[peer] <= 0 {
		delete(d.peers, peer)
	}
}
