package server

import (
	"context"
	"fmt"
	"time"

	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// idleError ends an input stream that received no input for too long.
type idleError struct{ after time.Duration }

func (e *idleError) Error() string { return fmt.Sprintf("server: input stream idle for %v", e.after) }

func (e *idleError) wire() *wire.Error {
	return wire.BadRequest(wire.CodeIdleTimeout, "",
		"The input stream received no input.append, input.flush or input.done for %v: it is closed, and the audio of its text so far was sent. Open a new one to go on.", e.after)
}

// inputStream runs an input stream: it synthesizes each sentence of the
// text as soon as its end is known, speaks an unfinished tail after the
// stream's max_buffer_delay_ms, answers each input.flush with flush.done
// after the audio of the text before it, and ends at input.done (or at
// shutdown, once the text so far is spoken). rctx is cancelled by
// speech.cancel; ctx ends with the session.
//
// written is the number of characters the stream received.
func (ws *wsSession) inputStream(ctx, rctx context.Context, wc *wsContext, sp wire.Speech, req tts.Request, w *wsWriter) (res tts.Result, written int, err error) {
	delay := DefaultMaxBufferDelay
	if sp.MaxBufferDelayMS != nil {
		delay = time.Duration(*sp.MaxBufferDelayMS) * time.Millisecond
	}
	idleAfter := DefaultWSContextIdle
	if ws.s.core.SocketIdle > 0 && ws.s.core.SocketIdle < idleAfter {
		idleAfter = ws.s.core.SocketIdle
	}
	ts, err := ws.s.core.Synth.StreamText(rctx, w, req)
	if err != nil {
		return tts.Result{}, 0, err
	}
	defer func() { written = ts.Written() }()
	idle := time.NewTimer(idleAfter)
	defer idle.Stop()
	// refused checks the session's credentials again, as before each
	// request (and as watchKey does every recheck interval): an input
	// stream may last long after its key was revoked.
	refused := func() error {
		if werr := ws.recheck(ctx); werr != nil {
			ws.refuse(ctx, wc.id, werr)
			return werr
		}
		return nil
	}
	var buffered <-chan time.Time // fires when the tail has waited delay
	var tail *time.Timer
	defer func() {
		if tail != nil {
			tail.Stop()
		}
	}()
	// watch arms the tail's timer when text starts waiting, and disarms
	// it when none does.
	watch := func() {
		switch {
		case ts.Buffered() == 0 && tail != nil:
			tail.Stop()
			tail, buffered = nil, nil
		case ts.Buffered() > 0 && tail == nil:
			tail = time.NewTimer(delay)
			buffered = tail.C
		}
	}
	// feed hands the input messages received so far to the stream; end
	// says one was input.done.
	feed := func() (end bool, err error) {
		for _, m := range wc.take() {
			switch m.Type {
			case wire.WSAppend:
				_, err = ts.WriteString(m.Text)
			case wire.WSFlush:
				if err = refused(); err == nil {
					err = ts.Flush()
				}
				if err == nil {
					err = ws.send(ctx, wire.WSFlushDoneMessage{Type: wire.WSFlushDone, ID: wc.id, FlushID: m.FlushID})
				}
			case wire.WSInputDone:
				if err = refused(); err == nil {
					return true, nil
				}
			}
			if err != nil {
				return false, err
			}
		}
		return false, nil
	}
	for {
		select {
		case <-wc.wake:
			end, err := feed()
			switch {
			case err != nil:
				return tts.Result{}, 0, err
			case end:
				res, err := ts.Close()
				return res, 0, err
			}
			idle.Reset(idleAfter)
		case <-buffered:
			tail, buffered = nil, nil
			if err := ts.Flush(); err != nil {
				return tts.Result{}, 0, err
			}
		case <-idle.C:
			if _, err := ts.Close(); err != nil {
				return tts.Result{}, 0, err
			}
			return tts.Result{}, 0, &idleError{after: idleAfter}
		case <-ws.s.core.Closing().Done():
			// The input received before is spoken too, even when its
			// wake is not taken first.
			if _, err := feed(); err != nil {
				return tts.Result{}, 0, err
			}
			res, err := ts.Close()
			return res, 0, err
		case <-rctx.Done():
			ts.Close()
			return tts.Result{}, 0, rctx.Err()
		}
		watch()
	}
}
