package tts

import (
	"errors"
	"io"
	"sync"
)

// sender carries what a stream's encoder writes during a sentence to the
// stream's writer on a goroutine of its own, so that a chunk an engine
// emits reaches the client while the engine renders the next one, and a
// slow client never holds a render slot: the engine only appends to the
// queue. Between sentences (start to stop) writes go straight through,
// on the caller's goroutine, as they always did. The queue holds at most
// the sentence's encoded audio, which stop drains before the sentence
// counts as written. A Write waits while maxQueued bytes are queued.
type sender struct {
	w       io.Writer
	mu      sync.Mutex
	cond    sync.Cond // signals a change of queue, on, running or err
	on      bool      // a sentence is being sent: Writes queue
	running bool      // the goroutine runs
	queue   []byte    // written, not yet sent
	spare   []byte    // the buffer the goroutine sent last, for the next swap
	err     error     // the writer's error, returned by later Writes and stop
	// panicked is the value of a panic of the writer's, if it panicked.
	panicked any
}

func newSender(w io.Writer) *sender {
	s := &sender{w: w}
	s.cond.L = &s.mu
	return s
}

// start makes Writes queue until stop.
//
// It does not, for now: every Write goes through on the stream's own
// goroutine, so that a slow client holds the stream back rather than
// its audio queuing in memory (a long pause queued a whole sentence,
// tens of MB per stream, in examples/server's TestMemoryPerRequest). The
// queue stays for the fix that bounds it.
func (s *sender) start() {}

// Write queues b while a sentence is being sent, else writes it through.
func (s *sender) Write(b []byte) (int, error) {
	s.mu.Lock()
	if !s.on {
		s.mu.Unlock()
		return s.w.Write(b)
	}
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	s.queue = append(s.queue, b...)
	if !s.running {
		s.running = true
		go s.run()
	}
	s.cond.Broadcast()
	// A client that reads slower than the engine renders makes the stream
	// wait here, so that a stream holds at most maxQueued bytes however
	// long its sentence (a pause of minutes is one sentence's audio).
	for len(s.queue) >= maxQueued && s.err == nil {
		s.cond.Wait()
	}
	return len(b), nil
}

// maxQueued is the most encoded audio a stream's sender holds before its
// Writes wait for the client.
const maxQueued = 1 << 20

// run writes and flushes what is queued until the queue is empty after
// stop, or a write fails.
func (s *sender) run() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.queue) == 0 && s.on && s.err == nil {
			s.cond.Wait()
		}
		if len(s.queue) == 0 || s.err != nil {
			s.running = false
			s.cond.Broadcast()
			return
		}
		buf := s.queue
		s.queue, s.spare = s.spare[:0], nil
		s.cond.Broadcast() // the queue has room again
		s.mu.Unlock()
		err := s.send(buf)
		s.mu.Lock()
		s.spare = buf
		if err != nil {
			s.err = err
		}
	}
}

// send writes buf and flushes the writer. A panic of the writer's is
// kept for stop to raise on the stream's goroutine, where it was raised
// before there was a sender (a server recovers it there).
func (s *sender) send(buf []byte) (err error) {
	defer func() {
		if v := recover(); v != nil {
			s.mu.Lock()
			s.panicked = v
			s.mu.Unlock()
			err = errWriterPanicked
		}
	}()
	if _, err := s.w.Write(buf); err != nil {
		return err
	}
	flush(s.w)
	return nil
}

// errWriterPanicked fails the writes after a write that panicked.
var errWriterPanicked = errors.New("tts: the writer panicked")

// stop ends the sentence: with send set it waits until what is queued
// is written, else it drops it (the request has failed) and waits only
// for a write under way. It returns the writer's error, if a write
// failed. Writes go through again after.
func (s *sender) stop(send bool) error {
	s.mu.Lock()
	s.on = false
	if !send {
		s.queue = s.queue[:0]
	}
	s.cond.Broadcast()
	for s.running {
		s.cond.Wait()
	}
	err, v := s.err, s.panicked
	s.err, s.panicked = nil, nil
	s.mu.Unlock()
	if v != nil {
		panic(v)
	}
	return err
}
