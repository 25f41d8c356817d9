package elevenlabs

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/voxkit/voxkit/server/internal/align"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/elevenlabs/api"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/sockets"
	"github.com/voxkit/voxkit/server/internal/vendordoor"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/voices"
)

// ElevenLabs' input-streaming WebSockets: stream-input (one context per
// socket) and multi-stream-input (several, each named by context_id).
// Each context is an input stream of the core whose text is spoken on
// ElevenLabs' terms: once a sentence ends, once the waiting text reaches
// the chunk schedule's next length (or its first, for
// try_trigger_generation), at a flush, and at the context's end; never
// after a delay.

// inactivity is ElevenLabs' default inactivity_timeout, and
// maxInactivity the longest it allows.
const (
	inactivity    = 20 * time.Second
	maxInactivity = 180 * time.Second
)

// defaultSchedule is ElevenLabs' default chunk_length_schedule: waiting
// text is spoken once it has this many characters, the first length for
// the first part, the next for the next, even without a sentence end.
var defaultSchedule = []int{120, 160, 250, 290}

// message is a client message of either socket.
type message struct {
	Text             *string            `json:"text"`
	Context          string             `json:"context_id"`
	VoiceSettings    *api.VoiceSettings `json:"voice_settings"`
	GenerationConfig *struct {
		ChunkLengthSchedule []int `json:"chunk_length_schedule"`
	} `json:"generation_config"`
	Flush                bool          `json:"flush"`
	TryTriggerGeneration bool          `json:"try_trigger_generation"`
	CloseContext         bool          `json:"close_context"`
	CloseSocket          bool          `json:"close_socket"`
	XIAPIKey             string        `json:"xi_api_key"`
	Locators             []api.Locator `json:"pronunciation_dictionary_locators"`
}

func (m message) ContextID() string { return m.Context }

// socket answers the handshake of either socket (multi: of
// multi-stream-input) and serves it. A caller without credentials in the
// handshake sends its key as xi_api_key in the first message.
func (d *door) socket(multi bool) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if werr := sockets.CheckUpgrade(d.c.Sockets, w.Header(), r); werr != nil {
			return werr
		}
		q := r.URL.Query()
		f, eerr := parseFormat(q.Get("output_format"))
		idle := inactivity
		if v := q.Get("inactivity_timeout"); v != "" && eerr == nil {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || time.Duration(n)*time.Second > maxInactivity {
				eerr = api.NewError(http.StatusBadRequest, "invalid_request", "inactivity_timeout must be 1 to 180 seconds.")
			}
			idle = time.Duration(n) * time.Second
		}
		voice := r.PathValue("voice")
		account := ""
		if eerr == nil && (r.Header.Get("xi-api-key") != "" || credentials.Bearer(r) != "" || d.c.Auth.HasHost()) {
			account, eerr = d.admit(r, store.ScopeSpeech)
		} // else the first message carries the key
		var v voices.Voice // looked up once, here or at the first message
		if eerr == nil && account != "" {
			var werr *fault.Error
			if v, werr = d.c.Voices.Voice(account, voice); werr != nil {
				eerr = voiceNotFound(voice)
			}
		}
		if eerr != nil {
			writeError(w, eerr)
			return nil
		}
		route.Info(r.Context()).Format = f.Format.Name
		creds := core.Creds{R: r, Key: r.Header.Get("xi-api-key"), Account: account}
		return sockets.Serve(d.c.Sockets, w, r, sockets.Options{Creds: creds, Idle: idle}, func(ss *sockets.Session) sockets.Door[message] {
			return &session{d: d, rt: ss, ctx: ss.Ctx, finished: make(chan struct{}), breaks: map[string]*vendordoor.BreakStream{}, out: ss.Out, guard: ss.Guard, open: ss.Contexts, multi: multi,
				account: account, voice: voice, v: v, format: f, norm: q.Get("apply_text_normalization")}
		})
	}
}

// session is one socket.
type session struct {
	d       *door
	rt      *sockets.Session
	ctx     context.Context
	out     *sockets.Writer
	guard   *core.Guard
	open    *core.ContextSet
	multi   bool
	account string       // "" until the first message brings the key
	voice   string       // as the client named it
	v       voices.Voice // voice looked up, once the account is known
	format  core.Output
	norm    string // apply_text_normalization
	// ending is set once the client has ended the session (stream-input's
	// end, close_socket): later messages are ignored, and finished is
	// closed when its contexts have spoken.
	ending   bool
	finished chan struct{}
	breaks   map[string]*vendordoor.BreakStream // of each open context, by id
}

// Finished is closed once the session the client ended has spoken its
// contexts (sockets.Finisher).
func (s *session) Finished() <-chan struct{} { return s.finished }

// finish ends the session once its contexts have spoken, without holding
// up the socket's loop, which goes on watching the client, the key and
// shutdown meanwhile.
func (s *session) finish() {
	s.ending = true
	go func() {
		s.open.Wait()
		close(s.finished)
	}()
}

// refused is the end of a session whose caller is not admitted.
func refused(why string) sockets.CloseReason {
	return sockets.CloseReason{Code: websocket.StatusPolicyViolation, Text: why}
}

// Refuse sends an error that names no context.
func (s *session) Refuse(werr *fault.Error) {
	s.out.Send(map[string]any{"error": werr.Message, "code": toError(werr).Status})
}

// Handle acts on one message, which came in size bytes; done says the
// session is over.
func (s *session) Handle(m message, size int) (done bool, reason sockets.CloseReason) {
	if s.account == "" { // the first message carries the key
		if m.XIAPIKey == "" {
			return true, refused("Send the API key in the xi-api-key header or as xi_api_key in the first message.")
		}
		account, werr := s.guard.AdmitKey(s.ctx, m.XIAPIKey)
		if werr != nil {
			return true, refused(werr.Message)
		}
		s.account = account
		if s.v, werr = s.d.c.Voices.Voice(account, s.voice); werr != nil {
			return true, refused(voiceNotFound(s.voice).Message)
		}
	}
	if s.ending {
		return false, reason
	}
	if m.CloseSocket {
		s.open.EndAll()
		s.finish()
		return false, reason
	}
	id := m.Context
	if !s.multi {
		id = ""
	}
	sc := s.open.Get(id)
	switch {
	case sc == nil && m.CloseContext && (m.Text == nil || strings.TrimSpace(*m.Text) == ""):
		return false, reason // a context not open, and nothing to say
	case sc == nil:
		var eerr *api.Error
		if sc, eerr = s.start(id, m); eerr != nil {
			s.send(id, map[string]any{"error": eerr.Message, "code": eerr.Status})
			return false, reason
		}
		s.breaks[id] = new(vendordoor.BreakStream)
		if m.Text != nil && *m.Text == " " {
			return false, reason // the opening message
		}
	}
	op := core.Op{Flush: m.Flush, Trigger: m.TryTriggerGeneration}
	// An empty text ends the context of stream-input, and flushes one of
	// multi-stream-input.
	empty := m.Text != nil && *m.Text == ""
	end := m.CloseContext || empty && !s.multi
	op.Flush = op.Flush || empty && s.multi
	if m.Text != nil {
		op.Text = *m.Text
	}
	op.Text = s.breaks[id].Text(op.Text, end || op.Flush) // break tags, which may come in pieces
	var sent bool
	if end {
		sent = s.open.End(sc, op, size)
	} else {
		sent = s.open.Send(sc, op, size)
	}
	if !sent {
		s.send(id, map[string]any{"error": core.ContextFull(id).Message, "code": fault.CodeBufferFull})
	}
	if end || !sent {
		delete(s.breaks, id)
	}
	if end && !s.multi {
		s.finish()
	}
	return false, reason
}

// send sends m, naming the context id on multi-stream-input.
func (s *session) send(id string, m map[string]any) {
	if s.multi {
		m["contextId"] = id
	}
	s.out.Send(m)
}

// start opens the context id with the settings of its first message:
// each sentence's audio is sent with its alignment, as it is spoken,
// then isFinal at the context's end.
func (s *session) start(id string, first message) (*core.Context, *api.Error) {
	j, eerr := s.d.request(s.account, s.v, s.voice, "", first.VoiceSettings, s.norm, s.format)
	refs, lerr := refsOf(first.Locators)
	if eerr = cmp.Or(eerr, lerr); eerr != nil {
		return nil, eerr
	}
	schedule := defaultSchedule
	if first.GenerationConfig != nil && len(first.GenerationConfig.ChunkLengthSchedule) > 0 {
		schedule = first.GenerationConfig.ChunkLengthSchedule
	}
	var audio core.Buffer
	aligner := &align.Aligner{Normalize: s.d.c.Speech.Normalizer(j.Request)}
	j.Request.OnSentence = func(d tts.SentenceDone) {
		a, na := aligner.Sentence(d.Words, false)
		s.audio(id, audio.Take(), a, na)
	}
	j.Lexicons, j.Log = refs, s.d.c.Log.With("request_id", route.RequestID(s.ctx))
	job := core.StreamJob{Job: j, Delay: -1, Schedule: schedule, Text: aligner.Write}
	begun := time.Now()
	sc, werr := s.open.Start(s.ctx, id, job, s.format.Writer(&audio), func(res tts.Result, err error) {
		var werr *fault.Error
		switch {
		case errors.As(err, &werr):
			s.send(id, map[string]any{"error": werr.Message, "code": werr.Code})
		case err != nil: // core.ErrGone: cancelled, or the socket ended
		default:
			if rest := audio.Take(); len(rest) > 0 {
				a, na := aligner.Sentence(nil, true)
				s.audio(id, rest, a, na)
			}
			s.rt.Spoke([]any{"context_id", id, "voice", s.voice}, res, begun)
			s.send(id, map[string]any{"isFinal": true})
		}
	})
	if werr != nil {
		return nil, toError(werr)
	}
	return sc, nil
}

// audio sends a message of audio of context id, with its alignment and
// the normalized text's.
func (s *session) audio(id string, audio []byte, a, na align.Alignment) {
	s.send(id, map[string]any{"audio": base64.StdEncoding.EncodeToString(audio),
		"isFinal": nil, "alignment": a.MS(), "normalizedAlignment": na.MS()})
}
