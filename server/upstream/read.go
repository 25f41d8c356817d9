package upstream

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/wire"
)

// errTooMuch fails a piece whose worker sends more audio than a piece
// may hold.
var errTooMuch = errors.New("upstream: the worker sent more audio than a piece may hold")

// readEvents reads a worker's SSE stream whole, then emits its audio as
// one chunk with all its words. Emitting only a complete piece (a
// sentence at most) means a worker that fails mid-stream leaves no part
// of a piece in the gateway's answer; the worker sends a sentence's
// audio only when the sentence is done anyway.
func (c *caller) readEvents(r io.Reader, text string, emit engine.ChunkFunc) error {
	byteOf := runeOffsets(text)
	var samples []float32
	var words []engine.Word
	sc := bufio.NewScanner(r)
	// A line holds at most a piece's audio in base64, and its JSON.
	sc.Buffer(make([]byte, 64<<10), int(c.maxBytes*4/3)+64<<10)
	done := false
	for !done && sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			done = true
			continue
		}
		var ev wire.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return fmt.Errorf("upstream: a worker's event: %w", err)
		}
		switch {
		case ev.Error != nil:
			if we := workerError(streamStatus(ev.Error), []byte(line)); we != nil {
				return fmt.Errorf("upstream: the worker failed mid-stream: %w", we)
			}
			return fmt.Errorf("upstream: the worker failed mid-stream: %s", ev.Error)
		case ev.Type == wire.EventAudioDelta:
			pcm, err := base64.StdEncoding.DecodeString(ev.Audio)
			if err != nil {
				return fmt.Errorf("upstream: a worker's audio: %w", err)
			}
			if int64(2*len(samples)+len(pcm)) > c.maxBytes {
				return fmt.Errorf("%w (%d bytes)", errTooMuch, c.maxBytes)
			}
			for i := 0; i+1 < len(pcm); i += 2 {
				samples = append(samples, float32(int16(binary.LittleEndian.Uint16(pcm[i:])))/32768)
			}
		case ev.Type == wire.EventTimestamps:
			for _, wt := range ev.Words {
				if wt.CharStart < 0 || wt.CharEnd > len(byteOf)-1 || wt.CharStart >= wt.CharEnd {
					continue
				}
				words = append(words, engine.Word{Start: byteOf[wt.CharStart], End: byteOf[wt.CharEnd],
					From: int(wt.StartMS * SampleRate / 1000), To: int(wt.EndMS * SampleRate / 1000), Estimated: wt.Estimated})
			}
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("%w: an event line over %d bytes", errTooMuch, c.maxBytes*4/3+64<<10)
	} else if err != nil {
		return fmt.Errorf("upstream: reading a worker's stream: %w", err)
	}
	if !done {
		return errors.New("upstream: the worker's stream ended early")
	}
	if len(samples) == 0 && len(words) == 0 {
		return nil
	}
	if err := emit(engine.Chunk{Samples: samples, SampleRate: SampleRate, Words: words}); err != nil {
		return &emitError{err}
	}
	return nil
}

// streamStatus is the status of an error a worker sent in its SSE
// stream, as it would have answered before the stream began: 400 for an
// invalid_request_error, 500 for a server_error, else 502.
func streamStatus(object json.RawMessage) int {
	var e struct{ Type string }
	json.Unmarshal(object, &e)
	switch e.Type {
	case fault.TypeInvalidRequest:
		return http.StatusBadRequest
	case fault.TypeServer:
		return http.StatusInternalServerError
	}
	return http.StatusBadGateway
}

// readPCM reads a worker's bare pcm answer whole (a stream the worker cut
// ends in an error here), then emits it as one chunk.
func (c *caller) readPCM(r io.Reader, emit engine.ChunkFunc) error {
	pcm, err := io.ReadAll(io.LimitReader(r, c.maxBytes+1))
	if err != nil {
		return fmt.Errorf("upstream: reading a worker's audio: %w", err)
	}
	if int64(len(pcm)) > c.maxBytes {
		return fmt.Errorf("%w (%d bytes)", errTooMuch, c.maxBytes)
	}
	if len(pcm) < 2 {
		return nil
	}
	samples := make([]float32, len(pcm)/2)
	for i := range samples {
		samples[i] = float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
	}
	if err := emit(engine.Chunk{Samples: samples, SampleRate: SampleRate}); err != nil {
		return &emitError{err}
	}
	return nil
}

// runeOffsets returns the byte offset of each code point of s, and
// len(s) last.
func runeOffsets(s string) []int {
	out := make([]int, 0, utf8.RuneCountInString(s)+1)
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}
