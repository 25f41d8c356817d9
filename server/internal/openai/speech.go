package openai

import (
	"net/http"
	"strconv"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/lexicons"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/spool"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// speechRequest parses and validates the body of a POST
// /v1/audio/speech into a prepared request.
func (d *door) speechRequest(body []byte, account string) (wire.Speech, tts.Request, *fault.Error) {
	sp, err := wire.ParseSpeech(body, d.DefaultFormat)
	if err != nil {
		return sp, tts.Request{}, fault.ToError(err, "")
	}
	req := sp.Request(account, d.Voices.Resolve(account, sp.Voice))
	switch {
	case sp.InputStream:
		return sp, req, fault.BadRequest(fault.CodeInvalidValue, "input_stream", "input_stream is for the WebSocket, GET /v1/audio/speech/ws; send the whole input here.")
	case sp.Timestamps != "" && sp.StreamFormat != wire.StreamSSE:
		return sp, req, fault.BadRequest(fault.CodeInvalidValue, "timestamps", `timestamps need "stream_format": "sse" (or the WebSocket): a plain audio response has nowhere to put them.`)
	}
	return sp, req, nil
}

func (d *door) speech(w http.ResponseWriter, r *http.Request) error {
	body, werr := d.Body.ReadBody(w, r)
	if werr != nil {
		return werr
	}
	ri := route.Info(r.Context())
	sp, req, werr := d.speechRequest(body, ri.Account)
	if werr != nil {
		return werr
	}
	release, werr := d.Voices.HoldSample(ri.Account, ri.Scope, sp.Voice, sp.VoiceSample)
	if werr != nil {
		return werr
	}
	defer release()
	job := core.Job{Request: req, Voice: sp.Voice, Speed: &sp.Speed, Lexicons: lexicons.RefsOf(sp.Lexicons)}
	switch {
	case sp.StreamFormat == wire.StreamSSE:
		werr = d.speechSSE(w, r, sp, job)
	case req.Format.Name == "pcm":
		werr = d.speechStream(w, r, job)
	default:
		werr = d.speechClip(w, r, job)
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
func (d *door) speechClip(w http.ResponseWriter, r *http.Request, job core.Job) *fault.Error {
	ri := route.Info(r.Context())
	clip := new(spool.Spool)
	defer clip.Close()
	var res tts.Result
	var contentType string
	lw := d.Speech.Lazy(w, func() {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Length", strconv.FormatInt(clip.Size(), 10))
		h.Set("Cache-Control", "no-store")
		d.Speech.SetTiming(h, res, ri.Start, 0)
		w.WriteHeader(http.StatusOK)
	})
	job.Out = lw
	return d.Speech.SpeakHTTP(r, job, nil, func(p *tts.Prepared, codec encode.Codec) (tts.Result, error) {
		// Writing the spool is part of making the clip: tts counts it,
		// the encoder's final flush and header rewrite included, as
		// synthesis.
		var err error
		if res, err = p.WriteClip(r.Context(), clip); err != nil {
			return res, err
		}
		contentType = codec.ContentType
		if err := clip.Send(lw); err != nil {
			d.Log.Info("server: sending a clip failed", "request_id", ri.ID, "err", err)
			return res, nil
		}
		lw.Start()
		return res, nil
	})
}

// speechStream writes audio as it is synthesized, flushed per sentence.
// The timing values are known only at the end, so they are trailers.
func (d *door) speechStream(w http.ResponseWriter, r *http.Request, job core.Job) *fault.Error {
	ri := route.Info(r.Context())
	var contentType string
	lw := d.Speech.Lazy(w, func() {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Cache-Control", "no-store")
		h.Set("Trailer", core.StreamTrailers)
		w.WriteHeader(http.StatusOK)
	})
	job.Out = lw
	return d.Speech.SpeakHTTP(r, job, nil, func(p *tts.Prepared, codec encode.Codec) (tts.Result, error) {
		contentType = codec.ContentType
		res, err := p.Stream(r.Context(), lw)
		if err != nil {
			return res, err
		}
		lw.Start() // no audio at all: still a valid, empty stream
		d.Speech.SetTiming(w.Header(), res, ri.Start, lw.Sending())
		return res, nil
	})
}

// speechSSE streams the audio, in the requested format, as base64 SSE
// events, ending with speech.audio.done and [DONE]; an error once the
// stream has begun is its last event, as OpenAI reports it.
func (d *door) speechSSE(w http.ResponseWriter, r *http.Request, sp wire.Speech, job core.Job) *fault.Error {
	ri := route.Info(r.Context())
	sw := newSSE(d.Speech.Lazy(w, func() {
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Accel-Buffering", "no")
		h.Set("Trailer", core.StreamTrailers)
		w.WriteHeader(http.StatusOK)
	}))
	job.Out = sw
	late := func(werr *fault.Error) { sw.Lazy.Write(wire.SSEError(werr)) }
	return d.Speech.SpeakHTTP(r, job, late, func(p *tts.Prepared, _ encode.Codec) (tts.Result, error) {
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
		d.Speech.SetTiming(w.Header(), res, ri.Start, sw.Sending())
		return res, nil
	})
}
