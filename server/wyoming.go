package server

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/wyoming"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// Wyoming clients get 16-bit mono PCM at the voice's own rate (espeak-ng
// 22050 Hz, a Piper voice its config's rate, Kokoro 24000 Hz), or at
// encode.DefaultSampleRate when the voice's engine does not say (a
// gateway's voices).

// wyomingWriteTimeout bounds each event written to a Wyoming client, and
// wyomingIdle how long a connection may wait for its next event to begin
// (the event then has the server's event timeout to arrive whole).
const (
	wyomingWriteTimeout = 30 * time.Second
	wyomingIdle         = 5 * time.Minute
)

// ServeWyoming serves Home Assistant's Wyoming protocol on l: describe
// (the voices of account, which may be "" for the global voices only),
// synthesize, and streaming synthesis (synthesize-start, -chunk, -stop).
// Wyoming has no authentication: every connection speaks as account, so
// bind l where only trusted clients reach it. Requests count against
// account's limits and the queue as its HTTP requests do; connections
// over Options.WyomingMaxConns (for all of the server's listeners) are
// refused with an error event. ServeWyoming returns when l fails or the
// server shuts down (nil then).
func (s *Server) ServeWyoming(l net.Listener, account string) error {
	stop := context.AfterFunc(s.core.Closing(), func() { l.Close() })
	defer stop()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if s.core.Closing().Err() != nil {
				return nil
			}
			return err
		}
		if !s.wyoming.admit(s.core.Log) {
			refuseWyoming(c, s.wyoming.maxConns)
			continue
		}
		conns.Go(func() {
			defer s.wyoming.release()
			s.wyomingConn(c, account)
		})
	}
}

// refuseWyoming answers a connection over the limit with an error event,
// briefly (it is written in the accept loop), and closes it.
func refuseWyoming(c net.Conn, limit int) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	wyoming.Write(c, "error", map[string]string{"code": "server_busy",
		"text": fmt.Sprintf("wyoming: the server holds its most connections (%d); try again later", limit)}, nil)
	c.Close()
}

// wyomingSession is one Wyoming connection.
type wyomingSession struct {
	s       *Server
	c       net.Conn
	account string
	ctx     context.Context
	stream  *wyomingStream // streaming synthesis in progress
	ssml    *ssmlStream    // or an SSML document arriving in chunks
}

func (s *Server) wyomingConn(c net.Conn, account string) {
	ctx, cancel := context.WithCancel(s.core.Closing())
	defer cancel()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	defer c.Close()
	ws := &wyomingSession{s: s, c: c, account: account, ctx: ctx}
	r := bufio.NewReader(c)
	for {
		e, err := ws.next(r)
		if err != nil {
			if ws.stream != nil {
				ws.stream.abort()
			}
			return
		}
		if err := ws.handle(e); err != nil {
			return // the client is gone
		}
	}
}

// next reads the next event: it may take wyomingIdle to begin and the
// event timeout from there. Its payload is skipped (no event the server
// reads carries one). An event too large, malformed or too slow is
// answered with an error event; the connection then ends.
func (ws *wyomingSession) next(r *bufio.Reader) (wyoming.Event, error) {
	ws.c.SetReadDeadline(time.Now().Add(wyomingIdle))
	if _, err := r.Peek(1); err != nil {
		return wyoming.Event{}, err
	}
	timeout := ws.s.wyoming.eventTimeout
	ws.c.SetReadDeadline(time.Now().Add(timeout))
	e, err := wyoming.ReadSkippingPayload(r)
	switch {
	case errors.Is(err, wyoming.ErrTooLarge):
		ws.fail("too_large", err.Error())
	case errors.Is(err, wyoming.ErrMalformed):
		ws.fail("invalid_event", err.Error())
	case errors.Is(err, os.ErrDeadlineExceeded):
		ws.fail("timeout", fmt.Sprintf("wyoming: an event must arrive whole within %v of its first byte", timeout))
	}
	return e, err
}

// log is the server's log for this connection.
func (ws *wyomingSession) log() *slog.Logger {
	return ws.s.core.Log.With("wyoming", ws.c.RemoteAddr().String())
}

// send writes one event within the write timeout.
func (ws *wyomingSession) send(typ string, data any, payload []byte) error {
	ws.c.SetWriteDeadline(time.Now().Add(wyomingWriteTimeout))
	return wyoming.Write(ws.c, typ, data, payload)
}

// fail sends an error event; the connection stays usable.
func (ws *wyomingSession) fail(code, text string) error {
	return ws.send("error", map[string]string{"text": text, "code": code}, nil)
}

func (ws *wyomingSession) handle(e wyoming.Event) error {
	switch e.Type {
	case "describe":
		return ws.send("info", ws.info(), nil)
	case "synthesize":
		if ws.stream != nil || ws.ssml != nil {
			return nil // the copy of the whole text a streaming client also sends
		}
		v, format, bad := ws.voiceAndFormat(e)
		if bad != nil {
			return ws.fail(bad.code, bad.text)
		}
		return ws.synthesize(v, e.String("text"), format)
	case "synthesize-start":
		v, format, bad := ws.voiceAndFormat(e)
		if bad != nil {
			return ws.fail(bad.code, bad.text)
		}
		if format == tts.InputSSML {
			ws.endStreams()
			ws.ssml = &ssmlStream{voice: v}
			return nil
		}
		return ws.start(v, format)
	case "synthesize-chunk":
		if ws.ssml != nil {
			return ws.ssml.write(ws, e.String("text"))
		}
		if ws.stream == nil {
			return ws.fail("no_stream", "synthesize-chunk without synthesize-start")
		}
		return ws.stream.write(e.String("text"))
	case "synthesize-stop":
		return ws.stop()
	}
	return nil // events of other services are not ours
}

// badEvent is a synthesis event the session answers with an error event.
type badEvent struct{ code, text string }

// voiceAndFormat reads the voice and text_format of synthesize and
// synthesize-start.
func (ws *wyomingSession) voiceAndFormat(e wyoming.Event) (voices.Voice, tts.InputFormat, *badEvent) {
	var format tts.InputFormat
	switch f := e.String("text_format"); f {
	case "":
		format = tts.InputAuto
	case "text":
		format = tts.InputText
	case "ssml":
		format = tts.InputSSML
	default:
		return voices.Voice{}, 0, &badEvent{"invalid_value", fmt.Sprintf("text_format %q is neither \"text\" nor \"ssml\"", wyoming.Clip(f))}
	}
	v, err := ws.voice(e)
	if err != nil {
		return voices.Voice{}, 0, &badEvent{"voice_not_found", err.Error()}
	}
	return v, format, nil
}

// stop ends a streaming synthesis: the rest is spoken, then
// synthesize-stopped.
func (ws *wyomingSession) stop() error {
	switch {
	case ws.ssml != nil:
		doc := ws.ssml
		ws.ssml = nil
		if err := ws.synthesize(doc.voice, doc.text.String(), tts.InputSSML); err != nil {
			return err
		}
	case ws.stream != nil:
		err := ws.stream.close()
		ws.stream = nil
		if err != nil {
			return err
		}
	}
	return ws.send("synthesize-stopped", nil, nil)
}

// endStreams drops a streaming synthesis in progress, for a new one.
func (ws *wyomingSession) endStreams() {
	if ws.stream != nil {
		ws.stream.abort()
		ws.stream = nil
	}
	ws.ssml = nil
}

// ssmlStream collects an SSML document sent in chunks: SSML is spoken
// whole, when the stream stops.
type ssmlStream struct {
	voice voices.Voice
	text  strings.Builder
}

// maxSSMLStream bounds a streamed SSML document; the synthesizer's input
// limit, in characters, applies when it is spoken.
const maxSSMLStream = 1 << 20

func (st *ssmlStream) write(ws *wyomingSession, text string) error {
	if st.text.Len()+len(text) > maxSSMLStream {
		ws.ssml = nil
		return ws.fail("input_too_long", fmt.Sprintf("a streamed SSML document may have at most %d bytes", maxSSMLStream))
	}
	st.text.WriteString(text)
	return nil
}

// wyomingVoice is the voice field of synthesize and synthesize-start.
type wyomingVoice struct {
	Name     string `json:"name"`
	Language string `json:"language"`
	Speaker  string `json:"speaker"`
}

// voice resolves an event's voice: by name (with a Piper speaker), else
// the best voice of its language, else the default voice.
func (ws *wyomingSession) voice(e wyoming.Event) (voices.Voice, error) {
	var v wyomingVoice
	if err := e.Object("voice", &v); err != nil {
		return voices.Voice{}, errors.New("the voice field is not an object of strings (name, language, speaker)")
	}
	id := cmp.Or(v.Name, v.Language, "en-us")
	if v.Name != "" && v.Speaker != "" {
		id = v.Name + ":" + v.Speaker
	}
	id = ws.s.core.Resolve(ws.account, id)
	found, err := ws.s.core.Voices.Lookup(ws.account, id)
	if err != nil && v.Name != "" && v.Speaker == "" {
		found, err = ws.firstSpeaker(v.Name)
	}
	if err != nil {
		return voices.Voice{}, fmt.Errorf("unknown voice %q", wyoming.Clip(id))
	}
	return found, nil
}

// firstSpeaker returns the first speaker, as describe lists them, of the
// multi-speaker model named model. A worker resolves the bare name itself
// (its speaker 0); a gateway lists only the speakers its workers list.
func (ws *wyomingSession) firstSpeaker(model string) (voices.Voice, error) {
	for _, v := range ws.s.core.Voices.List(ws.account) {
		if v.Speaker != "" && v.ID == model+":"+v.Speaker {
			return v, nil
		}
	}
	return voices.Voice{}, errors.New("server: no speaker of " + model)
}

// info is the answer to describe: one TTS program with every voice the
// account may use. The speakers of a multi-speaker Piper model are one
// voice, the model, with its speakers listed.
func (ws *wyomingSession) info() map[string]any {
	attribution := map[string]string{"name": "voxkit", "url": "https://github.com/voxkit/voxkit"}
	var list []map[string]any
	models := map[string]map[string]any{} // multi-speaker models by name
	for _, v := range ws.s.core.Voices.List(ws.account) {
		var langs []string
		if v.Language != "" {
			langs = []string{v.Language}
		}
		speaker := map[string]string{"name": v.Speaker}
		model, multi := strings.CutSuffix(v.ID, ":"+v.Speaker)
		if m := models[model]; multi && m != nil {
			m["speakers"] = append(m["speakers"].([]map[string]string), speaker)
			continue
		}
		entry := map[string]any{"name": v.ID, "languages": langs, "attribution": attribution,
			"installed": true, "description": cmp.Or(v.Description, v.ID), "version": nil, "speakers": nil}
		if multi && v.Speaker != "" {
			entry["name"] = model
			entry["description"] = strings.TrimSuffix(v.Description, ", speaker "+v.Speaker)
			entry["speakers"] = []map[string]string{speaker}
			models[model] = entry
		}
		list = append(list, entry)
	}
	return map[string]any{
		"asr": []any{}, "tts": []any{map[string]any{
			"name": "voxkit", "attribution": attribution, "installed": true, "description": "voxkit text to speech",
			"version": "1", "supports_synthesize_streaming": true, "voices": list,
		}},
		"handle": []any{}, "intent": []any{}, "wake": []any{}, "mic": []any{}, "snd": []any{},
	}
}

// audioOut sends audio as Wyoming events: audio-start before the first
// chunk, an audio-chunk at each flush (each sentence), audio-stop at the
// end.
type audioOut struct {
	ws      *wyomingSession
	format  map[string]any // rate, width and channels
	buf     []byte
	started bool
}

// newAudioOut sends 16-bit mono audio at rate.
func (ws *wyomingSession) newAudioOut(rate int) *audioOut {
	return &audioOut{ws: ws, format: map[string]any{"rate": rate, "width": 2, "channels": 1}}
}

func (a *audioOut) Write(p []byte) (int, error) {
	a.buf = append(a.buf, p...)
	if len(a.buf) >= 1<<20 { // a long sentence: do not hold it all
		return len(p), a.Flush()
	}
	return len(p), nil
}

func (a *audioOut) begin() error {
	if a.started {
		return nil
	}
	a.started = true
	return a.ws.send("audio-start", a.format, nil)
}

func (a *audioOut) Flush() error {
	if len(a.buf) == 0 {
		return nil
	}
	if err := a.begin(); err != nil {
		return err
	}
	chunk := maps.Clone(a.format)
	chunk["timestamp"] = nil
	err := a.ws.send("audio-chunk", chunk, a.buf)
	a.buf = a.buf[:0]
	return err
}

func (a *audioOut) stop() error {
	if err := a.Flush(); err != nil {
		return err
	}
	if err := a.begin(); err != nil {
		return err
	}
	return a.ws.send("audio-stop", map[string]any{"timestamp": nil}, nil)
}

// request is the speech request of a Wyoming synthesis, at the voice's
// own rate.
func (ws *wyomingSession) request(v voices.Voice, text string, format tts.InputFormat) tts.Request {
	rate := cmp.Or(v.SampleRate, encode.DefaultSampleRate)
	return tts.Request{Voice: v.ID, Input: text, InputFormat: format, Account: ws.account,
		Format: encode.Format{Name: "pcm", SampleRate: rate, Streaming: true}}
}

// synthesize speaks a whole text, sentence by sentence.
func (ws *wyomingSession) synthesize(v voices.Voice, text string, format tts.InputFormat) error {
	start := time.Now()
	req := ws.request(v, text, format)
	p, err := ws.s.core.Synth.Prepare(req)
	if err != nil {
		werr := ws.s.core.SynthesisFailed(ws.log(), v.ID, err)
		return ws.fail(werr.Code, werr.Message)
	}
	end, werr := ws.s.core.AdmitSpeech(ws.ctx, ws.account)
	if werr != nil {
		return ws.fail(werr.Code, werr.Message)
	}
	defer end()
	out := ws.newAudioOut(req.Format.SampleRate)
	res, err := p.Stream(ws.ctx, out)
	if err != nil {
		if ws.ctx.Err() != nil {
			return err
		}
		werr := ws.s.core.SynthesisFailed(ws.log(), v.ID, err)
		return ws.fail(werr.Code, werr.Message)
	}
	ws.s.core.CountSpeech("pcm", res, time.Since(start))
	return out.stop()
}

// wyomingStream is a streaming synthesis: text in chunks, spoken as
// sentences complete.
type wyomingStream struct {
	ws    *wyomingSession
	ts    *tts.TextStream
	out   *audioOut
	end   func()
	start time.Time
	voice string
}

func (ws *wyomingSession) start(v voices.Voice, format tts.InputFormat) error {
	ws.endStreams()
	end, werr := ws.s.core.AdmitSpeech(ws.ctx, ws.account)
	if werr != nil {
		return ws.fail(werr.Code, werr.Message)
	}
	req := ws.request(v, "", format)
	out := ws.newAudioOut(req.Format.SampleRate)
	ts, err := ws.s.core.Synth.StreamText(ws.ctx, out, req)
	if err != nil {
		end()
		werr := ws.s.core.SynthesisFailed(ws.log(), v.ID, err)
		return ws.fail(werr.Code, werr.Message)
	}
	ws.stream = &wyomingStream{ws: ws, ts: ts, out: out, end: sync.OnceFunc(end), start: time.Now(), voice: v.ID}
	return nil
}

// write feeds text; complete sentences are spoken now.
func (st *wyomingStream) write(text string) error {
	if _, err := st.ts.WriteString(text); err != nil {
		return st.failed(err)
	}
	return nil
}

// close speaks the rest and ends the audio.
func (st *wyomingStream) close() error {
	defer st.end()
	res, err := st.ts.Close()
	if err != nil {
		return st.failed(err)
	}
	st.ws.s.core.CountSpeech("pcm", res, time.Since(st.start))
	return st.out.stop()
}

// failed reports a failed stream and ends it; the connection goes on.
func (st *wyomingStream) failed(err error) error {
	if st.ws.ctx.Err() != nil {
		return err
	}
	werr := st.ws.s.core.SynthesisFailed(st.ws.log(), st.voice, err)
	if st.ws.stream == st {
		st.ws.stream = nil
		st.end()
	}
	return st.ws.fail(werr.Code, strings.TrimSpace(werr.Message))
}

// abort drops a stream whose connection ended.
func (st *wyomingStream) abort() {
	st.ts.Close()
	st.end()
}
