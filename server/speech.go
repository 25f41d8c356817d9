package server

import (
	"net/http"
	"strconv"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/spool"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// speechRequest parses and validates the body of a POST
// /v1/audio/speech into a prepared request.
func (s *Server) speechRequest(body []byte, account string) (wire.Speech, tts.Request, *wire.Error) {
	sp, err := wire.ParseSpeech(body, "")
	if err != nil {
		return sp, tts.Request{}, wire.ToError(err, "")
	}
	req, werr := s.requestOf(sp, account)
	if werr != nil {
		return sp, req, werr
	}
	switch {
	case sp.InputStream:
		return sp, req, wire.BadRequest(wire.CodeInvalidValue, "input_stream", "input_stream is for the WebSocket, GET /v1/audio/speech/ws; send the whole input here.")
	case sp.Timestamps != "" && sp.StreamFormat != wire.StreamSSE:
		return sp, req, wire.BadRequest(wire.CodeInvalidValue, "timestamps", `timestamps need "stream_format": "sse" (or the WebSocket): a plain audio response has nowhere to put them.`)
	}
	return sp, req, nil
}

// requestOf turns a parsed speech request (a POST body or a speech.create)
// into the request to synthesize.
func (s *Server) requestOf(sp wire.Speech, account string) (tts.Request, *wire.Error) {
	if err := tts.CheckSpeed(sp.Speed); err != nil { // a speed the client sent: 0 is out of range, not the default
		return tts.Request{}, wire.ToError(err, "")
	}
	req := tts.Request{
		Voice:      s.core.Resolve(account, sp.Voice),
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
	body, werr := s.core.ReadBody(w, r)
	if werr != nil {
		return werr
	}
	sp, req, werr := s.speechRequest(body, core.Info(r.Context()).Account)
	if werr != nil {
		return werr
	}
	job := core.Job{Request: req, Voice: sp.Voice}
	switch {
	case sp.StreamFormat == wire.StreamSSE:
		werr = s.speechSSE(w, r, sp, job)
	case req.Format.Name == "pcm":
		werr = s.speechStream(w, r, job)
	default:
		werr = s.speechClip(w, r, job)
	}
	if werr != nil {
		return werr
	}
	return nil
}

// speechClip renders the whole clip, then sends it with exact length and
// the timing headers. The clip is spooled (see spool), and sent in pieces
// that each get their own write deadline, so a slow reader holds a file
// (or a pooled buffer of at most clipMemory), not the clip in memory.
func (s *Server) speechClip(w http.ResponseWriter, r *http.Request, job core.Job) *wire.Error {
	ri := core.Info(r.Context())
	clip := new(spool.Spool)
	defer clip.Close()
	var res tts.Result
	var contentType string
	lw := s.core.Lazy(w, func() {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Length", strconv.FormatInt(clip.Size(), 10))
		h.Set("Cache-Control", "no-store")
		s.core.SetTiming(h, res, ri.Start, 0)
		w.WriteHeader(http.StatusOK)
	})
	job.Out = lw
	return s.core.SpeakHTTP(r, job, nil, func(p *tts.Prepared, codec encode.Codec) (tts.Result, error) {
		// Writing the spool is part of making the clip: tts counts it,
		// the encoder's final flush and header rewrite included, as
		// synthesis.
		var err error
		if res, err = p.WriteClip(r.Context(), clip); err != nil {
			return res, err
		}
		contentType = codec.ContentType
		if err := clip.Send(lw); err != nil {
			s.core.Log.Info("server: sending a clip failed", "request_id", ri.ID, "err", err)
			return res, nil
		}
		lw.Start()
		return res, nil
	})
}

// speechStream writes audio as it is synthesized, flushed per sentence.
// The timing values are known only at the end, so they are trailers.
func (s *Server) speechStream(w http.ResponseWriter, r *http.Request, job core.Job) *wire.Error {
	ri := core.Info(r.Context())
	var contentType string
	lw := s.core.Lazy(w, func() {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Cache-Control", "no-store")
		h.Set("Trailer", core.StreamTrailers)
		w.WriteHeader(http.StatusOK)
	})
	job.Out = lw
	return s.core.SpeakHTTP(r, job, nil, func(p *tts.Prepared, codec encode.Codec) (tts.Result, error) {
		contentType = codec.ContentType
		res, err := p.Stream(r.Context(), lw)
		if err != nil {
			return res, err
		}
		lw.Start() // no audio at all: still a valid, empty stream
		s.core.SetTiming(w.Header(), res, ri.Start, lw.Sending())
		return res, nil
	})
}

// speechSSE streams the audio, in the requested format, as base64 SSE
// events, ending with speech.audio.done and [DONE]; an error once the
// stream has begun is its last event, as OpenAI reports it.
func (s *Server) speechSSE(w http.ResponseWriter, r *http.Request, sp wire.Speech, job core.Job) *wire.Error {
	ri := core.Info(r.Context())
	sw := respond.NewSSE(s.core.Lazy(w, func() {
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Accel-Buffering", "no")
		h.Set("Trailer", core.StreamTrailers)
		w.WriteHeader(http.StatusOK)
	}))
	job.Out = sw
	late := func(werr *wire.Error) { sw.Lazy.Write(wire.SSEError(werr)) }
	return s.core.SpeakHTTP(r, job, late, func(p *tts.Prepared, _ encode.Codec) (tts.Result, error) {
		if sp.Timestamps == wire.TimestampsWord {
			p.SetOnSentence(func(d tts.SentenceDone) { sw.Lazy.Write(wire.SSETimestamps(d)) })
		}
		res, err := p.Stream(r.Context(), sw)
		if err == nil {
			err = sw.Flush()
		}
		if err != nil {
			return res, err
		}
		sw.Lazy.Write(wire.SSEDone(wire.NewUsage(sp.Input, res.Audio)))
		s.core.SetTiming(w.Header(), res, ri.Start, sw.Sending())
		return res, nil
	})
}
