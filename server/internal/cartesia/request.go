package cartesia

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// field is Cartesia's name of the text to speak, which errors about the
// text name (core.Job.Field).
const field = "transcript"

// voiceSpec is a request's voice: an id, or {"mode":"id","id":...}.
type voiceSpec struct {
	ID   string
	Mode string
}

func (v *voiceSpec) UnmarshalJSON(b []byte) error {
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

// outputFormat is a request's output_format.
type outputFormat struct {
	Container  string `json:"container"`
	Encoding   string `json:"encoding"`
	SampleRate int    `json:"sample_rate"`
	BitRate    int    `json:"bit_rate"`
}

// rates are the sample rates Cartesia names.
var rates = []int{8000, 16000, 22050, 24000, 44100, 48000}

// output returns voxkit's way to write the format; containers lists the
// containers the endpoint takes.
func (o *outputFormat) output(containers ...string) (core.Output, *apiError) {
	if o == nil {
		return core.Output{}, badRequest(wire.CodeMissingParameter, "output_format is required: {\"container\": \"raw\", \"encoding\": \"pcm_s16le\", \"sample_rate\": 24000}, say.")
	}
	if !slices.Contains(containers, o.Container) {
		return core.Output{}, badRequest(wire.CodeUnsupportedFormat, "output_format.container %q is not one this endpoint takes: %s.", o.Container, strings.Join(containers, ", "))
	}
	if !slices.Contains(rates, o.SampleRate) {
		return core.Output{}, badRequest(wire.CodeUnsupportedFormat, "output_format.sample_rate %d is not one of 8000, 16000, 22050, 24000, 44100, 48000.", o.SampleRate)
	}
	f := core.Output{Format: encode.Format{Name: "pcm", SampleRate: o.SampleRate, Streaming: true}}
	if o.Container == "mp3" {
		f.Format.Name = "mp3"
		f.Format.Bitrate = cmp.Or(o.BitRate, 128000)
		if !slices.Contains([]int{32000, 64000, 96000, 128000, 192000}, f.Format.Bitrate) {
			return core.Output{}, badRequest(wire.CodeUnsupportedFormat, "output_format.bit_rate %d is not one of 32000, 64000, 96000, 128000, 192000.", o.BitRate)
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
		return core.Output{}, badRequest(wire.CodeUnsupportedFormat, "output_format.encoding %q is not one of pcm_s16le, pcm_f32le, pcm_mulaw, pcm_alaw.", o.Encoding)
	}
	return f, nil
}

// generation is a generation request: the body of /tts/bytes and
// /tts/sse, and a message of the WebSocket.
type generation struct {
	ModelID          string        `json:"model_id"`
	Transcript       *string       `json:"transcript"`
	Voice            *voiceSpec    `json:"voice"`
	OutputFormat     *outputFormat `json:"output_format"`
	Language         string        `json:"language"`
	Locale           string        `json:"locale"`
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
	// The WebSocket's own (and /tts/sse echoes the context).
	Context          string `json:"context_id"`
	Continue         bool   `json:"continue"`
	Flush            bool   `json:"flush"`
	MaxBufferDelayMS *int   `json:"max_buffer_delay_ms"`
	Cancel           bool   `json:"cancel"`
}

// ContextID is the context the message names (core.Message).
func (g generation) ContextID() string { return g.Context }

// Speed. Cartesia documents generation_config.speed as 0.6 to 1.5 times
// the normal rate, which is what voxkit's speed is: it maps onto
// voxkit's speed one to one, and the range is voxkit's alone
// (tts.CheckSpeed, 0.25 to 4; Cartesia's documented 0.6–1.5 lies within
// it), so that the door never holds a second range that could drift
// from it. The deprecated speed words are points of Cartesia's range.
var speeds = map[string]float64{"slowest": 0.6, "slow": 0.8, "normal": 1, "fast": 1.25, "fastest": 1.5}

// speed is the voxkit speed g asks for, 0 for the voice's own.
func (g *generation) speed() (float64, *apiError) {
	var speed float64
	if c := g.GenerationConfig; c != nil && c.Speed != nil {
		var bad *tts.SpeedError
		if errors.As(tts.CheckSpeed(*c.Speed), &bad) {
			return 0, badRequest(wire.CodeInvalidValue, "generation_config.speed %g is not between %g and %g.", bad.Speed, bad.Min, bad.Max)
		}
		speed = *c.Speed
	}
	if g.Speed != "" {
		word, ok := speeds[g.Speed]
		if !ok {
			return 0, badRequest(wire.CodeInvalidValue, "speed %q is not slow, normal or fast.", g.Speed)
		}
		speed = cmp.Or(speed, word)
	}
	return speed, nil
}

// toRequest turns the generation request into voxkit's request (its
// input the transcript), and names the fields voxkit accepts and
// ignores.
func (d door) toRequest(account string, g generation, f core.Output) (tts.Request, []string, *apiError) {
	if g.Voice == nil || g.Voice.ID == "" {
		return tts.Request{}, nil, badRequest(wire.CodeMissingParameter, "voice is required: {\"mode\": \"id\", \"id\": VOICE_ID}, where the id is a voxkit voice (GET /voices).")
	}
	if g.Voice.Mode != "" && g.Voice.Mode != "id" {
		return tts.Request{}, nil, badRequest(wire.CodeInvalidValue, "voice.mode %q is not supported: voxkit takes voices by id.", g.Voice.Mode)
	}
	req := tts.Request{Voice: d.c.Resolve(account, g.Voice.ID), Account: account, Format: f.Format}
	if g.Transcript != nil {
		req.Input = *g.Transcript
	}
	speed, e := g.speed()
	if e != nil {
		return req, nil, e
	}
	req.Speed = speed
	var ignored []string
	if c := g.GenerationConfig; c != nil {
		if c.Volume != nil {
			ignored = append(ignored, "generation_config.volume")
		}
		if len(c.Emotion) > 0 {
			ignored = append(ignored, "generation_config.emotion")
		}
	}
	switch g.Normalization {
	case "", "auto":
	case "off":
		req.Normalize = tts.NormalizeOff
	default:
		ignored = append(ignored, "normalization") // a locale: voxkit reads by the voice's language
	}
	for name, v := range map[string]string{"model_id": g.ModelID, "language": g.Language, "locale": g.Locale} {
		if v != "" {
			ignored = append(ignored, name)
		}
	}
	if g.AddPhonemeTimestamps {
		ignored = append(ignored, "add_phoneme_timestamps")
	}
	slices.Sort(ignored)
	if _, werr := d.c.Voice(account, g.Voice.ID); werr != nil {
		return req, nil, voiceNotFound(g.Voice.ID)
	}
	return req, ignored, nil
}
