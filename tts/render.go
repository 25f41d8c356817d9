package tts

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tts/normalize"
	"github.com/voxkit/voxkit/voices"
)

// ErrBadTags is returned (wrapped, with the *tags.StrictError) when a
// request with StrictTags holds tags that cannot be applied as written.
var ErrBadTags = errors.New("tts: bad audio tags")

// ErrSilentPhonemes is returned (wrapped, in a *PhonemeError) when the
// phonemes of a phoneme tag (<|phoneme|>, SSML's <phoneme>) make no audio
// in the voice: the voice has none of them (they are left out), or they
// are only marks such as "." and "_".
var ErrSilentPhonemes = errors.New("tts: phonemes make no audio")

// PhonemeError is the error for a phoneme tag whose phonemes made no
// audio; errors.Is(err, ErrSilentPhonemes) holds for it.
type PhonemeError struct {
	Phonemes string // the tag's IPA
	Text     string // the text they were to say
	Voice    string
}

func (e *PhonemeError) Error() string {
	return fmt.Sprintf("%v: %q for %q in voice %q", ErrSilentPhonemes, e.Phonemes, e.Text, e.Voice)
}

func (e *PhonemeError) Unwrap() error { return ErrSilentPhonemes }

// Emphasis, where an engine cannot render it, is approximated with these
// changes — close to what espeak-ng's SSML emphasis measures (slower by a
// fifth, about 2 semitones higher, about 2 dB louder).
const (
	emphasisRate  = 0.85
	emphasisPitch = 2.0 // semitones
	emphasisGain  = 2.0 // dB
)

// ParseTags parses the audio tags of req.Input as Stream will: voice tags
// may name only voices req.Account may use, and with req.StrictTags any
// tag that cannot be applied as written fails with ErrBadTags. The
// script's Ignored method lists the tags that were dropped (for an
// x-ignored-tags header, say). The script's Lang is the voice's
// language, so that its sentences end as that language's do.
func (s *Synthesizer) ParseTags(req Request) (tags.Script, error) {
	lang := "" // the voice's, for the sentences' ends ("am 3. Tag" in German)
	if v, err := s.voiceOf(req); err == nil {
		lang = languageOf(v)
	}
	script, err := tags.Parse(req.Input, tags.Options{
		Strict: req.StrictTags,
		Open:   tags.ReadInstructions(req.Instructions).Open(),
		Lang:   lang,
		Voice: func(id string) bool {
			v, err := s.voices.Lookup(req.Account, id)
			return err == nil && s.engines[v.Engine] != nil
		},
	})
	if err != nil {
		return tags.Script{}, fmt.Errorf("%w: %w", ErrBadTags, err)
	}
	return script, nil
}

// renderer turns the parts of a script into audio for one request.
type renderer struct {
	s     *Synthesizer
	req   Request
	voice voices.Voice
	p     *pipeline
	seed  uint64 // varies the noise of successive events
	buf   []float32
	res   *Result
	// breaks go with the next text part (see withBreaks).
	breaks []engine.Break
	// loc finds the words in the input; words are the timings of the
	// sentence being rendered. Both are nil when nobody asked for words.
	loc   *locator
	words []Word
	// holds are the releases of the voices held for the request (see
	// holdVoice), by engine and engine voice.
	holds map[[2]string]func()
	// ahead renders the request's next sentences; nil for none.
	ahead *ahead
}

// holdVoice holds v for the rest of the request when its engine loads
// voices on first use (engine.VoiceHolder), so that it is loaded once
// and stays loaded between the request's sentences; the time a load
// takes counts as engine time and as Result.VoiceLoad.
func (r *renderer) holdVoice(ctx context.Context, eng engine.Engine, v voices.Voice) error {
	h, ok := eng.(engine.VoiceHolder)
	key := [2]string{v.Engine, v.EngineVoice}
	if !ok || r.holds[key] != nil {
		return nil
	}
	release, took, err := h.HoldVoice(engine.WithLoadGate(ctx, r.req.LoadGate), v.EngineVoice)
	r.res.EngineTime += took
	r.res.VoiceLoad += took
	if err != nil {
		return err
	}
	if r.holds == nil {
		r.holds = map[[2]string]func(){}
	}
	r.holds[key] = release
	return nil
}

// releaseVoices ends the holds of holdVoice.
func (r *renderer) releaseVoices() {
	for key, release := range r.holds {
		release()
		delete(r.holds, key)
	}
}

// maxBreaks is the most silence withBreaks lets an engine put into one
// sentence, which it renders in one piece: longer pauses are rendered
// apart, so that memory stays bounded (see maxHeld).
const maxBreaks = 10 * time.Second

// withBreaks returns sen as one text part and its pauses as breaks, when
// sen is text of one style with pauses between (no other events) and the
// voice's engine renders breaks (engine.FeatureBreaks): a pause then adds
// exactly its duration, where splitting the sentence around it would add
// the engine's edge silences and an utterance-final lengthening of the
// words before it.
func (r *renderer) withBreaks(sen tags.Sentence) (tags.Part, []engine.Break, bool) {
	var text strings.Builder
	var breaks []engine.Break
	var total time.Duration
	var style *tags.Style
	for _, p := range sen.Parts {
		switch {
		case p.IsEvent() && p.Event.Kind == tags.Pause:
			breaks = append(breaks, engine.Break{Offset: text.Len(), Duration: p.Event.Duration})
			total += p.Event.Duration
		case p.IsEvent():
			return tags.Part{}, nil, false
		case style != nil && p.Style != *style:
			return tags.Part{}, nil, false
		default:
			style = &p.Style
			if t := text.String(); t != "" && !unicode.IsSpace(rune(t[len(t)-1])) && !strings.HasPrefix(p.Text, " ") {
				text.WriteByte(' ') // the tag stood between two words
			}
			text.WriteString(p.Text)
		}
	}
	if style == nil || len(breaks) == 0 || total > maxBreaks {
		return tags.Part{}, nil, false
	}
	v, err := r.voiceOf(*style)
	if err != nil || !engine.Renders(r.s.engines[v.Engine], engine.FeatureBreaks) {
		return tags.Part{}, nil, false
	}
	return tags.Part{Text: text.String(), Style: *style}, breaks, true
}

// seams says which ends of a text part meet another part of its sentence:
// boundaries a tag made, where the engine's edge silence is cut (see
// trim).
type seams struct{ start, end bool }

// seamsOf returns the seams of part i of sen.
func seamsOf(sen tags.Sentence, i int) seams {
	return seams{start: i > 0, end: i < len(sen.Parts)-1}
}

// call is what an engine is asked for one text part, and what the
// renderer does with its audio: made by callOf alone, from the part, so
// that rendering ahead (see ahead) asks the engine exactly what the
// request would in turn.
type call struct {
	v        voices.Voice
	eng      engine.Engine
	req      engine.Request
	fx       effects
	at       seams
	text     string          // the text the engine reads
	said     string          // the part's text, normalized
	norm     *normalize.Text // the map from said back to the part's text; nil if the same
	phonemes bool            // the engine reads the part's phoneme tag
}

// callOf returns the call of a text part with the sentence's breaks
// (see withBreaks). It reads only what does not change during a request.
func (r *renderer) callOf(part tags.Part, at seams, breaks []engine.Break) (call, error) {
	v, err := r.voiceOf(part.Style)
	if err != nil {
		return call{}, err
	}
	eng := r.s.engines[v.Engine]
	if eng == nil {
		return call{}, fmt.Errorf("tts: voice %q needs engine %q, which is not configured", v.ID, v.Engine)
	}
	// A derived voice's default style lies under the input's tags.
	style := v.StyleFor(part.Style)
	// Text said as phonemes (<|phoneme|>) goes to the engine as written,
	// for the word it is; engines that take no phonemes read the text.
	phonemes := part.Style.Phonemes != "" && engine.Renders(eng, engine.FeaturePhonemes)
	said, norm := part.Text, (*normalize.Text)(nil)
	if phonemes {
		style.Spell = false
	} else {
		said, norm = r.normalized(part.Text, style, v)
	}
	pros, text, fx := plan(eng, style, r.req.Speed, said)
	req := engine.Request{Voice: v.EngineVoice, Text: text, Prosody: pros, Words: r.loc != nil, Seed: r.req.Seed}
	if phonemes {
		req.Phonemes = part.Style.Phonemes
	}
	if text == said {
		req.Breaks = breaks
		if norm != nil {
			req.Breaks = make([]engine.Break, len(breaks))
			for i, b := range breaks {
				req.Breaks[i] = engine.Break{Offset: norm.Out(b.Offset), Duration: b.Duration}
			}
		}
	} else {
		// The text was respelled: the breaks' offsets no longer hold, so
		// they go at the end.
		for _, b := range breaks {
			req.Breaks = append(req.Breaks, engine.Break{Offset: len(text), Duration: b.Duration})
		}
	}
	if endsClause(part.Text) {
		at.end = false // the punctuation's pause stays
	}
	return call{v: v, eng: eng, req: req, fx: fx, at: at, text: text, said: said, norm: norm, phonemes: phonemes}, nil
}

// text renders a text part: the engine renders the style controls it
// declares, the shared DSP stage the rest. At its seams the engine's edge
// silence is cut, as if the sentence had been spoken whole; the silence
// after a part that ends with punctuation stays, as the pause that the
// punctuation asks for. A part rendered ahead (pre) is taken from there
// as it comes, in place of the engine.
func (r *renderer) text(ctx context.Context, part tags.Part, at seams, pre *aheadPart) error {
	c, err := r.callOf(part, at, r.breaks)
	if err != nil {
		return err
	}
	v, eng, req, fx, text, said, norm, phonemes := c.v, c.eng, c.req, c.fx, c.text, c.said, c.norm, c.phonemes
	at = c.at
	if err := r.holdVoice(ctx, eng, v); err != nil {
		return fmt.Errorf("tts: voice %q: %w", v.ID, err)
	}
	synthesize := eng.Synthesize
	r.p.streams = engine.StreamsChunks(eng)
	defer func() { r.p.streams = false }()
	if pre != nil {
		synthesize = func(_ context.Context, _ engine.Request, emit engine.ChunkFunc) error { return pre.replay(emit) }
	}

	start := time.Now()
	r.p.emitTime = 0
	rate0 := 0
	begin, lead := r.p.pos(), 0 // where the part's audio goes, and the silence trim cut before it
	var words []engine.Word
	withWords := func(emit engine.ChunkFunc) engine.ChunkFunc {
		if r.loc == nil {
			return emit
		}
		return func(c engine.Chunk) error {
			words = append(words, c.Words...)
			return emit(c)
		}
	}
	heard := 0 // samples of the part, after trim
	// An engine that reads a voice when it speaks it (a gateway reading
	// a clone's sample) asks the request's LoadGate too.
	ctx = engine.WithLoadGate(ctx, r.req.LoadGate)
	if fx.none() {
		err = synthesize(ctx, req, withWords(trim(func(c engine.Chunk) error {
			rate0 = c.SampleRate
			heard += len(c.Samples)
			return r.p.emit(c)
		}, at, &lead)))
	} else {
		// Collect the part's audio, then apply the effects to it whole.
		r.buf = r.buf[:0]
		err = synthesize(ctx, req, withWords(trim(func(c engine.Chunk) error {
			if rate0 != 0 && c.SampleRate != rate0 {
				return fmt.Errorf("tts: engine changed sample rate within a sentence")
			}
			rate0 = c.SampleRate
			if len(r.buf)+len(c.Samples) > r.p.room(rate0) {
				return r.p.tooLong()
			}
			r.buf = append(r.buf, c.Samples...)
			heard += len(c.Samples)
			return nil
		}, at, &lead)))
	}
	r.res.EngineTime += time.Since(start) - r.p.emitTime
	defer func() {
		if err == nil && rate0 != 0 {
			end := r.p.pos()
			r.partWords(words, text, said, part.Text, norm, phonemes, func(x int) time.Duration {
				n := begin + int(float64(x-lead)*float64(r.p.outRate)/float64(rate0))
				return r.p.duration(max(begin, min(end, n)))
			})
		}
	}()
	if errors.Is(err, ErrAudioTooLong) {
		return err
	}
	if err != nil {
		return fmt.Errorf("tts: voice %q: %w", v.ID, err)
	}
	if phonemes && heard == 0 {
		// Silence where a word was asked for is a failure, not a
		// shorter success.
		return &PhonemeError{Phonemes: part.Style.Phonemes, Text: part.Text, Voice: v.ID}
	}
	if rate0 == 0 || len(r.buf) == 0 {
		return nil
	}
	x := r.buf
	if fx.whisper {
		r.seed++
		x = dsp.Whisper(x, rate0, r.seed)
	}
	if fx.pitch != 0 || fx.span != 1 {
		x = dsp.ShapePitch(x, rate0, fx.pitch, fx.span)
	}
	dsp.Gain(x, fx.gain)
	dsp.SoftLimit(x)
	return r.p.emit(engine.Chunk{Samples: x, SampleRate: rate0})
}

// normalized returns the text a part's words are read as (see
// Request.Normalize) in the language of voice v, and the map back to the
// part's own text; nil when the text is read as written.
func (r *renderer) normalized(text string, style tags.Style, v voices.Voice) (string, *normalize.Text) {
	if r.req.Normalize == NormalizeOff || style.Spell {
		return text, nil
	}
	nt := normalize.Normalize(text, languageOf(v))
	if nt.Text == text {
		return text, nil
	}
	return nt.Text, &nt
}

// languageOf is the language a voice reads in: its BCP 47 tag, else its
// id ("en-us"), which for the espeak-ng voices is one.
func languageOf(v voices.Voice) string { return cmp.Or(v.Language, v.ID) }

// silence is the level below which a sample at a part's edge counts as
// silence (−60 dBFS): espeak-ng's edge silence is exact zeros, a neural
// model's a faint noise.
const silence = 0.001

// trim returns emit with the silence at the seams of a part's audio cut:
// at its start, and at its end, where silence is held back until sound
// follows (and so dropped if none does). The trimmed emit must see the
// whole part, and the part must end with its last chunk.
//
// *lead counts the samples cut at the start.
func trim(emit engine.ChunkFunc, at seams, lead *int) engine.ChunkFunc {
	if !at.start && !at.end {
		return emit
	}
	begun := !at.start
	var held []float32 // quiet samples at the end of what came so far
	return func(c engine.Chunk) error {
		x := c.Samples
		if !begun {
			i := 0
			for i < len(x) && math.Abs(float64(x[i])) < silence {
				i++
			}
			x = x[i:]
			*lead += i
			begun = len(x) > 0
		}
		if len(x) == 0 {
			return nil
		}
		if !at.end {
			return emit(engine.Chunk{Samples: x, SampleRate: c.SampleRate})
		}
		end := len(x)
		for end > 0 && math.Abs(float64(x[end-1])) < silence {
			end--
		}
		if end == 0 {
			held = append(held, x...)
			return nil
		}
		if len(held) > 0 {
			if err := emit(engine.Chunk{Samples: held, SampleRate: c.SampleRate}); err != nil {
				return err
			}
		}
		if err := emit(engine.Chunk{Samples: x[:end], SampleRate: c.SampleRate}); err != nil {
			return err
		}
		held = append(held[:0], x[end:]...)
		return nil
	}
}

// endsClause reports whether text ends with punctuation that closes a
// clause or a sentence (closing quotes and brackets aside).
func endsClause(text string) bool {
	text = strings.TrimRight(text, " \t\r\n\"')]}”’»」』")
	r, _ := utf8.DecodeLastRuneInString(text)
	return strings.ContainsRune(",;:.!?…。！？、，；：", r)
}

// voiceOf returns the voice that speaks text styled st: the request's,
// or the one a voice tag names.
func (r *renderer) voiceOf(st tags.Style) (voices.Voice, error) {
	if st.Voice == "" {
		return r.voice, nil
	}
	v, err := r.s.voices.Lookup(r.req.Account, st.Voice)
	if err != nil { // ParseTags has checked it; the catalog changed since
		return voices.Voice{}, fmt.Errorf("tts: %w %q", engine.ErrUnknownVoice, st.Voice)
	}
	return v, nil
}

// effects are what the DSP stage applies to a part's audio.
type effects struct {
	whisper bool
	pitch   float64 // semitones
	span    float64 // pitch-range factor, 1 for none
	gain    float64 // dB
}

func (e effects) none() bool { return !e.whisper && e.pitch == 0 && e.span == 1 && e.gain == 0 }

// plan splits a style between the controls eng renders itself (in the
// Prosody, and text rewritten for spelling) and the DSP effects. speed is
// the request's speed (0 means 1).
func plan(eng engine.Engine, st tags.Style, speed float64, text string) (engine.Prosody, string, effects) {
	renders := func(f engine.Feature) bool { return engine.Renders(eng, f) }
	var pros engine.Prosody
	fx := effects{pitch: st.Pitch, span: st.RangeOrDefault(), gain: st.Gain}
	rate := speed
	if rate == 0 {
		rate = 1
	}
	rate *= st.RateOrDefault()
	if st.Emphasis {
		if renders(engine.FeatureEmphasis) {
			pros.Emphasis = true
		} else {
			rate *= emphasisRate
			fx.pitch += emphasisPitch
			fx.gain += emphasisGain
		}
	}
	pros.Rate = max(tags.MinRate, min(tags.MaxRate, rate))
	if st.Spell {
		if renders(engine.FeatureSpell) {
			pros.Spell = true
		} else {
			text = spellOut(text)
		}
	}
	if fx.span != 1 && renders(engine.FeatureRange) {
		pros.Range, fx.span = fx.span, 1
	}
	if st.Whisper {
		pros.Whisper = renders(engine.FeatureWhisper)
		fx.whisper = !pros.Whisper
	}
	if fx.pitch != 0 && renders(engine.FeaturePitch) {
		pros.Pitch, fx.pitch = fx.pitch, 0
	}
	if fx.gain != 0 && renders(engine.FeatureGain) {
		pros.Gain, fx.gain = fx.gain, 0
	}
	return pros, text, fx
}

// event renders a pause as silence and the non-verbal events as the DSP
// stage's synthetic sounds, at the rate of the audio so far. A pause that
// would pass the audio limit fails before its silence is made.
func (r *renderer) event(part tags.Part) error {
	rate := cmp.Or(r.p.inRate, r.p.lastRate, r.p.outRate)
	r.seed++
	var x []float32
	switch part.Event.Kind {
	case tags.Pause:
		n := int(part.Event.Duration.Seconds() * float64(rate))
		if n > r.p.room(rate) {
			return r.p.tooLong()
		}
		return r.silence(n, rate)
	case tags.Breath:
		x = dsp.Breath(rate, r.seed)
	case tags.Sigh:
		x = dsp.Sigh(rate, r.seed)
	case tags.Laugh:
		x = dsp.Laugh(rate, r.seed)
	case tags.Cough:
		x = dsp.Cough(rate, r.seed)
	}
	if len(x) == 0 {
		return nil
	}
	gain := part.Style.Gain
	if v, err := r.voiceOf(part.Style); err == nil {
		gain = v.StyleFor(part.Style).Gain // a derived voice's loudness too
	}
	dsp.Gain(x, gain)
	dsp.SoftLimit(x)
	return r.p.emit(engine.Chunk{Samples: x, SampleRate: rate})
}

// silenceBlock is the most silence a pause hands the pipeline at once.
const silenceBlock = 1 << 13

// silence writes n samples of silence at rate, a block at a time from one
// buffer (the pipeline copies what it is given): a pause of minutes costs
// what one of a second does, not its samples in garbage.
func (r *renderer) silence(n, rate int) error {
	block := make([]float32, min(n, silenceBlock))
	for n > 0 {
		k := min(n, len(block))
		if err := r.p.emit(engine.Chunk{Samples: block[:k], SampleRate: rate}); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// spellOut separates the letters and digits of text with spaces and
// upper-cases the letters, so an engine reads them one by one: "abc42"
// becomes "A B C 4 2".
func spellOut(text string) string {
	var b strings.Builder
	prevAlnum := false
	for _, c := range text {
		alnum := unicode.IsLetter(c) || unicode.IsDigit(c)
		if alnum && prevAlnum {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToUpper(c))
		prevAlnum = alnum
	}
	return b.String()
}
