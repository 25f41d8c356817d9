// Package respond holds the writers an answer goes out through: JSON
// (WriteJSON, and WriteError for errors), and for speech Lazy, which starts the response only at its first byte (so that a
// failure before any audio is still a JSON error) and gives each write a
// deadline of its own. (The OpenAI door's server-sent events are its own.)
package respond

import (
	"net/http"
	"time"
)

// Lazy starts a response on its first write.
type Lazy struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	start        func()
	started      bool
	writeTimeout time.Duration
	sending      time.Duration
}

// NewLazy returns a writer to w that calls start (which sets the headers
// and status) before the first byte, and gives each write writeTimeout
// (0: none), so a client that stops reading cannot hold the handler.
func NewLazy(w http.ResponseWriter, writeTimeout time.Duration, start func()) *Lazy {
	return &Lazy{w: w, rc: http.NewResponseController(w), start: start, writeTimeout: writeTimeout}
}

// Write starts the response if needed and writes p.
func (l *Lazy) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	l.Start()
	now := time.Now()
	defer l.sent(now)
	if l.writeTimeout > 0 {
		l.rc.SetWriteDeadline(now.Add(l.writeTimeout))
	}
	return l.w.Write(p)
}

func (l *Lazy) sent(since time.Time) { l.sending += time.Since(since) }

// Flush sends what was written so far; tts.Stream calls it after each
// sentence.
func (l *Lazy) Flush() error {
	if !l.started {
		return nil
	}
	defer l.sent(time.Now())
	return l.rc.Flush()
}

// Start starts the response if no write has: an empty stream is still a
// response.
func (l *Lazy) Start() {
	if !l.started {
		l.started = true
		l.start()
	}
}

// Started reports whether the response has begun.
func (l *Lazy) Started() bool { return l.started }

// Sending returns the time writes and flushes took: the client's
// reading, which a server's own timing leaves out.
func (l *Lazy) Sending() time.Duration { return l.sending }
