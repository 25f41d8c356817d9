package server

import (
	"log/slog"
	"sync"
	"time"
)

// DefaultWyomingMaxConns is the most Wyoming connections held at once
// when Options.WyomingMaxConns is 0: far more than Home Assistant opens
// (one per synthesis), few enough that what they may hold is bounded (an
// idle connection costs about 10 KiB; one reading an event at most its
// header line and data, 1.1 MiB, for at most the event timeout).
const DefaultWyomingMaxConns = 256

// DefaultWyomingEventTimeout is the time a Wyoming event may take from
// its first byte to its last when Options.WyomingEventTimeout is 0.
const DefaultWyomingEventTimeout = 10 * time.Second

// wyomingBusyLogEvery is how often, at most, refused Wyoming connections
// are logged: once when the limit is first reached, then with the count
// refused since.
const wyomingBusyLogEvery = time.Minute

// wyomingLimits bounds the Wyoming connections of a Server, over all of
// its listeners.
type wyomingLimits struct {
	maxConns     int // 0: no limit
	eventTimeout time.Duration

	mu      sync.Mutex
	conns   int
	refused int       // refused since the last log line
	logged  time.Time // when refusals were last logged
}

func newWyomingLimits(maxConns int, eventTimeout time.Duration) *wyomingLimits {
	switch {
	case maxConns == 0:
		maxConns = DefaultWyomingMaxConns
	case maxConns < 0:
		maxConns = 0
	}
	if eventTimeout <= 0 {
		eventTimeout = DefaultWyomingEventTimeout
	}
	return &wyomingLimits{maxConns: maxConns, eventTimeout: eventTimeout}
}

// admit takes a connection slot, or reports that all are taken. A burst
// of refusals is logged once, then at most every wyomingBusyLogEvery.
func (l *wyomingLimits) admit(log *slog.Logger) bool {
	l.mu.Lock()
	if l.maxConns == 0 || l.conns < l.maxConns {
		l.conns++
		l.mu.Unlock()
		return true
	}
	l.refused++
	refused, now := l.refused, time.Now()
	quiet := now.Sub(l.logged) < wyomingBusyLogEvery
	if !quiet {
		l.refused, l.logged = 0, now
	}
	l.mu.Unlock()
	if !quiet {
		log.Warn("server: Wyoming connection limit reached; new connections are refused until some close",
			"limit", l.maxConns, "refused", refused)
	}
	return false
}

// release gives back the slot of a connection that ended.
func (l *wyomingLimits) release() {
	l.mu.Lock()
	l.conns--
	l.mu.Unlock()
}
