package cartesia

import (
	"cmp"
	"slices"
	"strings"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/cartesia/api"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/lexicons"
	"github.com/voxkit/voxkit/server/internal/vendordoor"
	"github.com/voxkit/voxkit/tts"
)

// field is Cartesia's name of the text to speak, which errors about the
// text name (core.Job.Field).
const field = api.Transcript

// rates are the sample rates Cartesia names.
var rates = []int{8000, 16000, 22050, 24000, 44100, 48000}

// output returns voxkit's way to write the format; containers lists the
// containers the endpoint takes.
func output(o *api.OutputFormat, containers ...string) (core.Output, *api.Error) {
	if o == nil {
		return core.Output{}, api.BadRequest(fault.CodeMissingParameter, "output_format is required: {\"container\": \"raw\", \"encoding\": \"pcm_s16le\", \"sample_rate\": 24000}, say.")
	}
	if !slices.Contains(containers, o.Container) {
		return core.Output{}, api.BadRequest(fault.CodeUnsupportedFormat, "output_format.container %q is not one this endpoint takes: %s.", o.Container, strings.Join(containers, ", "))
	}
	if !slices.Contains(rates, o.SampleRate) {
		return core.Output{}, api.BadRequest(fault.CodeUnsupportedFormat, "output_format.sample_rate %d is not one of 8000, 16000, 22050, 24000, 44100, 48000.", o.SampleRate)
	}
	f := core.Output{Format: encode.Format{Name: "pcm", SampleRate: o.SampleRate, Streaming: true}}
	if o.Container == "mp3" {
		f.Format.Name = "mp3"
		f.Format.Bitrate = cmp.Or(o.BitRate, 128000)
		if !slices.Contains([]int{32000, 64000, 96000, 128000, 192000}, f.Format.Bitrate) {
			return core.Output{}, api.BadRequest(fault.CodeUnsupportedFormat, "output_format.bit_rate %d is not one of 32000, 64000, 96000, 128000, 192000.", o.BitRate)
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
		return core.Output{}, api.BadRequest(fault.CodeUnsupportedFormat, "output_format.encoding %q is not one of pcm_s16le, pcm_f32le, pcm_mulaw, pcm_alaw.", o.Encoding)
	}
	return f, nil
}

// toJob turns the api.Generation request into voxkit's job (its input
// the transcript; a pronunciation_dict_id names the lexicon it applies,
// else the account's defaults apply), its voice looked up once, here
// (tts.Request.Resolved), and its speed the core's to check
// (core.Job.Speed); it names the fields voxkit accepts and ignores.
func (d door) toJob(account string, g api.Generation, f core.Output) (core.Job, []string, *api.Error) {
	if g.Voice == nil || g.Voice.ID == "" {
		return core.Job{}, nil, api.BadRequest(fault.CodeMissingParameter, "voice is required: {\"mode\": \"id\", \"id\": VOICE_ID}, where the id is a voxkit voice (GET /voices).")
	}
	if g.Voice.Mode != "" && g.Voice.Mode != "id" {
		return core.Job{}, nil, api.BadRequest(fault.CodeInvalidValue, "voice.mode %q is not supported: voxkit takes voices by id.", g.Voice.Mode)
	}
	j := core.Job{Request: tts.Request{Voice: g.Voice.ID, Account: account, Format: f.Format}, Voice: g.Voice.ID, Field: field}
	if g.PronunciationDictID != "" {
		j.Lexicons = []lexicons.LexiconRef{{ID: g.PronunciationDictID}}
	}
	if g.Transcript != nil {
		j.Request.Input = vendordoor.Breaks(*g.Transcript)
	}
	var e *api.Error
	if j.Speed, e = api.Speed(&g); e != nil {
		return j, nil, e
	}
	var ignored []string
	j.Request.Instructions, ignored = g.Styles()
	switch g.Normalization {
	case "", "auto":
	case "off":
		j.Request.Normalize = tts.NormalizeOff
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
	v, werr := d.c.Voices.Voice(account, g.Voice.ID)
	if werr != nil {
		return j, nil, api.VoiceNotFound(g.Voice.ID)
	}
	j.Request.Voice, j.Request.Resolved = v.ID, v
	return j, ignored, nil
}
