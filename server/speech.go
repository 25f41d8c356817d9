package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/spool"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// Timing headers of audio responses.
const (
	headerUpstream = "x-upstream-ms"
	headerEngine   = "x-engine-ms"
	headerGateway  = "x-gateway-ms"
	// headerVoiceLoad is the part of x-engine-ms spent loading a cold
	// voice (tts.Result.VoiceLoad); absent when no voice was loaded.
	headerVoiceLoad = "x-voice-load-ms"
	headerIgnored   = "x-ignored-tags"
	headerClamped   = "x-clamped-tags"
	// streamTrailers are declared by streamed responses and sent at the end.
	streamTrailers = headerUpstream + ", " + headerEngine + ", " + headerGateway + ", " + headerVoiceLoad + ", " + headerIgnored + ", " + headerClamped
)

// setTiming sets the timing and tag headers (or trailers) from res, and
// notes them for the metrics. sending is the time writes to the client
// took so far (a stream's): it is left out of x-gateway-ms, as a clip's
// sending, which follows it, is.
func (s *Server) setTiming(h http.Header, res tts.Result, ri *reqInfo, sending time.Duration) {
	h.Set(headerUpstream, ms(s.upstreamTime(res)))
	h.Set(headerEngine, ms(res.EngineTime))
	if res.VoiceLoad > 0 {
		h.Set(headerVoiceLoad, ms(res.VoiceLoad))
	}
	if len(res.IgnoredTags) > 0 {
		h.Set(headerIgnored, strings.Join(res.IgnoredTags, ","))
	}
	if len(res.ClampedTags) > 0 {
		h.Set(headerClamped, strings.Join(res.ClampedTags, ","))
	}
	gateway := time.Since(ri.start) - sending
	res.SynthesisTime = s.upstreamTime(res) // what the metrics call synthesis
	h.Set(headerGateway, ms(gateway))
	ri.timing = &timing{res: res, gateway: gateway}
}

// upstreamTime is the x-upstream-ms of res: its synthesis time, or for a
// gateway the workers' time (Options.Gateway).
func (s *Server) upstreamTime(res tts.Result) time.Duration {
	if s.gateway {
		return res.EngineTime
	}
	return res.SynthesisTime
}

// readBody reads a JSON request body within the size limit.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *wire.Error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return nil, wire.UnsupportedMediaType(ct)
		}
	}
	// A per-request deadline, lifted once the body is in: an http.Server
	// ReadTimeout would also cut long streamed responses (its background
	// read cancels the request context). After a failed read it stays, so
	// the connection is not held open by the rest of a slow body.
	rc := http.NewResponseController(w)
	deadline := s.readTime > 0 && rc.SetReadDeadline(time.Now().Add(s.readTime)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err != nil {
		w.Header().Set("Connection", "close")
	} else if deadline {
		rc.SetReadDeadline(time.Time{})
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, wire.BodyTooLarge(s.maxBody)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, &wire.Error{Status: http.StatusRequestTimeout, Type: wire.TypeInvalidRequest, Code: wire.CodeRequestTimeout,
			Message: fmt.Sprintf("The request body was not received within %v.", s.readTime)}
	case err != nil:
		return nil, wire.BadRequest(wire.CodeInvalidJSON, "", "The request body could not be read: %v.", err)
	}
	return body, nil
}

// resolveVoice maps an alias to its voice unless the account has a voice
// of that very id.
func (s *Server) resolveVoice(account, name string) string {
	if v, ok := s.aliases[name]; ok && !s.voices.Has(account, name) {
		return v
	}
	return name
}

// speechRequest parses and validates the body of a POST
// /v1/audio/speech into a prepared request.
func (s *Server) speechRequest(body []byte, account string) (wire.Speech, *tts.Prepared, *wire.Error) {
	sp, err := wire.ParseSpeech(body, "")
	if err != nil {
		return sp, nil, wire.ToError(err, "")
	}
	req, werr := s.requestOf(sp, account)
	if werr != nil {
		return sp, nil, werr
	}
	switch {
	case sp.InputStream:
		return sp, nil, wire.BadRequest(wire.CodeInvalidValue, "input_stream", "input_stream is for the WebSocket, GET /v1/audio/speech/ws; send the whole input here.")
	case sp.Timestamps != "" && sp.StreamFormat != wire.StreamSSE:
		return sp, nil, wire.BadRequest(wire.CodeInvalidValue, "timestamps", `timestamps need "stream_format": "sse" (or the WebSocket): a plain audio response has nowhere to put them.`)
	}
	p, err := s.synth.Prepare(req)
	if err != nil {
		return sp, nil, wire.ToError(err, sp.Voice)
	}
	return sp, p, nil
}

// requestOf turns a parsed speech request (a POST body or a speech.create)
// into the request to synthesize.
func (s *Server) requestOf(sp wire.Speech, account string) (tts.Request, *wire.Error) {
	if err := tts.CheckSpeed(sp.Speed); err != nil { // a speed the client sent: 0 is out of range, not the default
		return tts.Request{}, wire.ToError(err, "")
	}
	req := tts.Request{
		Voice:      s.resolveVoice(account, sp.Voice),
		Input:      sp.Input,
		Format:     encode.Format{Name: sp.Format},
		Speed:      sp.Speed,
		Account:    account,
		StrictTags: sp.StrictTags,
	}
	if !sp.Normalize {
		req.Normalize = tts.NormalizeOff
	}
	switch sp.InputFormat {
	case wire.InputText:
		req.InputFormat = tts.InputText
	case wire.InputSSML:
		req.InputFormat = tts.InputSSML
	}
	return req, nil
}

func (s *Server) speech(w http.ResponseWriter, r *http.Request) error {
	ri := info(r.Context())
	body, werr := s.readBody(w, r)
	if werr != nil {
		return werr
	}
	sp, p, werr := s.speechRequest(body, ri.account)
	if werr != nil {
		return werr
	}
	codec, err := s.synth.Codec(p.Request().Format)
	if err != nil { // Prepare checked it; a registry changed underneath
		return wire.ToError(err, sp.Voice)
	}
	ri.format = p.Request().Format.Name
	end, werr := s.admitSpeech(r.Context(), w, ri.account)
	if werr != nil {
		return werr
	}
	defer end()
	switch {
	case sp.StreamFormat == wire.StreamSSE:
		s.speechSSE(w, r, sp, p)
	case p.Request().Format.Name == "pcm":
		s.speechStream(w, r, sp, p, codec)
	default:
		s.speechClip(w, r, sp, p, codec)
	}
	return nil
}

// speechClip renders the whole clip, then sends it with exact length and
// the timing headers. The clip is spooled (see spool), and sent in pieces
// that each get their own write deadline, so a slow reader holds a file
// (or a pooled buffer of at most clipMemory), not the clip in memory.
func (s *Server) speechClip(w http.ResponseWriter, r *http.Request, sp wire.Speech, p *tts.Prepared, codec encode.Codec) {
	ri := info(r.Context())
	clip := new(spool.Spool)
	defer clip.Close()
	// Writing the spool is part of making the clip: tts counts it, the
	// encoder's final flush and header rewrite included, as synthesis.
	res, err := p.WriteClip(r.Context(), clip)
	if err != nil {
		s.synthFailed(w, r, sp, err, false)
		return
	}
	lw := respond.NewLazy(w, s.writeTime, func() {
		h := w.Header()
		h.Set("Content-Type", codec.ContentType)
		h.Set("Content-Length", strconv.FormatInt(clip.Size(), 10))
		h.Set("Cache-Control", "no-store")
		s.setTiming(h, res, ri, 0)
		w.WriteHeader(http.StatusOK)
	})
	if err := clip.Send(lw); err != nil {
		s.log.Info("server: sending a clip failed", "request_id", ri.id, "err", err)
		return
	}
	lw.Start()
}

// synthFailed reports a synthesis error. Before the response has started
// it is a JSON error; after, the response is cut (no final chunk), which
// clients see as a truncated body.
func (s *Server) synthFailed(w http.ResponseWriter, r *http.Request, sp wire.Speech, err error, started bool) {
	ctx := r.Context()
	if ctx.Err() != nil {
		s.log.Info("server: client went away during synthesis", "request_id", RequestID(ctx), "err", err)
		return
	}
	werr := s.synthesisFailed(s.log.With("request_id", RequestID(ctx), "voice", sp.Voice, "started", started), sp.Voice, err)
	if started {
		panic(http.ErrAbortHandler)
	}
	writeError(w, werr)
}

// synthesisFailed is the one account of a synthesis that failed while its
// client waits, over HTTP or WebSocket: the cause is logged (at error
// level unless it is an API error, the request's own doing) and counted,
// and the error to send is returned.
func (s *Server) synthesisFailed(log *slog.Logger, voice string, err error) *wire.Error {
	var werr *wire.Error
	if errors.As(err, &werr) {
		log.Info("server: speech refused", "err", err)
	} else {
		log.Error("server: synthesis failed", "err", err)
		werr = wire.ToError(err, voice)
	}
	s.metrics.failed(werr)
	return werr
}

// speechStream writes audio as it is synthesized, flushed per sentence.
// The timing values are known only at the end, so they are trailers.
func (s *Server) speechStream(w http.ResponseWriter, r *http.Request, sp wire.Speech, p *tts.Prepared, codec encode.Codec) {
	ri := info(r.Context())
	lw := respond.NewLazy(w, s.writeTime, func() {
		h := w.Header()
		h.Set("Content-Type", codec.ContentType)
		h.Set("Cache-Control", "no-store")
		h.Set("Trailer", streamTrailers)
		w.WriteHeader(http.StatusOK)
	})
	res, err := p.Stream(r.Context(), lw)
	if err != nil {
		s.synthFailed(w, r, sp, err, lw.Started())
		return
	}
	lw.Start() // no audio at all: still a valid, empty stream
	s.setTiming(w.Header(), res, ri, lw.Sending())
}

// speechSSE streams the audio, in the requested format, as base64 SSE
// events, ending with speech.audio.done and [DONE].
func (s *Server) speechSSE(w http.ResponseWriter, r *http.Request, sp wire.Speech, p *tts.Prepared) {
	ri := info(r.Context())
	sw := respond.NewSSE(respond.NewLazy(w, s.writeTime, func() {
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Accel-Buffering", "no")
		h.Set("Trailer", streamTrailers)
		w.WriteHeader(http.StatusOK)
	}))
	if sp.Timestamps == wire.TimestampsWord {
		p.SetOnSentence(func(d tts.SentenceDone) { sw.Lazy.Write(wire.SSETimestamps(d)) })
	}
	res, err := p.Stream(r.Context(), sw)
	if err == nil {
		err = sw.Flush()
	}
	if err != nil {
		if sw.Started() && r.Context().Err() == nil {
			// The stream has begun: report in-band, as OpenAI does.
			werr := s.synthesisFailed(s.log.With("request_id", ri.id, "voice", sp.Voice, "started", true), sp.Voice, err)
			sw.Lazy.Write(wire.SSEError(werr))
			return
		}
		s.synthFailed(w, r, sp, err, sw.Started())
		return
	}
	sw.Lazy.Write(wire.SSEDone(wire.NewUsage(sp.Input, res.Audio)))
	s.setTiming(w.Header(), res, ri, sw.Sending())
}
