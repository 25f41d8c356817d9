package jobs

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/sentence"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/internal/lexicons"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tags/ssml"
	"github.com/voxkit/voxkit/tts"
)

// MaxChapters is the most chapters a job may have.
const MaxChapters = 1000

// jobFields are the job's own fields; the others are the speech
// request's, as POST /v1/audio/speech reads them.
var jobFields = []string{"input", "chapters", "captions", "timestamps"}

// submission is a parsed POST /v1/audio/jobs.
type submission struct {
	spec     runner.Spec
	chapters []runner.Chapter
}

// parseJob reads a job request of account: the speech fields checked as
// the speech door checks them (the voice the account may use, the
// format, the speed, the lexicons' ids), and either input or chapters,
// within maxInput characters in all.
func (d *door) parseJob(body []byte, account string) (submission, *fault.Error) {
	var raw map[string]json.RawMessage
	if !utf8.Valid(body) || json.Unmarshal(body, &raw) != nil || raw == nil {
		return submission{}, fault.BadRequest(fault.CodeInvalidJSON, "", `The request body must be a JSON object such as {"voice":"alloy","input":"..."} or {"voice":"alloy","chapters":[{"title":"One","input":"..."}]}.`)
	}
	var s submission
	chapters, werr := chaptersOf(raw)
	if werr != nil {
		return s, werr
	}
	if werr := checkOptions(raw); werr != nil {
		return s, werr
	}
	for _, f := range []string{"stream_format", "input_stream", "voice_sample"} {
		if _, ok := raw[f]; ok {
			return s, fault.BadRequest(fault.CodeInvalidValue, f, "%s is not a field of a job: its results are files (GET /v1/audio/jobs/{id}/audio).", f)
		}
	}
	total := 0
	for _, ch := range chapters {
		total += utf8.RuneCountInString(ch.Text)
	}
	if total > d.MaxInput {
		return s, fault.BadRequest(fault.CodeStringTooLong, "input", "The job's text has %d characters, more than the limit of %d (-max-job-input).", total, d.MaxInput)
	}
	speech := make(map[string]json.RawMessage, len(raw))
	for k, v := range raw {
		if !slices.Contains(jobFields, k) {
			speech[k] = v
		}
	}
	s.spec.Speech, _ = json.Marshal(speech)
	sp, werr := d.speechOf(s.spec.Speech, chapters[0].Text)
	if werr != nil {
		return s, werr
	}
	if err := d.Formats.Check(encode.Format{Name: sp.Format}); err != nil {
		return s, fault.BadRequest(fault.CodeUnsupportedFormat, "response_format", "Unsupported response_format %s: supported values are %s.",
			fault.Echo(sp.Format), strings.Join(d.Formats.Names(), ", "))
	}
	if _, werr := d.Voices.Voice(account, sp.Voice); werr != nil {
		return s, fault.UnknownVoice(sp.Voice) // as the speech's
	}
	if err := tts.CheckSpeed(sp.Speed); err != nil {
		return s, fault.ToErrorOf(err, sp.Voice, "input")
	}
	ssmlInput := sp.InputFormat == wire.InputSSML || strings.HasPrefix(strings.TrimSpace(chapters[0].Text), "<speak")
	for i, ch := range chapters {
		// Slow speech makes shorter segments: each makes about as much
		// audio as MaxSegment characters at normal speed, within the
		// synthesizer's limit of a request's audio.
		script, _ := d.script(sp, account, ch.Text)
		chapters[i].MaxSegment = max(1, int(float64(cmp.Or(d.MaxSegment, runner.DefaultMaxSegment))*runner.Slowest(script, sp.Speed)))
		if ssmlInput && len(runner.Cut(ch.Text, chapters[i].MaxSegment)) > 1 {
			return s, fault.BadRequest(fault.CodeStringTooLong, "input", "An SSML chapter must fit one segment (%d characters at this speed): give its text as several chapters.", chapters[i].MaxSegment)
		}
	}
	s.spec.Format, s.spec.Rate = sp.Format, encode.Format{Name: sp.Format}.Rate()
	s.chapters = chapters
	return s, nil
}

// speechOf reads a job's speech fields with text as their input.
func (d *door) speechOf(speech json.RawMessage, text string) (wire.Speech, *fault.Error) {
	in, _ := json.Marshal(text)
	fields := bytes.TrimSuffix(bytes.TrimSpace(speech), []byte("}")) // speech is held: append to a copy
	body := make([]byte, 0, len(fields)+len(in)+16)
	body = append(body, fields...)
	if !bytes.Equal(bytes.TrimSpace(fields), []byte("{")) {
		body = append(body, ',')
	}
	body = append(append(append(body, `"input":`...), in...), '}')
	sp, err := wire.ParseSpeech(body, d.DefaultFormat)
	if err != nil {
		return sp, fault.ToError(err, "")
	}
	return sp, nil
}

// request is the runner's Config.Request: a segment's text as the core's
// job, in raw pcm at the job's rate.
func (d *door) request(spec runner.Spec, account, text string) (core.Job, error) {
	sp, werr := d.speechOf(spec.Speech, text)
	if werr != nil {
		return core.Job{}, werr
	}
	req := sp.Request(account, d.Voices.Resolve(account, sp.Voice))
	req.Format = encode.Format{Name: "pcm", SampleRate: spec.Rate}
	return core.Job{Request: req, Voice: sp.Voice, Speed: &sp.Speed, Lexicons: lexicons.RefsOf(sp.Lexicons)}, nil
}

// read is the runner's Config.Read: how many sentences the speech will
// say of a segment's text, split as the synthesizer splits them
// (tts.Synthesizer.ParseTags, then tags.Script.Sentences) at the
// sentence length of the slowest speed the text asks for, and the
// styles it leaves open, for the next segment of its chapter. The count
// stands for the runner's progress; the speech may differ by what
// lexicons rewrite.
func (d *door) read(spec runner.Spec, account, text string) runner.Reading {
	sp, werr := d.speechOf(spec.Speech, text)
	if werr != nil {
		return runner.Reading{}
	}
	script, ok := d.script(sp, account, text)
	if !ok {
		return runner.Reading{}
	}
	rd := runner.Reading{Sentences: len(script.Sentences(int(float64(sentence.DefaultMaxLen) * runner.Slowest(script, sp.Speed))))}
	if !isSSML(sp, text) {
		rd.Carry = runner.Carry(script.Open, tags.ReadInstructions(sp.Instructions).Open())
	}
	return rd
}

// script parses text as the synthesizer parses a request of sp's with
// it: SSML converted, tags parsed in the voice's language (its id when
// it names none), the instructions' styles open from the start. ok is
// false for text it cannot read.
func (d *door) script(sp wire.Speech, account, text string) (script tags.Script, ok bool) {
	v, _ := d.Voices.Voice(account, sp.Voice)
	lang := cmp.Or(v.Language, v.ID)
	if isSSML(sp, text) {
		c, err := ssml.Converter{Lang: lang}.Convert(text)
		if err != nil {
			return script, false
		}
		text = c.Input
	}
	script, err := tags.Parse(text, tags.Options{Lang: lang, Open: tags.ReadInstructions(sp.Instructions).Open()})
	return script, err == nil
}

// isSSML reports whether sp's speech reads text as SSML.
func isSSML(sp wire.Speech, text string) bool {
	return sp.InputFormat == wire.InputSSML || sp.InputFormat != wire.InputText && ssml.Is(text)
}

// chaptersOf reads input or chapters.
func chaptersOf(raw map[string]json.RawMessage) ([]runner.Chapter, *fault.Error) {
	in, hasIn := raw["input"]
	list, hasList := raw["chapters"]
	switch {
	case hasIn && hasList:
		return nil, fault.BadRequest(fault.CodeInvalidValue, "chapters", "Give either input or chapters, not both.")
	case hasIn:
		var text string
		if json.Unmarshal(in, &text) != nil {
			return nil, fault.BadRequest(fault.CodeInvalidType, "input", "input must be a string.")
		}
		if strings.TrimSpace(text) == "" {
			return nil, fault.BadRequest(fault.CodeStringTooShort, "input", "input must contain text to speak.")
		}
		return []runner.Chapter{{Text: text}}, nil
	case hasList:
		var chs []struct {
			Title string `json:"title"`
			Input string `json:"input"`
		}
		if json.Unmarshal(list, &chs) != nil {
			return nil, fault.BadRequest(fault.CodeInvalidType, "chapters", `chapters must be an array of objects such as {"title":"One","input":"..."}.`)
		}
		if len(chs) == 0 || len(chs) > MaxChapters {
			return nil, fault.BadRequest(fault.CodeInvalidValue, "chapters", "chapters must hold from 1 to %d chapters, not %d.", MaxChapters, len(chs))
		}
		out := make([]runner.Chapter, len(chs))
		for i, ch := range chs {
			if strings.TrimSpace(ch.Input) == "" {
				return nil, fault.BadRequest(fault.CodeStringTooShort, "chapters", "Chapter %d has no text to speak.", i+1)
			}
			out[i] = runner.Chapter{Title: ch.Title, Text: ch.Input}
		}
		return out, nil
	}
	return nil, fault.BadRequest(fault.CodeMissingParameter, "input", "Missing required parameter: 'input' (or 'chapters').")
}

// checkOptions checks captions ("srt", "vtt", or a list of them) and
// timestamps (a boolean, "word" or "none"): every job keeps both, and
// they say only what the job object lists.
func checkOptions(raw map[string]json.RawMessage) *fault.Error {
	if v, ok := raw["captions"]; ok {
		var one string
		var many []string
		if json.Unmarshal(v, &one) == nil {
			many = []string{one}
		} else if json.Unmarshal(v, &many) != nil {
			return fault.BadRequest(fault.CodeInvalidType, "captions", `captions must be "srt", "vtt" or a list of them.`)
		}
		for _, c := range many {
			if c != "srt" && c != "vtt" {
				return fault.BadRequest(fault.CodeInvalidValue, "captions", "Invalid captions %s: supported values are srt, vtt.", fault.Echo(c))
			}
		}
	}
	if v, ok := raw["timestamps"]; ok {
		var b bool
		var s string
		if json.Unmarshal(v, &b) != nil && (json.Unmarshal(v, &s) != nil || s != "word" && s != "none") {
			return fault.BadRequest(fault.CodeInvalidValue, "timestamps", `timestamps must be true, false, "word" or "none".`)
		}
	}
	return nil
}
