package elevenlabs

import (
	"bufio"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/align"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/elevenlabs/api"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/vendordoor"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/normalize"
	"github.com/voxkit/voxkit/voices"
)

// textField is ElevenLabs' name of the text to speak, which errors about
// the text name.
const textField = "text"

// defaultFormat is ElevenLabs' default output_format.
const defaultFormat = "mp3_44100_128"

// formats are the codecs of output_format, with the rates and bitrates
// (kbps) each takes.
var formats = map[string]struct {
	rates, kbps []int
}{
	"mp3":  {[]int{22050, 24000, 44100}, []int{32, 48, 64, 96, 128, 192}},
	"pcm":  {[]int{8000, 16000, 22050, 24000, 44100, 48000}, nil},
	"wav":  {[]int{8000, 16000, 22050, 24000, 44100, 48000}, nil},
	"ulaw": {[]int{8000}, nil},
	"alaw": {[]int{8000}, nil},
	"opus": {[]int{48000}, []int{32, 64, 96, 128, 192}},
}

// parseFormat parses output_format, "" its default.
func parseFormat(s string) (core.Output, *api.Error) {
	bad := func() (core.Output, *api.Error) {
		return core.Output{}, api.NewError(http.StatusBadRequest, "invalid_output_format", fmt.Sprintf(
			"output_format %q is not one voxkit speaks: use mp3_{22050,24000,44100}_{32,48,64,96,128,192}, pcm_{8000,16000,22050,24000,44100,48000}, wav_RATE, ulaw_8000, alaw_8000 or opus_48000_{32,64,96,128,192}.", s))
	}
	parts := strings.Split(cmp.Or(s, defaultFormat), "_")
	spec, ok := formats[parts[0]]
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

// speechBody is the body of POST /v1/text-to-speech/{voice_id}.
type speechBody struct {
	Text                   string             `json:"text"`
	ModelID                string             `json:"model_id"`
	LanguageCode           string             `json:"language_code"`
	VoiceSettings          *api.VoiceSettings `json:"voice_settings"`
	ApplyTextNormalization string             `json:"apply_text_normalization"`
	Seed                   *int64             `json:"seed"`
	PreviousText           string             `json:"previous_text"`
	NextText               string             `json:"next_text"`
	Locators               []api.Locator      `json:"pronunciation_dictionary_locators"`
}

// request turns the ElevenLabs request fields into voxkit's job, in the
// voice v that voice (as the client named it) was looked up as, once, by
// the caller (tts.Request.Resolved: nothing looks it up again); its speed
// is the core's to check (core.Job.Speed) and its text's emptiness tts's:
// their errors come back from the core, worded by toError.
func (d *door) request(account string, v voices.Voice, voice, text string, vs *api.VoiceSettings, normalization string, f core.Output) (core.Job, *api.Error) {
	job := core.Job{Request: tts.Request{Voice: v.ID, Resolved: v, Input: vendordoor.Breaks(text), Account: account, Format: f.Format}, Voice: voice, Field: textField}
	if vs != nil {
		// ElevenLabs' speed, like voxkit's, multiplies the voice's own
		// rate (1 is normal): the one scale, taken as it is, within
		// voxkit's range (ElevenLabs' own is 0.7 to 1.2).
		job.Speed = vs.Speed
	}
	switch normalization {
	case "", "auto", "on":
	case "off":
		job.Request.Normalize = tts.NormalizeOff
	default:
		return job, api.NewError(http.StatusBadRequest, "invalid_request", fmt.Sprintf("apply_text_normalization %q is not auto, on or off.", normalization))
	}
	return job, nil
}

// speech answers POST /v1/text-to-speech/{voice_id} and its /stream,
// /with-timestamps and /stream/with-timestamps forms.
func (d *door) speech(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	body, werr := d.c.Body.ReadBody(w, r)
	if werr != nil {
		return toError(werr)
	}
	var b speechBody
	if err := json.Unmarshal(body, &b); err != nil {
		return api.NewError(http.StatusUnprocessableEntity, "invalid_request", "The body is not a JSON object of the text-to-speech request: "+fault.JSONFault(err))
	}
	f, eerr := parseFormat(r.URL.Query().Get("output_format"))
	if eerr != nil {
		return eerr
	}
	voice := r.PathValue("voice")
	v, werr := d.c.Voices.Voice(account, voice)
	if werr != nil {
		return voiceNotFound(voice)
	}
	job, eerr := d.request(account, v, voice, b.Text, b.VoiceSettings, b.ApplyTextNormalization, f)
	refs, lerr := refsOf(b.Locators)
	if eerr = cmp.Or(eerr, lerr); eerr != nil {
		return eerr
	}
	ignored := b.VoiceSettings.Ignored()
	for name, v := range map[string]string{"model_id": b.ModelID, "language_code": b.LanguageCode, "previous_text": b.PreviousText, "next_text": b.NextText} {
		if v != "" {
			ignored = append(ignored, name)
		}
	}
	if b.Seed != nil {
		// ElevenLabs' seed, 0 to 2^32-1: voices that sample (PocketTTS)
		// draw from it; 0 is no seed, as voxkit's own seed fields.
		if *b.Seed < 0 || *b.Seed > math.MaxUint32 {
			return api.NewError(http.StatusUnprocessableEntity, "invalid_request", fmt.Sprintf("seed %d is not from 0 to %d.", *b.Seed, uint32(math.MaxUint32)))
		}
		job.Request.Seed = *b.Seed
	}
	slices.Sort(ignored)
	var contentType string
	var whole []byte // the answer of /with-timestamps
	lw := d.c.Speech.Lazy(w, func() {
		h := w.Header()
		h.Set("Content-Type", contentType)
		if whole != nil {
			h.Set("Content-Length", strconv.Itoa(len(whole)))
			h.Set("Cache-Control", "no-store")
		}
		if len(ignored) > 0 {
			h.Set("X-Voxkit-Ignored", strings.Join(ignored, ", "))
		}
		w.WriteHeader(http.StatusOK)
	})
	job.Out, job.Lexicons = lw, refs
	werr = d.c.Speech.SpeakHTTP(r, job, nil, func(p *tts.Prepared, codec encode.Codec) (tts.Result, error) {
		var res tts.Result
		var err error
		switch path := r.URL.Path; {
		case strings.HasSuffix(path, "/stream/with-timestamps"):
			contentType = "application/x-ndjson"
			res, err = timestampLines(r, lw, p, f, d.c.Speech.Normalizer(p.Request()))
		case strings.HasSuffix(path, "/with-timestamps"):
			contentType = "application/json"
			if whole, res, err = timestamps(r, p, f, d.c.Speech.Normalizer(p.Request())); err == nil {
				_, err = lw.Write(whole)
			}
		default:
			contentType = cmp.Or(f.ContentType, codec.ContentType)
			res, err = p.Stream(r.Context(), f.Writer(lw))
		}
		if err == nil {
			lw.Start() // no audio at all: still an answer
		}
		return res, err
	})
	if werr != nil {
		return toError(werr)
	}
	return nil
}

// timestamps is the answer of /with-timestamps: JSON with the whole
// audio in base64 and its character alignment, the input's and the
// normalized text's.
func timestamps(r *http.Request, p *tts.Prepared, f core.Output, norm func(string) (normalize.Text, bool)) ([]byte, tts.Result, error) {
	var audio strings.Builder
	aligner := &align.Aligner{Input: []rune(p.Request().Input), Normalize: norm}
	var whole, wholeNorm align.Alignment
	p.SetOnSentence(func(d tts.SentenceDone) {
		a, na := aligner.Sentence(d.Words, false)
		whole.Append(a)
		wholeNorm.Append(na)
	})
	res, err := p.Stream(r.Context(), f.Writer(&audio))
	if err != nil {
		return nil, res, err
	}
	a, na := aligner.Sentence(nil, true)
	whole.Append(a)
	wholeNorm.Append(na)
	return timed(audio.String(), whole.Seconds(), wholeNorm.Seconds()), res, nil
}

// timestampLines answers /stream/with-timestamps: one JSON line per
// sentence, its audio in base64 and its character alignment.
func timestampLines(r *http.Request, lw *respond.Lazy, p *tts.Prepared, f core.Output, norm func(string) (normalize.Text, bool)) (tts.Result, error) {
	var audio strings.Builder
	aligner := &align.Aligner{Input: []rune(p.Request().Input), Normalize: norm}
	out := bufio.NewWriter(lw)
	p.SetOnSentence(func(d tts.SentenceDone) {
		a, na := aligner.Sentence(d.Words, false)
		out.Write(timed(audio.String(), a.Seconds(), na.Seconds()))
		audio.Reset()
		out.Flush()
		lw.Flush()
	})
	return p.Stream(r.Context(), f.Writer(&audio))
}

// timed is a JSON line of audio and its alignments.
func timed(audio string, alignment, normalized map[string]any) []byte {
	line, _ := json.Marshal(map[string]any{"audio_base64": base64.StdEncoding.EncodeToString([]byte(audio)),
		"alignment": alignment, "normalized_alignment": normalized})
	return append(line, '\n')
}
