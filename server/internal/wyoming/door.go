package wyoming

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/throttle"
	"github.com/voxkit/voxkit/voices"
)

// busyLogEvery is how often, at most, refused connections are logged:
// once when the limit is first reached, then with the count refused
// since.
const busyLogEvery = time.Minute

// Door serves Wyoming connections over a core, and bounds them over all
// of its listeners, and per peer address, so that one client cannot
// take every connection.
type Door struct {
	Rooms
	eventTimeout time.Duration
	conns        throttle.Conns

	mu      sync.Mutex
	refused int       // refused since the last log line
	logged  time.Time // when refusals were last logged
}

// Rooms are what the door uses of the core and the catalog, and the
// core's settings it applies: a connection's idle time, each write's.
type Rooms struct {
	Core               core.Speaker
	Voices             Voices
	Log                *slog.Logger
	Idle, WriteTimeout time.Duration // 0 or less: none
}

// Voices is what the door asks of the catalog room.
type Voices interface {
	Voice(account, name string) (voices.Voice, *fault.Error)
	List(account string) []voices.Voice
}

// New returns the door of rooms that holds at most maxConns connections at
// once (0: no limit), at most maxPeer of them from one address (0: no
// limit), and gives an event eventTimeout from its first byte to its
// last.
func New(rooms Rooms, maxConns, maxPeer int, eventTimeout time.Duration) *Door {
	return &Door{Rooms: rooms, conns: throttle.Conns{Max: maxConns, PerPeer: maxPeer}, eventTimeout: eventTimeout}
}

// Serve serves the connections of l, each speaking as account ("": the
// global voices only). A connection over the limit gets an error event
// (server_busy) and is closed. Serve returns when l fails, or nil when
// the core shuts down; it waits for its connections to end.
func (d *Door) Serve(l net.Listener, account string) error {
	stop := context.AfterFunc(d.Core.Closing(), func() { l.Close() })
	defer stop()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if d.Core.Closing().Err() != nil {
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
			defer d.conns.Release(peer)
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
	Write(c, "error", map[string]string{"code": fault.CodeServerBusy, "text": why}, nil)
	c.Close()
}

// admit takes a connection slot for peer, or says why there is none:
// all are taken, or peer holds its share. A burst of refusals is logged
// once, then at most every busyLogEvery.
func (d *Door) admit(peer string) (busy string) {
	ok, peerFull := d.conns.Take(peer)
	switch {
	case ok:
		return ""
	case peerFull:
		busy = fmt.Sprintf("wyoming: the server holds its most connections from one address (%d); try again later", d.conns.PerPeer)
	default:
		busy = fmt.Sprintf("wyoming: the server holds its most connections (%d); try again later", d.conns.Max)
	}
	d.mu.Lock()
	d.refused++
	refused, now := d.refused, time.Now()
	quiet := now.Sub(d.logged) < busyLogEvery
	if !quiet {
		d.refused, d.logged = 0, now
	}
	d.mu.Unlock()
	if !quiet {
		d.Log.Warn("server: Wyoming connection limit reached; new connections are refused until some close",
			"limit", d.conns.Max, "per_address", d.conns.PerPeer, "address", peer, "refused", refused)
	}
	return busy
}
