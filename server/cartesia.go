package server

import (
	"bufio"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/voxkit/voxkit/server/internal/align"
	"github.com/voxkit/voxkit/server/internal/core"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// The Cartesia-compatible API, under /cartesia: a Cartesia SDK or agent
// plugin whose base URL is http://host:port/cartesia speaks to voxkit
// with a voxkit API key (X-API-Key, or Authorization: Bearer). The
// Cartesia-Version header is accepted and not needed. docs/agents.md
// says what is supported and what is ignored.

// cartesiaRoutes registers the Cartesia-compatible routes.
func (s *Server) cartesiaRoutes() {
	const base = "/cartesia"
	// A wrong method, and any other path of the door, are answered in
	// Cartesia's shape.
	answer := func(w http.ResponseWriter, r *http.Request, werr *wire.Error) { writeCartesia(w, r, toCartesia(werr)) }
	route := func(path string, m core.Methods) { s.core.DoorRoute(s.mux, path, m, answer) }
	route(base+"/voices", core.Methods{http.MethodGet: s.cartesia(s.cartesiaVoices)})
	if s.core.Store != nil {
		route(base+"/voices/clone", core.Methods{http.MethodPost: s.cartesiaAs(store.ScopeAdmin, s.cartesiaClone)})
		route(base+"/voices/{id}", core.Methods{http.MethodGet: s.cartesia(s.cartesiaVoice), http.MethodDelete: s.cartesiaAs(store.ScopeAdmin, s.cartesiaDeleteVoice)})
	} else {
		route(base+"/voices/{id}", core.Methods{http.MethodGet: s.cartesia(s.cartesiaVoice)})
	}
	route(base+"/tts/bytes", core.Methods{http.MethodPost: s.cartesia(s.cartesiaBytes)})
	route(base+"/tts/sse", core.Methods{http.MethodPost: s.cartesia(s.cartesiaSSE)})
	notFound := func(w http.ResponseWriter, r *http.Request) { answer(w, r, wire.NotFound(r.Method, r.URL.Path)) }
	s.mux.HandleFunc(base, notFound)
	s.mux.HandleFunc(base+"/", notFound)
}

// cartesiaError is an error as Cartesia shapes it, over HTTP and in
// error events.
type cartesiaError struct {
	Status  int    `json:"status_code"`
	Code    string `json:"error_code"`
	Title   string `json:"title"`
	Message string `json:"message"`
}

func (e *cartesiaError) Error() string { return e.Message }

func cartesiaBadRequest(code, format string, args ...any) *cartesiaError {
	return &cartesiaError{http.StatusBadRequest, code, "Invalid request", fmt.Sprintf(format, args...)}
}

// toCartesia converts voxkit's error to Cartesia's shape.
func toCartesia(werr *wire.Error) *cartesiaError {
	return &cartesiaError{werr.Status, werr.Code, http.StatusText(werr.Status), werr.Message}
}

// cartesiaErr is toCartesia of an error that may be nil.
func cartesiaErr(werr *wire.Error) *cartesiaError {
	if werr == nil {
		return nil
	}
	return toCartesia(werr)
}

func cartesiaVoiceNotFound(id string) *cartesiaError {
	return &cartesiaError{http.StatusNotFound, wire.CodeVoiceNotFound, "Voice not found", fmt.Sprintf("No voice with id %q: list the voices with GET /voices.", id)}
}

// event is the error as an event of the SSE stream or the WebSocket.
func (e *cartesiaError) event(contextID, requestID string) map[string]any {
	m := map[string]any{"type": "error", "done": true, "status_code": e.Status, "error_code": e.Code,
		"title": e.Title, "message": e.Message, "request_id": requestID}
	if contextID != "" {
		m["context_id"] = contextID
	}
	return m
}

// writeCartesia answers r with cerr in Cartesia's shape.
func writeCartesia(w http.ResponseWriter, r *http.Request, cerr *cartesiaError) {
	core.WriteJSON(w, cerr.Status, cerr.event("", core.Info(r.Context()).ID))
}

// cartesiaHandler is a handler of the Cartesia API, for the caller's
// account.
type cartesiaHandler func(w http.ResponseWriter, r *http.Request, account string) *cartesiaError

// cartesia admits the caller with speech scope and answers errors in
// Cartesia's shape.
func (s *Server) cartesia(h cartesiaHandler) core.Handler { return s.cartesiaAs(store.ScopeSpeech, h) }

// cartesiaAs is cartesia for a handler that needs the scope need.
func (s *Server) cartesiaAs(need store.Scope, h cartesiaHandler) core.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		account, werr := s.admitVendor(r, r.Header.Get("X-API-Key"), need)
		cerr := (*cartesiaError)(nil)
		if werr != nil {
			cerr = toCartesia(werr)
		} else {
			cerr = h(w, r, account)
		}
		if cerr != nil {
			writeCartesia(w, r, cerr)
		}
		return nil
	}
}

// cartesiaVoiceOf describes a voxkit voice as a Cartesia voice. Its
// created_at is when the voice was added to the catalog: a built-in
// voice's is the server's start (or the rescan that found it), a clone's
// its creation, as /v1/models' created.
func cartesiaVoiceOf(v voices.Voice) map[string]any {
	access, name := "public", v.ID
	if !v.Global() {
		access, name = "private", cmp.Or(v.Description, v.ID) // a clone's description is its name
	}
	lang, _, _ := strings.Cut(v.Language, "-")
	return map[string]any{"id": v.ID, "name": name, "description": v.Description, "language": lang,
		"is_owner": !v.Global(), "is_public": v.Global(), "access": access, "visibility": "all",
		"tagline": v.Engine, "locales": []any{}, "created_at": v.Created.UTC().Format(time.RFC3339)}
}

// cartesiaCloneForm is the multipart body of POST /voices/clone;
// description, language, accent, base_voice_id and the older mode and
// enhance are accepted and not used.
var cartesiaCloneForm = wire.CloneForm{Audio: "clip", Fields: []string{"description", "language", "accent", "base_voice_id", "mode", "enhance"}}

// cartesiaClone answers POST /voices/clone with the new voice.
func (s *Server) cartesiaClone(w http.ResponseWriter, r *http.Request, account string) *cartesiaError {
	sv, err := s.core.CloneUpload(w, r, account, cartesiaCloneForm)
	if err != nil {
		return toCartesia(s.core.WireError(r, err))
	}
	v, err := s.core.Voices.Lookup(account, sv.ID)
	if err != nil {
		return cartesiaVoiceNotFound(sv.ID) // deleted meanwhile
	}
	core.WriteJSON(w, http.StatusOK, cartesiaVoiceOf(v))
	return nil
}

// cartesiaDeleteVoice answers DELETE /voices/{id} with 204.
func (s *Server) cartesiaDeleteVoice(w http.ResponseWriter, r *http.Request, account string) *cartesiaError {
	if _, err := s.core.DropVoice(r.Context(), account, r.PathValue("id")); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return cartesiaVoiceNotFound(r.PathValue("id"))
		}
		return toCartesia(s.core.WireError(r, err))
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// cartesiaVoices lists the voices, in pages (limit, starting_after,
// ending_before as Cartesia's cursors).
func (s *Server) cartesiaVoices(w http.ResponseWriter, r *http.Request, account string) *cartesiaError {
	q := r.URL.Query()
	limit := 10
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return cartesiaBadRequest(wire.CodeInvalidValue, "limit must be 1 to 100.")
		}
		limit = n
	}
	all := s.core.Voices.List(account)
	index := func(id string) int { return slices.IndexFunc(all, func(v voices.Voice) bool { return v.ID == id }) }
	from := index(q.Get("starting_after")) + 1 // 0 without a cursor
	to := min(len(all), from+limit)
	more := to < len(all)
	if id := q.Get("ending_before"); id != "" {
		to = max(0, index(id))
		from = max(0, to-limit)
		more = from > 0
	}
	list := []map[string]any{}
	for _, v := range all[from:to] {
		list = append(list, cartesiaVoiceOf(v))
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{"data": list, "has_more": more})
	return nil
}

func (s *Server) cartesiaVoice(w http.ResponseWriter, r *http.Request, account string) *cartesiaError {
	v, err := s.core.Voices.Lookup(account, s.core.Resolve(account, r.PathValue("id")))
	if err != nil {
		return cartesiaVoiceNotFound(r.PathValue("id"))
	}
	core.WriteJSON(w, http.StatusOK, cartesiaVoiceOf(v))
	return nil
}

// cartesiaVoiceSpec is a request's voice: an id, or {"mode":"id","id":...}.
type cartesiaVoiceSpec struct {
	ID   string
	Mode string
}

func (v *cartesiaVoiceSpec) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &v.ID); err == nil {
		return nil
	}
	var o struct {
		Mode string `json:"mode"`
		ID   string `json:"id"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("voice is an id or an object with an id")
	}
	v.ID, v.Mode = o.ID, o.Mode
	return nil
}

// cartesiaOutputFormat is a request's output_format.
type cartesiaOutputFormat struct {
	Container  string `json:"container"`
	Encoding   string `json:"encoding"`
	SampleRate int    `json:"sample_rate"`
	BitRate    int    `json:"bit_rate"`
}

// cartesiaRates are the sample rates Cartesia names.
var cartesiaRates = []int{8000, 16000, 22050, 24000, 44100, 48000}

// output returns voxkit's way to write the format; containers
// lists the containers the endpoint takes.
func (o *cartesiaOutputFormat) output(containers ...string) (core.Output, *cartesiaError) {
	if o == nil {
		return core.Output{}, cartesiaBadRequest(wire.CodeMissingParameter, "output_format is required: {\"container\": \"raw\", \"encoding\": \"pcm_s16le\", \"sample_rate\": 24000}, say.")
	}
	if !slices.Contains(containers, o.Container) {
		return core.Output{}, cartesiaBadRequest(wire.CodeUnsupportedFormat, "output_format.container %q is not one this endpoint takes: %s.", o.Container, strings.Join(containers, ", "))
	}
	if !slices.Contains(cartesiaRates, o.SampleRate) {
		return core.Output{}, cartesiaBadRequest(wire.CodeUnsupportedFormat, "output_format.sample_rate %d is not one of 8000, 16000, 22050, 24000, 44100, 48000.", o.SampleRate)
	}
	f := core.Output{Format: encode.Format{Name: "pcm", SampleRate: o.SampleRate, Streaming: true}}
	if o.Container == "mp3" {
		f.Format.Name = "mp3"
		f.Format.Bitrate = cmp.Or(o.BitRate, 128000)
		if !slices.Contains([]int{32000, 64000, 96000, 128000, 192000}, f.Format.Bitrate) {
			return core.Output{}, cartesiaBadRequest(wire.CodeUnsupportedFormat, "output_format.bit_rate %d is not one of 32000, 64000, 96000, 128000, 192000.", o.BitRate)
		}
		return f, nil
	}
	wav := o.Container == "wav"
	switch o.Encoding {
	case "pcm_s16le":
		if wav {
			f.Format.Name = "wav"
		}
	case "pcm_f32le":
		f = f.Float32(wav)
	case "pcm_mulaw":
		f = f.Companded(encode.MuLaw, encode.WAVMuLaw, wav)
	case "pcm_alaw":
		f = f.Companded(encode.ALaw, encode.WAVALaw, wav)
	default:
		return core.Output{}, cartesiaBadRequest(wire.CodeUnsupportedFormat, "output_format.encoding %q is not one of pcm_s16le, pcm_f32le, pcm_mulaw, pcm_alaw.", o.Encoding)
	}
	return f, nil
}

// cartesiaRequest is a generation request: the body of /tts/bytes and
// /tts/sse, and a message of the WebSocket.
type cartesiaRequest struct {
	ModelID          string                `json:"model_id"`
	Transcript       *string               `json:"transcript"`
	Voice            *cartesiaVoiceSpec    `json:"voice"`
	OutputFormat     *cartesiaOutputFormat `json:"output_format"`
	Language         string                `json:"language"`
	Locale           string                `json:"locale"`
	GenerationConfig *struct {
		Speed   *float64        `json:"speed"`
		Volume  *float64        `json:"volume"`
		Emotion json.RawMessage `json:"emotion"`
	} `json:"generation_config"`
	Speed                   string `json:"speed"` // deprecated: slow, normal, fast
	Normalization           string `json:"normalization"`
	PronunciationDictID     string `json:"pronunciation_dict_id"`
	AddTimestamps           bool   `json:"add_timestamps"`
	AddPhonemeTimestamps    bool   `json:"add_phoneme_timestamps"`
	UseNormalizedTimestamps bool   `json:"use_normalized_timestamps"`
	// The WebSocket's own.
	ContextID        string `json:"context_id"`
	Continue         bool   `json:"continue"`
	Flush            bool   `json:"flush"`
	MaxBufferDelayMS *int   `json:"max_buffer_delay_ms"`
	Cancel           bool   `json:"cancel"`
}

// cartesiaSpeeds are the deprecated speed words as voxkit's speeds.
var cartesiaSpeeds = map[string]float64{"slowest": 0.6, "slow": 0.8, "normal": 1, "fast": 1.25, "fastest": 1.5}

// cartesiaTTS turns the generation request into voxkit's request (its input
// the transcript), and names the fields voxkit accepts and ignores.
func (s *Server) cartesiaTTS(account string, c cartesiaRequest, f core.Output) (tts.Request, []string, *cartesiaError) {
	if c.Voice == nil || c.Voice.ID == "" {
		return tts.Request{}, nil, cartesiaBadRequest(wire.CodeMissingParameter, "voice is required: {\"mode\": \"id\", \"id\": VOICE_ID}, where the id is a voxkit voice (GET /voices).")
	}
	if c.Voice.Mode != "" && c.Voice.Mode != "id" {
		return tts.Request{}, nil, cartesiaBadRequest(wire.CodeInvalidValue, "voice.mode %q is not supported: voxkit takes voices by id.", c.Voice.Mode)
	}
	req := tts.Request{Voice: s.core.Resolve(account, c.Voice.ID), Account: account, Format: f.Format}
	if c.Transcript != nil {
		req.Input = *c.Transcript
	}
	var ignored []string
	if g := c.GenerationConfig; g != nil {
		if g.Speed != nil {
			if *g.Speed < 0.6 || *g.Speed > 1.5 {
				return req, nil, cartesiaBadRequest(wire.CodeInvalidValue, "generation_config.speed must be 0.6 to 1.5.")
			}
			req.Speed = *g.Speed
		}
		if g.Volume != nil {
			ignored = append(ignored, "generation_config.volume")
		}
		if len(g.Emotion) > 0 {
			ignored = append(ignored, "generation_config.emotion")
		}
	}
	if c.Speed != "" {
		speed, ok := cartesiaSpeeds[c.Speed]
		if !ok {
			return req, nil, cartesiaBadRequest(wire.CodeInvalidValue, "speed %q is not slow, normal or fast.", c.Speed)
		}
		req.Speed = cmp.Or(req.Speed, speed)
	}
	switch c.Normalization {
	case "", "auto":
	case "off":
		req.Normalize = tts.NormalizeOff
	default:
		ignored = append(ignored, "normalization") // a locale: voxkit reads by the voice's language
	}
	for name, v := range map[string]string{"model_id": c.ModelID, "language": c.Language, "locale": c.Locale, "pronunciation_dict_id": c.PronunciationDictID} {
		if v != "" {
			ignored = append(ignored, name)
		}
	}
	if c.AddPhonemeTimestamps {
		ignored = append(ignored, "add_phoneme_timestamps")
	}
	slices.Sort(ignored)
	if _, err := s.core.Voices.Lookup(account, req.Voice); err != nil {
		return req, nil, cartesiaVoiceNotFound(c.Voice.ID)
	}
	return req, ignored, nil
}

// cartesiaBody reads and checks the body of /tts/bytes or /tts/sse.
func (s *Server) cartesiaBody(w http.ResponseWriter, r *http.Request, account string, containers ...string) (tts.Request, cartesiaRequest, core.Output, *cartesiaError) {
	var c cartesiaRequest
	body, werr := s.core.ReadBody(w, r)
	if werr != nil {
		return tts.Request{}, c, core.Output{}, toCartesia(werr)
	}
	if err := json.Unmarshal(body, &c); err != nil {
		return tts.Request{}, c, core.Output{}, cartesiaBadRequest(wire.CodeInvalidJSON, "The body is not a JSON generation request: %v.", err)
	}
	if c.Transcript == nil || strings.TrimSpace(*c.Transcript) == "" {
		return tts.Request{}, c, core.Output{}, cartesiaBadRequest(wire.CodeMissingParameter, "transcript is required and may not be empty.")
	}
	f, cerr := c.OutputFormat.output(containers...)
	if cerr != nil {
		return tts.Request{}, c, f, cerr
	}
	req, ignored, cerr := s.cartesiaTTS(account, c, f)
	if cerr != nil {
		return req, c, f, cerr
	}
	if len(ignored) > 0 {
		w.Header().Set("X-Voxkit-Ignored", strings.Join(ignored, ", "))
	}
	return req, c, f, nil
}

// cartesiaBytes answers POST /tts/bytes: the audio, streamed as it is
// synthesized.
func (s *Server) cartesiaBytes(w http.ResponseWriter, r *http.Request, account string) *cartesiaError {
	req, _, f, cerr := s.cartesiaBody(w, r, account, "raw", "wav", "mp3")
	if cerr != nil {
		return cerr
	}
	return cartesiaErr(s.vendorSpeak(w, r, req, func(p *tts.Prepared, codec encode.Codec) (tts.Result, error) {
		w.Header().Set("Content-Type", cmp.Or(f.ContentType, codec.ContentType))
		return p.Stream(r.Context(), f.Writer(w))
	}))
}

// cartesiaSSE answers POST /tts/sse: chunk events as sentences are
// synthesized, timestamps events when asked, then done.
func (s *Server) cartesiaSSE(w http.ResponseWriter, r *http.Request, account string) *cartesiaError {
	req, c, f, cerr := s.cartesiaBody(w, r, account, "raw")
	if cerr != nil {
		return cerr
	}
	ri := core.Info(r.Context())
	out := bufio.NewWriter(w)
	event := func(m map[string]any) {
		if c.ContextID != "" {
			m["context_id"] = c.ContextID
		}
		data, _ := json.Marshal(m)
		fmt.Fprintf(out, "event: %s\ndata: %s\n\n", m["type"], data)
		out.Flush()
		http.NewResponseController(w).Flush()
	}
	var audio core.Buffer
	words := &cartesiaWords{normalized: c.UseNormalizedTimestamps, aligner: &align.Aligner{Input: []rune(req.Input), Normalize: s.core.Normalizer(req)}}
	last := time.Now()
	req.OnSentence = func(d tts.SentenceDone) {
		event(map[string]any{"type": "chunk", "data": base64.StdEncoding.EncodeToString(audio.Take()), "done": false,
			"status_code": 206, "step_time": float64(time.Since(last).Microseconds()) / 1000})
		last = time.Now()
		if c.AddTimestamps {
			event(map[string]any{"type": "timestamps", "done": false, "status_code": 206, "word_timestamps": words.sentence(d)})
		}
	}
	return cartesiaErr(s.vendorSpeak(w, r, req, func(p *tts.Prepared, _ encode.Codec) (tts.Result, error) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		res, err := p.Stream(r.Context(), f.Writer(&audio))
		if err != nil {
			if res.Audio > 0 { // the stream has begun: the error is its last event
				werr := s.core.SynthesisFailed(s.core.Log.With("request_id", ri.ID), req.Voice, err)
				event(toCartesia(werr).event("", ri.ID))
				return res, nil
			}
			return res, err
		}
		if rest := audio.Take(); len(rest) > 0 {
			event(map[string]any{"type": "chunk", "data": base64.StdEncoding.EncodeToString(rest), "done": false, "status_code": 206, "step_time": 0})
		}
		event(map[string]any{"type": "done", "done": true, "status_code": 200})
		return res, nil
	}))
}

// cartesiaWords makes Cartesia's word timestamps, sentence by sentence:
// the words as written, or (normalized) the words of the normalized text.
type cartesiaWords struct {
	normalized bool
	aligner    *align.Aligner // the input so far; used for normalized words
}

// write adds text of an input stream, which normalized words are
// aligned on.
func (cw *cartesiaWords) write(text string) {
	if cw.normalized {
		cw.aligner.Write(text)
	}
}

func (cw *cartesiaWords) sentence(d tts.SentenceDone) map[string]any {
	words, start, end := []string{}, []float64{}, []float64{}
	if cw.normalized {
		_, na := cw.aligner.Sentence(d.Words, false)
		word := -1 // the index of the word being read, -1 between words
		for i, ch := range na.Chars {
			if strings.TrimSpace(ch) == "" {
				word = -1
				continue
			}
			if word < 0 {
				words, start, end = append(words, ""), append(start, na.Start[i]), append(end, na.End[i])
				word = len(words) - 1
			}
			words[word] += ch
			end[word] = na.End[i]
		}
	} else {
		for _, w := range d.Words {
			words, start, end = append(words, w.Word), append(start, w.Start.Seconds()), append(end, w.End.Seconds())
		}
	}
	return map[string]any{"words": words, "start": align.RoundMS(start), "end": align.RoundMS(end)}
}
