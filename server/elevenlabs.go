package server

import (
	"bufio"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/align"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/normalize"
	"github.com/voxkit/voxkit/voices"
)

// The ElevenLabs-compatible API, under /elevenlabs: an ElevenLabs SDK or
// agent plugin whose base URL is http://host:port/elevenlabs speaks to
// voxkit with a voxkit API key in xi-api-key. docs/agents.md says what is
// supported and what is ignored.

// elevenRoutes registers the ElevenLabs-compatible routes.
func (s *Server) elevenRoutes() {
	const base = "/elevenlabs/v1"
	// A wrong method, and any other path of the door, are answered in
	// ElevenLabs' shape.
	answer := func(w http.ResponseWriter, _ *http.Request, werr *wire.Error) { writeEleven(w, toEleven(werr)) }
	route := func(path string, m core.Methods) { s.core.DoorRoute(s.mux, path, m, answer) }
	route(base+"/voices", core.Methods{http.MethodGet: s.eleven(s.elevenVoices)})
	if s.core.Store != nil {
		route(base+"/voices/add", core.Methods{http.MethodPost: s.elevenAs(store.ScopeAdmin, s.elevenAddVoice)})
		route(base+"/voices/{id}", core.Methods{http.MethodGet: s.eleven(s.elevenVoice), http.MethodDelete: s.elevenAs(store.ScopeAdmin, s.elevenDeleteVoice)})
	} else {
		route(base+"/voices/{id}", core.Methods{http.MethodGet: s.eleven(s.elevenVoice)})
	}
	route(base+"/models", core.Methods{http.MethodGet: s.eleven(s.elevenModels)})
	for _, suffix := range []string{"", "/stream", "/with-timestamps", "/stream/with-timestamps"} {
		route(base+"/text-to-speech/{voice}"+suffix, core.Methods{http.MethodPost: s.eleven(s.elevenSpeech)})
	}
	notFound := func(w http.ResponseWriter, r *http.Request) { answer(w, r, wire.NotFound(r.Method, r.URL.Path)) }
	s.mux.HandleFunc("/elevenlabs", notFound)
	s.mux.HandleFunc("/elevenlabs/", notFound)
}

// elevenError is an error as ElevenLabs shapes it:
// {"detail": {"status": "...", "message": "..."}}.
type elevenError struct {
	HTTPStatus int    `json:"-"`
	Status     string `json:"status"`
	Message    string `json:"message"`
}

func (e *elevenError) Error() string { return e.Message }

// toEleven converts voxkit's error to ElevenLabs' shape.
func toEleven(werr *wire.Error) *elevenError {
	status, message := werr.Code, werr.Message
	switch werr.Code {
	case wire.CodeMissingAPIKey:
		status, message = "needs_authorization", elevenMissingKey
	case wire.CodeVoiceNotFound:
		status = "voice_not_found"
	}
	return &elevenError{HTTPStatus: werr.Status, Status: status, Message: message}
}

// elevenMissingKey is the message of ElevenLabs' 401 for a request
// without a key: it names the header ElevenLabs' clients send it in.
const elevenMissingKey = "You didn't provide an API key. Send a voxkit API key in the xi-api-key header " +
	"(xi-api-key: sk_...), as ElevenLabs' clients do; Authorization: Bearer is accepted too. " +
	"Keys are created in the playground or with `server keys create`."

// writeEleven answers with eerr in ElevenLabs' shape.
func writeEleven(w http.ResponseWriter, eerr *elevenError) {
	core.WriteJSON(w, eerr.HTTPStatus, map[string]any{"detail": eerr})
}

// elevenHandler is a handler of the ElevenLabs API, for the caller's
// account.
type elevenHandler func(w http.ResponseWriter, r *http.Request, account string) *elevenError

// eleven admits the caller by xi-api-key (or any credential the OpenAI
// API takes) with speech scope, and answers errors in ElevenLabs' shape.
func (s *Server) eleven(h elevenHandler) core.Handler { return s.elevenAs(store.ScopeSpeech, h) }

// elevenAs is eleven for a handler that needs the scope need.
func (s *Server) elevenAs(need store.Scope, h elevenHandler) core.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		account, eerr := s.elevenAdmit(r, need)
		if eerr == nil {
			eerr = h(w, r, account)
		}
		if eerr != nil {
			writeEleven(w, eerr)
		}
		return nil
	}
}

// elevenAdmit checks the xi-api-key header, else the credentials of the
// OpenAI API.
func (s *Server) elevenAdmit(r *http.Request, need store.Scope) (string, *elevenError) {
	account, werr := s.admitVendor(r, r.Header.Get("xi-api-key"), need)
	if werr != nil {
		return "", toEleven(werr)
	}
	return account, nil
}

// elevenVoiceOf describes a voxkit voice as an ElevenLabs voice.
func elevenVoiceOf(v voices.Voice) map[string]any {
	category, name := "premade", v.ID
	if !v.Global() {
		category, name = "cloned", cmp.Or(v.Description, v.ID) // a clone's description is its name
	}
	labels := map[string]string{"engine": v.Engine}
	if v.Language != "" {
		labels["language"] = v.Language
	}
	return map[string]any{"voice_id": v.ID, "name": name, "category": category,
		"description": v.Description, "labels": labels, "available_for_tiers": []string{},
		"is_owner": !v.Global()}
}

func (s *Server) elevenVoices(w http.ResponseWriter, r *http.Request, account string) *elevenError {
	list := []map[string]any{}
	for _, v := range s.core.Voices.List(account) {
		list = append(list, elevenVoiceOf(v))
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{"voices": list, "has_more": false, "total_count": len(list)})
	return nil
}

func (s *Server) elevenVoice(w http.ResponseWriter, r *http.Request, account string) *elevenError {
	v, err := s.core.Voices.Lookup(account, s.core.Resolve(account, r.PathValue("id")))
	if err != nil {
		return elevenVoiceNotFound(r.PathValue("id"))
	}
	core.WriteJSON(w, http.StatusOK, elevenVoiceOf(v))
	return nil
}

// elevenCloneForm is the multipart body of POST /v1/voices/add. Of the
// files the first is the recording; description, labels and
// remove_background_noise are accepted and not used.
var elevenCloneForm = wire.CloneForm{Audio: "files", ManyAudio: true, Fields: []string{"description", "labels", "remove_background_noise"}}

// elevenAddVoice answers POST /v1/voices/add: instant voice cloning.
func (s *Server) elevenAddVoice(w http.ResponseWriter, r *http.Request, account string) *elevenError {
	sv, err := s.core.CloneUpload(w, r, account, elevenCloneForm)
	if err != nil {
		return toEleven(s.core.WireError(r, err))
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{"voice_id": sv.ID, "requires_verification": false})
	return nil
}

// elevenDeleteVoice answers DELETE /v1/voices/{voice_id}.
func (s *Server) elevenDeleteVoice(w http.ResponseWriter, r *http.Request, account string) *elevenError {
	if _, err := s.core.DropVoice(r.Context(), account, r.PathValue("id")); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return elevenVoiceNotFound(r.PathValue("id"))
		}
		return toEleven(s.core.WireError(r, err))
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	return nil
}

func elevenVoiceNotFound(id string) *elevenError {
	return &elevenError{http.StatusNotFound, "voice_not_found", fmt.Sprintf("A voice with the voice_id %s was not found.", id)}
}

// elevenModels lists one model: voxkit has voices, not models, and
// accepts any model_id.
func (s *Server) elevenModels(w http.ResponseWriter, r *http.Request, account string) *elevenError {
	core.WriteJSON(w, http.StatusOK, []map[string]any{{"model_id": "voxkit", "name": "voxkit",
		"can_do_text_to_speech": true, "description": "Every voxkit voice; model_id is accepted and ignored."}})
	return nil
}

// elevenDefaultFormat is ElevenLabs' default output_format.
const elevenDefaultFormat = "mp3_44100_128"

// elevenFormats are the codecs of output_format, with the rates and
// bitrates (kbps) each takes.
var elevenFormats = map[string]struct {
	rates, kbps []int
}{
	"mp3":  {[]int{22050, 24000, 44100}, []int{32, 48, 64, 96, 128, 192}},
	"pcm":  {[]int{8000, 16000, 22050, 24000, 44100, 48000}, nil},
	"wav":  {[]int{8000, 16000, 22050, 24000, 44100, 48000}, nil},
	"ulaw": {[]int{8000}, nil},
	"alaw": {[]int{8000}, nil},
	"opus": {[]int{48000}, []int{32, 64, 96, 128, 192}},
}

func parseElevenFormat(s string) (core.Output, *elevenError) {
	bad := func() (core.Output, *elevenError) {
		return core.Output{}, &elevenError{http.StatusBadRequest, "invalid_output_format", fmt.Sprintf(
			"output_format %q is not one voxkit speaks: use mp3_{22050,24000,44100}_{32,48,64,96,128,192}, pcm_{8000,16000,22050,24000,44100,48000}, wav_RATE, ulaw_8000, alaw_8000 or opus_48000_{32,64,96,128,192}.", s)}
	}
	parts := strings.Split(cmp.Or(s, elevenDefaultFormat), "_")
	spec, ok := elevenFormats[parts[0]]
	if !ok || len(parts) < 2 || len(parts) != 2+min(1, len(spec.kbps)) {
		return bad()
	}
	rate, err := strconv.Atoi(parts[1])
	if err != nil || !slices.Contains(spec.rates, rate) {
		return bad()
	}
	f := core.Output{Format: encode.Format{Name: parts[0], SampleRate: rate, Streaming: true}}
	if len(parts) == 3 {
		kbps, err := strconv.Atoi(parts[2])
		if err != nil || !slices.Contains(spec.kbps, kbps) {
			return bad()
		}
		f.Format.Bitrate = kbps * 1000
	}
	switch parts[0] {
	case "ulaw":
		f = f.Companded(encode.MuLaw, encode.WAVMuLaw, false)
	case "alaw":
		f = f.Companded(encode.ALaw, encode.WAVALaw, false)
	}
	return f, nil
}

// elevenSpeechBody is the body of POST /v1/text-to-speech/{voice_id}.
type elevenSpeechBody struct {
	Text                   string              `json:"text"`
	ModelID                string              `json:"model_id"`
	LanguageCode           string              `json:"language_code"`
	VoiceSettings          *elevenVoiceSetting `json:"voice_settings"`
	ApplyTextNormalization string              `json:"apply_text_normalization"`
	Seed                   *int64              `json:"seed"`
	PreviousText           string              `json:"previous_text"`
	NextText               string              `json:"next_text"`
}

// elevenVoiceSetting is voice_settings: speed maps onto voxkit's speed;
// the others have no voxkit control.
type elevenVoiceSetting struct {
	Speed           *float64 `json:"speed"`
	Stability       *float64 `json:"stability"`
	SimilarityBoost *float64 `json:"similarity_boost"`
	Style           *float64 `json:"style"`
	UseSpeakerBoost *bool    `json:"use_speaker_boost"`
}

// ignored names the settings voxkit accepts and does not apply.
func (vs *elevenVoiceSetting) ignored() []string {
	if vs == nil {
		return nil
	}
	var out []string
	for name, set := range map[string]bool{"stability": vs.Stability != nil, "similarity_boost": vs.SimilarityBoost != nil,
		"style": vs.Style != nil, "use_speaker_boost": vs.UseSpeakerBoost != nil} {
		if set {
			out = append(out, "voice_settings."+name)
		}
	}
	slices.Sort(out)
	return out
}

// elevenRequest turns the ElevenLabs request fields into voxkit's request.
func (s *Server) elevenRequest(account, voice, text string, vs *elevenVoiceSetting, normalization string, f core.Output) (tts.Request, *elevenError) {
	req := tts.Request{Voice: s.core.Resolve(account, voice), Input: text, Account: account, Format: f.Format}
	if vs != nil && vs.Speed != nil {
		if err := tts.CheckSpeed(*vs.Speed); err != nil {
			return req, &elevenError{http.StatusBadRequest, "invalid_voice_settings", "voice_settings.speed: " + err.Error()}
		}
		req.Speed = *vs.Speed
	}
	switch normalization {
	case "", "auto", "on":
	case "off":
		req.Normalize = tts.NormalizeOff
	default:
		return req, &elevenError{http.StatusBadRequest, "invalid_request", fmt.Sprintf("apply_text_normalization %q is not auto, on or off.", normalization)}
	}
	if _, err := s.core.Voices.Lookup(account, req.Voice); err != nil {
		return req, elevenVoiceNotFound(voice)
	}
	return req, nil
}

// elevenSpeech answers POST /v1/text-to-speech/{voice_id} and its
// /stream, /with-timestamps and /stream/with-timestamps forms.
func (s *Server) elevenSpeech(w http.ResponseWriter, r *http.Request, account string) *elevenError {
	body, werr := s.core.ReadBody(w, r)
	if werr != nil {
		return toEleven(werr)
	}
	var b elevenSpeechBody
	if err := json.Unmarshal(body, &b); err != nil {
		return &elevenError{http.StatusUnprocessableEntity, "invalid_request", "The body is not a JSON object of the text-to-speech request: " + err.Error()}
	}
	if strings.TrimSpace(b.Text) == "" {
		return &elevenError{http.StatusUnprocessableEntity, "invalid_request", "text is required and may not be empty."}
	}
	f, eerr := parseElevenFormat(r.URL.Query().Get("output_format"))
	if eerr != nil {
		return eerr
	}
	req, eerr := s.elevenRequest(account, r.PathValue("voice"), b.Text, b.VoiceSettings, b.ApplyTextNormalization, f)
	if eerr != nil {
		return eerr
	}
	ignored := b.VoiceSettings.ignored()
	for name, v := range map[string]string{"model_id": b.ModelID, "language_code": b.LanguageCode, "previous_text": b.PreviousText, "next_text": b.NextText} {
		if v != "" {
			ignored = append(ignored, name)
		}
	}
	if b.Seed != nil {
		ignored = append(ignored, "seed")
	}
	slices.Sort(ignored)
	werr = s.vendorSpeak(w, r, req, func(p *tts.Prepared, codec encode.Codec) (tts.Result, error) {
		if len(ignored) > 0 {
			w.Header().Set("X-Voxkit-Ignored", strings.Join(ignored, ", "))
		}
		if strings.HasSuffix(r.URL.Path, "/with-timestamps") {
			return s.elevenTimestamps(w, r, p, f, strings.HasSuffix(r.URL.Path, "/stream/with-timestamps"))
		}
		w.Header().Set("Content-Type", cmp.Or(f.ContentType, codec.ContentType))
		return p.Stream(r.Context(), f.Writer(w))
	})
	if werr != nil {
		return toEleven(werr)
	}
	return nil
}

// elevenTimestamps answers the /with-timestamps forms: JSON with the audio
// in base64 and its character alignment, whole or (stream) one JSON line
// per sentence.
func (s *Server) elevenTimestamps(w http.ResponseWriter, r *http.Request, p *tts.Prepared, f core.Output, stream bool) (tts.Result, error) {
	var audio strings.Builder
	aligner := &align.Aligner{Input: []rune(p.Request().Input), Normalize: s.core.Normalizer(p.Request())}
	var whole align.Alignment
	var wholeNorm align.Alignment
	out := bufio.NewWriter(w)
	p.SetOnSentence(func(d tts.SentenceDone) {
		a, na := aligner.Sentence(d.Words, false)
		if !stream {
			whole.Append(a)
			wholeNorm.Append(na)
			return
		}
		line, _ := json.Marshal(map[string]any{"audio_base64": base64.StdEncoding.EncodeToString([]byte(audio.String())),
			"alignment": a.Seconds(), "normalized_alignment": na.Seconds()})
		audio.Reset()
		out.Write(line)
		out.WriteByte('\n')
		out.Flush()
		http.NewResponseController(w).Flush()
	})
	w.Header().Set("Content-Type", "application/json")
	if stream {
		w.Header().Set("Content-Type", "application/x-ndjson")
	}
	res, err := p.Stream(r.Context(), f.Writer(&audio))
	if err != nil || stream {
		return res, err
	}
	a, na := aligner.Sentence(nil, true)
	whole.Append(a)
	wholeNorm.Append(na)
	core.WriteJSON(w, http.StatusOK, map[string]any{"audio_base64": base64.StdEncoding.EncodeToString([]byte(audio.String())),
		"alignment": whole.Seconds(), "normalized_alignment": wholeNorm.Seconds()})
	return res, nil
}

// normalizerFor returns how the request's voice reads a piece of its
// input, or nil when normalization is off.
func (s *Server) normalizerFor(req tts.Request) func(string) (normalize.Text, bool) {
	if req.Normalize == tts.NormalizeOff {
		return nil
	}
	return func(piece string) (normalize.Text, bool) {
		t, err := s.core.Synth.NormalizeText(req.Account, req.Voice, piece)
		return t, err == nil
	}
}
