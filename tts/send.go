package tts

import (
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
// counts as written.
type sender struct {
	w       io.Writer
	mu      sync.Mutex
	cond    sync.Cond // signals a change of queue, on, running or err
	on      bool      // a sentence is being sent: Writes queue
	running bool      // the goroutine runs
	queue   []byte    // written, not yet sent
	spare   []byte    // the buffer the goroutine sent last, for the next swap
	err     error     // the writer's error, returned by later Writes and stop
}

func newSender(w io.Writer) *sender {
	s := &sender{w: w}
	s.cond.L = &s.mu
	return s
}

// start makes Writes queue until stop.
func (s *sender) start() {
	s.mu.Lock()
	s.on = true
	s.mu.Unlock()
}

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
	return len(b), nil
}

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
		s.mu.Unlock()
		_, err := s.w.Write(buf)
		if err == nil {
			flush(s.w)
		}
		s.mu.Lock()
		s.spare = buf
		if err != nil {
			s.err = err
		}
	}
}

// stop ends the sentence: with send set it waits until what is queued
// is written, else it drops it (the request has failed) and waits only
// for a write under way. It returns the writer's error, if a write
// failed. Writes go through again after.
func (s *sender) stop(send bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	if !send {
		s.queue = s.queue[:0]
	}
	s.cond.Broadcast()
	for s.running {
		s.cond.Wait()
	}
	err := s.err
	s.err = nil
	return err
}
