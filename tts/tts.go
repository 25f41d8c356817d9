package tts

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/dsp"
	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/tags/ssml"
	"github.com/voxkit/voxkit/tts/normalize"
	"github.com/voxkit/voxkit/voices"
)

// DefaultMaxInput is the longest input, in characters, accepted when
// Options.MaxInput is 0. It matches OpenAI's speech endpoint.
const DefaultMaxInput = 4096

// StreamInputFactor is how many times MaxInput one TextStream may be
// written in all when Options.MaxStreamInput is 0: 65,536 characters by
// default, more than the audio limit lets a stream speak at any speed
// (DefaultMaxAudio holds about 9,000 characters of English at speed 1).
const StreamInputFactor = 16

// Errors returned (wrapped) by Synthesize and Stream before any audio is
// written; the typed errors below carry their details. An unknown voice
// is engine.ErrUnknownVoice (see UnknownVoiceError).
var (
	ErrEmptyInput        = errors.New("tts: input is empty")
	ErrInputTooLong      = errors.New("tts: input is too long")
	ErrUnsupportedFormat = errors.New("tts: unsupported format")
	ErrBadSpeed          = errors.New("tts: speed out of range")
)

// UnknownVoiceError is the error for a voice id the catalog does not
// have (or that belongs to another account). errors.Is(err,
// engine.ErrUnknownVoice) holds for it. A voice the catalog has but its
// engine cannot speak is an *engine.UnsupportedVoiceError instead.
type UnknownVoiceError struct {
	Voice string
	// Suggestions are up to three ids of voices the caller may use that
	// are closest to Voice, closest first.
	Suggestions []string
}

func (e *UnknownVoiceError) Error() string {
	msg := fmt.Sprintf("tts: %v %q", engine.ErrUnknownVoice, e.Voice)
	if len(e.Suggestions) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(e.Suggestions, ", "))
	}
	return msg
}

func (e *UnknownVoiceError) Unwrap() error { return engine.ErrUnknownVoice }

// SpeedError is the error for a Request.Speed outside the speaking-rate
// range, tags.MinRate to tags.MaxRate (those of OpenAI's speech
// endpoint); errors.Is(err, ErrBadSpeed) holds for it.
type SpeedError struct {
	Speed    float64
	Min, Max float64
}

func (e *SpeedError) Error() string {
	return fmt.Sprintf("%v: %g is not between %g and %g", ErrBadSpeed, e.Speed, e.Min, e.Max)
}

func (e *SpeedError) Unwrap() error { return ErrBadSpeed }

// CheckSpeed returns a *SpeedError for a speed outside tags.MinRate to
// tags.MaxRate, 0 and NaN included (a Request's Speed of 0 means 1: check
// a speed a caller gave explicitly with CheckSpeed).
func CheckSpeed(speed float64) error {
	if speed >= tags.MinRate && speed <= tags.MaxRate {
		return nil
	}
	return &SpeedError{Speed: speed, Min: tags.MinRate, Max: tags.MaxRate}
}

// InputTooLongError is the error for an input of more characters than
// the Synthesizer's MaxInput, or (Waiting) for text a TextStream holds
// that has not reached a sentence end; errors.Is(err, ErrInputTooLong)
// holds for it.
type InputTooLongError struct {
	Length, Max int
	Waiting     bool
	// Stream is set when Length counts all the text a TextStream was
	// written (Options.MaxStreamInput), spoken or not.
	Stream bool
	// Lexicons is set when Length counts the input with the aliases of
	// Request.Lexicons written in, which made it too long.
	Lexicons bool
}

func (e *InputTooLongError) Error() string {
	if e.Stream {
		return fmt.Sprintf("%v: a text stream was written %d characters, the limit is %d", ErrInputTooLong, e.Length, e.Max)
	}
	if e.Waiting {
		return fmt.Sprintf("%v: %d characters wait for a sentence end, the limit is %d", ErrInputTooLong, e.Length, e.Max)
	}
	if e.Lexicons {
		return fmt.Sprintf("%v: %d characters with the lexicons' aliases, the limit is %d", ErrInputTooLong, e.Length, e.Max)
	}
	return fmt.Sprintf("%v: %d characters, the limit is %d", ErrInputTooLong, e.Length, e.Max)
}

func (e *InputTooLongError) Unwrap() error { return ErrInputTooLong }

// FormatError is the error for a Request.Format the Synthesizer's codecs
// cannot encode: its name is not one of Supported, or (Err) the codec
// refuses its settings. errors.Is(err, ErrUnsupportedFormat) holds for it.
type FormatError struct {
	Format    encode.Format
	Supported []string
	Err       error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%v: %v", ErrUnsupportedFormat, e.Err)
}

func (e *FormatError) Unwrap() []error { return []error{ErrUnsupportedFormat, e.Err} }

// Options configure a Synthesizer.
type Options struct {
	// Engines maps engine names (voices.Voice.Engine) to engines.
	Engines map[string]engine.Engine
	// CloseEngines makes Close close the engines that are io.Closers;
	// otherwise the caller closes them after the Synthesizer's last use.
	CloseEngines bool
	// Voices is the catalog of voice ids. nil means a catalog of the
	// voices the engines list (those that are engine.VoiceListers), each
	// under its engine's name in Engines.
	Voices *voices.Catalog
	// Formats is the codec registry; nil means encode.DefaultRegistry.
	Formats *encode.Registry
	// MaxInput is the longest input in characters; 0 means
	// DefaultMaxInput.
	MaxInput int
	// MaxAudio is the most audio one request may make; 0 means
	// DefaultMaxAudio. See ErrAudioTooLong.
	MaxAudio time.Duration
	// MaxStreamInput is the most text, in characters, one TextStream
	// may be written in all, spoken or not (punctuation alone makes no
	// audio, so the audio limit does not end it); 0 means
	// StreamInputFactor × MaxInput. See InputTooLongError.Stream.
	MaxStreamInput int
	// MaxParallel is how many pieces of text are rendered (synthesized,
	// given their effects and resampled) at once across all requests; 0
	// means runtime.GOMAXPROCS(0). Rendering is CPU-bound: more at once
	// only makes each wait for a core in the middle of its work. A piece
	// waits for a free slot before it starts, and that wait counts as
	// engine time (Result.EngineTime), like a queue in front of a model
	// server. Slots are shared fairly between accounts
	// (Request.Account): a free slot goes to the waiting account that
	// holds the fewest, so one account's many requests do not make
	// another's wait behind them all.
	MaxParallel int
	// QuickStart cuts the first sentence of a Stream, when it is longer
	// than this many characters, at a clause boundary, so that its first
	// clause is heard while the rest renders (see quickStart); 0 means
	// DefaultQuickStart, negative never cuts. WriteClip and Synthesize,
	// which deliver the clip whole, never cut.
	QuickStart int
	// Ahead is how many sentences past the one being written a request of
	// several sentences may render ahead, in parallel, on render slots
	// that are free (MaxParallel): one sentence per free slot, none while
	// any piece of text waits for a slot or as many requests run as there
	// are slots, and no more slots than the
	// account's (Request.AccountSlots); the sentences are written in
	// order, the same audio as rendered in turn. 0 means DefaultAhead,
	// negative none. A TextStream renders none ahead.
	Ahead int
	// Logger receives debug logs; nil means slog.Default().
	Logger *slog.Logger
}

// Synthesizer turns text into encoded speech. It is safe for concurrent
// use.
type Synthesizer struct {
	engines  map[string]engine.Engine
	closers  []io.Closer // engines Close closes
	voices   *voices.Catalog
	formats  *encode.Registry
	maxInput int
	maxAudio time.Duration
	// maxStream is Options.MaxStreamInput.
	maxStream int
	quick     int // Options.QuickStart
	ahead     int // Options.Ahead, 0 for none
	slots     *scheduler
	running   atomic.Int32 // requests in run: Stream's and WriteClip's
	log       *slog.Logger
}

// New returns a Synthesizer. It checks that every engine the catalog's
// voices name is present.
func New(opts Options) (*Synthesizer, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Voices == nil {
		cat, err := catalogOf(opts.Engines, opts.Logger)
		if err != nil {
			return nil, err
		}
		opts.Voices = cat
	}
	s := &Synthesizer{
		engines:  opts.Engines,
		voices:   opts.Voices,
		formats:  opts.Formats,
		maxInput: opts.MaxInput,
		maxAudio: opts.MaxAudio,
		quick:    cmp.Or(opts.QuickStart, DefaultQuickStart),
		ahead:    max(0, cmp.Or(opts.Ahead, DefaultAhead)),
		log:      opts.Logger,
	}
	if s.formats == nil {
		s.formats = encode.DefaultRegistry
	}
	if s.maxInput <= 0 {
		s.maxInput = DefaultMaxInput
	}
	if s.maxAudio <= 0 {
		s.maxAudio = DefaultMaxAudio
	}
	s.maxStream = opts.MaxStreamInput
	if s.maxStream <= 0 {
		s.maxStream = StreamInputFactor * s.maxInput
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if opts.MaxParallel <= 0 {
		opts.MaxParallel = runtime.GOMAXPROCS(0)
	}
	s.slots = newScheduler(opts.MaxParallel)
	for _, v := range s.voices.List("") {
		if s.engines[v.Engine] == nil {
			return nil, fmt.Errorf("tts: voice %q needs engine %q, which is not configured", v.ID, v.Engine)
		}
	}
	if opts.CloseEngines {
		for _, name := range slices.Sorted(maps.Keys(s.engines)) {
			if c, ok := s.engines[name].(io.Closer); ok {
				s.closers = append(s.closers, c)
			}
		}
	}
	return s, nil
}

// catalogOf returns a catalog of the voices the engines list. A voice the
// catalog refuses (a bad id, an id an engine earlier in name order has)
// is logged and left out, as a voices directory's rescan does; an engine
// that cannot list its voices fails.
func catalogOf(engines map[string]engine.Engine, log *slog.Logger) (*voices.Catalog, error) {
	cat := new(voices.Catalog)
	now := time.Now()
	for _, name := range slices.Sorted(maps.Keys(engines)) {
		if _, ok := engines[name].(engine.VoiceLister); !ok {
			continue
		}
		err := cat.AddEngine(context.Background(), name, engines[name], now)
		switch {
		case errors.Is(err, voices.ErrVoiceLeftOut):
			log.Warn("tts: voices left out", "engine", name, "err", err)
		case err != nil:
			return nil, fmt.Errorf("tts: %w", err)
		}
	}
	return cat, nil
}

// Close closes the engines when Options.CloseEngines was set, and does
// nothing otherwise. The Synthesizer must not be used after Close.
func (s *Synthesizer) Close() error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// Voices returns the catalog of voices the Synthesizer speaks with.
func (s *Synthesizer) Voices() *voices.Catalog { return s.voices }

// Cloner returns the first engine, by name, that makes voices from
// recordings (engine.Cloner), and its name (voices.Voice.Engine for the
// voices it makes); nil and "" when no engine does.
func (s *Synthesizer) Cloner() (engine.Cloner, string) {
	for _, name := range slices.Sorted(maps.Keys(s.engines)) {
		if c, ok := s.engines[name].(engine.Cloner); ok {
			return c, name
		}
	}
	return nil, ""
}

// Formats returns the registry of the formats the Synthesizer writes.
func (s *Synthesizer) Formats() *encode.Registry { return s.formats }

// NormalizeText returns input as voice reads it with Request.Normalize
// on: lexicons applied first, as Request.Lexicons are for speech (an
// alias written in, a phoneme entry's grapheme in a phoneme tag), then
// its written forms as words of the voice's language, its tags as
// written, and the map back to input as written.
func (s *Synthesizer) NormalizeText(account, voice, input string, lexicons ...*lexicon.Lexicon) (normalize.Text, error) {
	n := utf8.RuneCountInString(input)
	if n > s.maxInput {
		return normalize.Text{}, &InputTooLongError{Length: n, Max: s.maxInput}
	}
	if err := checkLexicons(lexicons); err != nil {
		return normalize.Text{}, err
	}
	v, err := s.voices.Lookup(account, voice)
	if err != nil {
		return normalize.Text{}, &UnknownVoiceError{Voice: voice, Suggestions: s.voices.Suggest(account, voice, 3)}
	}
	if len(lexicons) == 0 {
		return normalize.Normalize(input, languageOf(v)), nil
	}
	x, err := s.relex(input, n, lexicons, nil)
	if err != nil {
		return normalize.Text{}, err
	}
	if x.spans == nil {
		return normalize.Normalize(input, languageOf(v)), nil
	}
	return x.normalized(input, normalize.Normalize(x.text, languageOf(v))), nil
}

// Codec returns the codec that encodes format f, or a *FormatError when
// the Synthesizer cannot encode it.
func (s *Synthesizer) Codec(f encode.Format) (encode.Codec, error) {
	if err := s.formats.Check(f); err != nil {
		return encode.Codec{}, &FormatError{Format: f, Supported: s.formats.Names(), Err: err}
	}
	return s.formats.Lookup(f.Name)
}

// MaxInput returns the longest input, in characters, it accepts.
func (s *Synthesizer) MaxInput() int { return s.maxInput }

// MaxStreamInput returns the most characters one TextStream may be
// written.
func (s *Synthesizer) MaxStreamInput() int { return s.maxStream }

// MaxAudio returns the most audio one request may make.
func (s *Synthesizer) MaxAudio() time.Duration { return s.maxAudio }

// Request is a full synthesis request.
type Request struct {
	// Voice is a voice id from the catalog.
	Voice string
	// Input is the text to speak.
	Input string
	// Format is the output format.
	Format encode.Format
	// Speed multiplies the speaking rate, from tags.MinRate to tags.MaxRate; 0
	// means 1.
	Speed float64
	// Resolved, when its ID is set, is the voice Voice names as Account
	// sees it, looked up in Options.Voices already (Checked sets it, and a
	// server whose door looks a voice up once sets it there): the checks
	// and the synthesis use it and do not look the voice up again.
	Resolved voices.Voice
	// Account is the caller's account id, which may use its own voice
	// clones besides the global voices. Empty means global voices only.
	// Render slots are shared fairly between accounts; "" is one account
	// of its own.
	Account string
	// StrictTags rejects input whose audio tags cannot all be applied as
	// written (unknown, bad or out-of-range values, voices the account
	// may not use) with ErrBadTags, instead of dropping them.
	StrictTags bool
	// InputFormat says how Input is written: InputAuto (the zero value)
	// takes input whose first non-space characters are "<speak" as SSML
	// (package tags/ssml: the subset every engine honours, mapped onto
	// audio tags; malformed SSML fails with an *ssml.SyntaxError), InputText
	// never, InputSSML always. Word timings of SSML count the characters of
	// its text with the tags it became.
	InputFormat InputFormat
	// Normalize says whether written forms are read as words in the
	// voice's language ("$9.50" as "nine dollars and fifty cents", see
	// package normalize): NormalizeOn, the zero value, or NormalizeOff to
	// have the engine read the text as written. Word timings point at the
	// text as written either way.
	Normalize Normalization
	// Lexicons are pronunciation lexicons applied to the input, at most
	// MaxLexicons, in order: where two have a grapheme at one place in
	// the text, the first wins (see package lexicon for how words are
	// matched). An alias is read in place of its grapheme, before
	// normalization; a phoneme entry says its grapheme as its IPA, as a
	// <|phoneme|> tag does, on every engine that takes phonemes (others
	// read the text). Text inside phoneme and spell tags and what SSML's
	// <phoneme>, <sub> and <say-as> say is left alone. The input with
	// the aliases written in counts against Options.MaxInput; word
	// timings point at the text as written, one Word for an alias's
	// words.
	Lexicons []*lexicon.Lexicon
	// Instructions is a free-text style prompt, such as "Speak slowly and
	// calmly" (OpenAI's "instructions"): the words of its small
	// vocabulary (see tags.ReadInstructions) style the whole input as
	// the tags they name would, written before it; the words it does not
	// understand are listed in Result.IgnoredTags as
	// "instructions:WORD". Empty or "None" asks for nothing.
	Instructions string
	// Seed, when not 0, is passed to the engine with each sentence
	// (engine.Request.Seed): a voice that samples (PocketTTS) then says
	// the same text the same way every time.
	Seed int64
	// OnSentence, when set, is called after each sentence's audio has
	// been written to the writer (and flushed, when streaming), with
	// where it lies in the audio and the timings of its words. It runs on
	// the synthesizing goroutine: synthesis waits for it.
	OnSentence func(SentenceDone)
	// AccountSlots, when not 0, is the most render slots Account may hold
	// at once for rendering ahead (see Options.Ahead): a sentence is
	// rendered ahead only while the account holds fewer. A server sets it
	// to the account's concurrency limit, so that a request's look-ahead
	// uses the slots of requests the account may run but does not.
	AccountSlots int
	// LoadGate, when set, is asked before an engine loads a voice for
	// this request (engine.LoadGate: a voice loaded on first use, or a
	// clone not in memory); its error refuses the load and ends the
	// request with it. A server counts voice loads against the account
	// that causes them with it.
	LoadGate engine.LoadGate
}

// InputFormat says how a request's input is written.
type InputFormat int

const (
	// InputAuto is SSML when the input starts with "<speak", else text.
	InputAuto InputFormat = iota
	// InputText is text with audio tags.
	InputText
	// InputSSML is SSML.
	InputSSML
)

// Normalization says whether a request's written forms are read as words.
type Normalization int

const (
	// NormalizeOn reads numbers, money, dates, units, abbreviations and
	// the like as a careful reader would (package normalize).
	NormalizeOn Normalization = iota
	// NormalizeOff hands the text to the engine as written.
	NormalizeOff
)

// Result describes a finished synthesis.
type Result struct {
	// Samples is the number of samples written, at the format's rate.
	Samples int
	// Audio is the duration of the audio written.
	Audio time.Duration
	// EngineTime is the time spent inside the engine (inference) and
	// waiting for an engine slot (Options.MaxParallel), not counting
	// resampling, encoding and writing.
	EngineTime time.Duration
	// SlotWait is the part of EngineTime spent waiting for a render slot
	// (Options.MaxParallel) while others used them all.
	SlotWait time.Duration
	// VoiceLoad is the part of EngineTime spent loading the voices the
	// request used (or waiting for another request's load of them): an
	// engine that loads a voice on first use (engine.VoiceHolder) makes
	// the first request for a cold voice pay for it; 0 otherwise.
	VoiceLoad time.Duration
	// SynthesisTime is the time spent producing the audio: EngineTime
	// plus tag effects, resampling and encoding, up to the encoder's
	// final flush. It leaves out parsing and validation and the time
	// writes to w were blocked, except for a complete clip written
	// through to an io.WriterAt (see WriteClip), where writing is part
	// of making the clip and counts.
	SynthesisTime time.Duration
	// Sentences is the number of sentences synthesized.
	Sentences int
	// IgnoredTags lists the audio tags that were dropped, without their
	// delimiters ("wink", "rate:abc"), each once.
	IgnoredTags []string
	// ClampedTags lists the audio tags that apply with their value
	// clamped to its limit ("pause:6s", "rate:9"), in the same form.
	ClampedTags []string
}

// Load is how busy a Synthesizer's render slots are (Options.MaxParallel).
type Load struct {
	// Busy is the number of slots rendering now.
	Busy int
	// Waiting is the number of pieces of text waiting for a slot.
	Waiting int
}

// SetMaxParallel changes Options.MaxParallel while the Synthesizer runs
// (a gateway's, as its workers come and go); n below 1 means 1. Pieces
// rendering beyond a lowered n finish; no new one starts until fewer
// than n render.
func (s *Synthesizer) SetMaxParallel(n int) { s.slots.resize(max(n, 1)) }

// Load returns how busy the render slots are now.
func (s *Synthesizer) Load() Load {
	busy, waiting := s.slots.load()
	return Load{Busy: busy, Waiting: waiting}
}

// Synthesize returns a complete clip of voice speaking input in format
// (the zero Format is wav at 24 kHz).
func (s *Synthesizer) Synthesize(ctx context.Context, voice, input string, format encode.Format) ([]byte, error) {
	clip, _, err := s.SynthesizeRequest(ctx, Request{Voice: voice, Input: input, Format: format})
	return clip, err
}

// SynthesizeRequest returns a complete clip of req and what went into it
// (tags ignored or clamped, durations).
func (s *Synthesizer) SynthesizeRequest(ctx context.Context, req Request) ([]byte, Result, error) {
	var buf bytes.Buffer
	res, err := s.WriteClip(ctx, &buf, req)
	if err != nil {
		return nil, res, err
	}
	return buf.Bytes(), res, nil
}

// WriteClip writes a complete clip of req to w: its header carries the
// clip's exact length, so nothing reaches w until the end unless w is also
// an io.WriterAt whose offset 0 is the clip's first byte (a new file, say;
// see encode.WriterAt for the files that are not: a pipe, a file opened to
// append), which the clip is then written through to (and the time that takes is
// synthesis time: see Result.SynthesisTime). Use Stream to have each
// sentence written as soon as it is ready. On error, what was written to w
// is not a valid clip.
func (s *Synthesizer) WriteClip(ctx context.Context, w io.Writer, req Request) (Result, error) {
	p, err := s.Prepare(req)
	if err != nil {
		return Result{}, err
	}
	return p.WriteClip(ctx, w)
}

// Prepared is a request validated, its voice found and its tags parsed,
// once: Prepare's result, ready to run with Stream or WriteClip. A server
// prepares a request to answer its errors before it starts a response,
// then runs it without checking it again. It is not safe for concurrent
// use, and runs once.
type Prepared struct {
	s      *Synthesizer
	req    Request // its Input is SSML's as tagged text
	voice  voices.Voice
	script tags.Script
	// ignored are the SSML elements left out.
	ignored []string
	// source maps characters of req.Input to the client's input (its
	// SSML, or its text before lexicons); nil when they are the same.
	source func(start, end int) (int, int)
	// written is the client's input when lexicons rewrote it, else "".
	written string
}

// Prepare checks req as Stream and WriteClip would before writing
// anything: the voice, the input and its length, the speed, the format,
// the tags (all of them with StrictTags) and the audio the input would
// make (ErrAudioTooLong past Options.MaxAudio).
func (s *Synthesizer) Prepare(req Request) (*Prepared, error) {
	p := &Prepared{s: s, req: req}
	if err := p.prepare(); err != nil {
		return nil, err
	}
	return p, nil
}

// Voice returns the catalog voice the request speaks with.
func (p *Prepared) Voice() voices.Voice { return p.voice }

// Request returns the request as prepared.
func (p *Prepared) Request() Request { return p.req }

// SetOnSentence sets the prepared request's OnSentence (see Request).
func (p *Prepared) SetOnSentence(f func(SentenceDone)) { p.req.OnSentence = f }

// Stream is Synthesizer.Stream of the prepared request.
func (p *Prepared) Stream(ctx context.Context, w io.Writer) (Result, error) {
	p.req.Format.Streaming = true
	return p.s.run(ctx, w, p)
}

// WriteClip is Synthesizer.WriteClip of the prepared request.
func (p *Prepared) WriteClip(ctx context.Context, w io.Writer) (Result, error) {
	p.req.Format.Streaming = false
	return p.s.run(ctx, w, p)
}

// prepare validates the request and parses its tags. SSML input is
// turned into tagged text first, in p.req, the elements it leaves out are
// ignored and p.source maps characters of the tagged text back to the
// SSML.
func (p *Prepared) prepare() error {
	s, req := p.s, &p.req
	written := req.Input
	if strings.TrimSpace(req.Input) == "" {
		return ErrEmptyInput // before the voice, as Check
	}
	v, err := s.check(*req)
	if err != nil {
		return err
	}
	req.Resolved = v // ParseTags and the renderer look it up no more

	var rewritten func(int) bool // what SSML's say-as and sub wrote
	if req.InputFormat == InputSSML || req.InputFormat == InputAuto && ssml.Is(req.Input) {
		converted, err := ssml.Converter{Lang: languageOf(v), MaxBreaks: s.maxAudio}.Convert(req.Input)
		var breaks *ssml.BreakLimitError
		if errors.As(err, &breaks) {
			return &AudioLimitError{Estimate: breaks.Total.Round(time.Second), Limit: s.maxAudio}
		}
		if err != nil {
			return err
		}
		req.Input, req.InputFormat, p.ignored, p.source = converted.Input, InputText, converted.Ignored, converted.Source
		rewritten = converted.Rewritten
	}
	n, err := s.checkText(req.Input)
	if err != nil {
		return err
	}
	if len(req.Lexicons) > 0 {
		x, err := s.relex(req.Input, n, req.Lexicons, rewritten)
		if err != nil {
			return err
		}
		if x.spans != nil {
			req.Input, p.written = x.text, written
			p.source = chainSource(x.source, p.source)
		}
	}
	script, err := s.ParseTags(*req)
	if err != nil {
		return err
	}
	p.ignored = append(p.ignored, tags.ReadInstructions(req.Instructions).Ignored()...)
	if err := checkAudio(script, req.Speed, s.maxAudio); err != nil {
		return err
	}
	for _, name := range s.unspokenPhonemes(*req, v, script) {
		if !slices.Contains(p.ignored, name) {
			p.ignored = append(p.ignored, name)
		}
	}
	p.voice, p.script = v, script
	return nil
}

// unspokenPhonemes lists what of the script's phoneme tags will not be
// heard: "phoneme" when a voice's engine takes no phonemes (the text is
// read instead), and "phoneme:SYMBOL" for each symbol a voice has no
// phoneme for (it is left out), written as Go escapes past ASCII
// ("phoneme:\u0298", a comma "\x2c") so that the list fits an HTTP
// header.
func (s *Synthesizer) unspokenPhonemes(req Request, v voices.Voice, script tags.Script) []string {
	var out []string
	for _, p := range script.Parts {
		if p.IsEvent() || p.Style.Phonemes == "" {
			continue
		}
		pv := v
		if p.Style.Voice != "" {
			var err error
			if pv, err = s.voices.Lookup(req.Account, p.Style.Voice); err != nil {
				continue // ParseTags dropped the tag
			}
		}
		eng := s.engines[pv.Engine]
		if !engine.Renders(eng, engine.FeaturePhonemes) {
			out = append(out, "phoneme")
			continue
		}
		c, ok := eng.(engine.PhonemeChecker)
		if !ok {
			continue
		}
		unknown, err := c.UnknownPhonemes(context.Background(), pv.EngineVoice, p.Style.Phonemes)
		if err != nil {
			continue // the voice's own error shows when it speaks
		}
		for _, sym := range unknown {
			q := strconv.QuoteToASCII(sym)
			out = append(out, "phoneme:"+strings.ReplaceAll(q[1:len(q)-1], ",", `\x2c`))
		}
	}
	return out
}

// Check runs the checks of Prepare that cost little, and returns the
// first error of theirs Prepare would return, in this order: the input's
// being empty (ErrEmptyInput: the one owner of that rule), the voice, the
// speed, the format, the number of lexicons, and a plain text input's
// being too long (an SSML input's length is known once it is converted).
// A server runs it before it admits a request, so that a request it
// refuses for its limits costs it little, and Prepare after.
func (s *Synthesizer) Check(req Request) error {
	_, err := s.Checked(req)
	return err
}

// Checked is Check that returns req with its voice resolved
// (Request.Resolved), so that Prepare does not look it up again.
func (s *Synthesizer) Checked(req Request) (Request, error) {
	if strings.TrimSpace(req.Input) == "" {
		return req, ErrEmptyInput
	}
	v, err := s.check(req)
	if err != nil {
		return req, err
	}
	req.Resolved = v
	if req.InputFormat == InputSSML || req.InputFormat == InputAuto && ssml.Is(req.Input) {
		return req, nil
	}
	_, err = s.checkText(req.Input)
	return req, err
}

// checkText refuses text (an input, SSML converted) that is empty or too
// long, and returns its length in characters.
func (s *Synthesizer) checkText(input string) (int, error) {
	if strings.TrimSpace(input) == "" {
		return 0, ErrEmptyInput
	}
	n := utf8.RuneCountInString(input)
	if n > s.maxInput {
		return n, &InputTooLongError{Length: n, Max: s.maxInput}
	}
	return n, nil
}

// check validates what a request holds besides its input: the voice
// (req.Resolved, else looked up), the speed and the format.
func (s *Synthesizer) check(req Request) (voices.Voice, error) {
	v, err := s.voiceOf(req)
	if err != nil {
		return voices.Voice{}, err
	}
	if req.Speed != 0 {
		if err := CheckSpeed(req.Speed); err != nil {
			return voices.Voice{}, err
		}
	}
	if _, err := s.Codec(req.Format); err != nil {
		return voices.Voice{}, err
	}
	if s.engines[v.Engine] == nil {
		return voices.Voice{}, fmt.Errorf("tts: voice %q needs engine %q, which is not configured", v.ID, v.Engine)
	}
	if err := checkLexicons(req.Lexicons); err != nil {
		return voices.Voice{}, err
	}
	return v, nil
}

// voiceOf is req's voice: req.Resolved when set, else the catalog's.
func (s *Synthesizer) voiceOf(req Request) (voices.Voice, error) {
	if req.Resolved.ID != "" {
		return req.Resolved, nil
	}
	v, err := s.voices.Lookup(req.Account, req.Voice)
	if errors.Is(err, engine.ErrUnsupportedVoice) {
		return voices.Voice{}, fmt.Errorf("tts: voice %q: %w", req.Voice, err)
	}
	if err != nil {
		return voices.Voice{}, &UnknownVoiceError{Voice: req.Voice, Suggestions: s.voices.Suggest(req.Account, req.Voice, 3)}
	}
	return v, nil
}

// Stream synthesizes req and writes the encoded audio to w as the engine
// makes it, in the format's streaming form (see encode.Format.Streaming:
// a wav header with open sizes, mp3 without frame counts, flac without
// length and MD5). Within a sentence, the chunks of an engine whose
// chunks come over time (engine.ChunkStreamer: a PocketTTS voice's every
// 1.2 s) are encoded at once and written, then w
// is flushed if it has a Flush() or Flush() error method (as
// http.ResponseWriter does); so a listener hears the first chunk while
// the rest is rendered. Other engines' audio is written and flushed at
// each sentence's end. A reader slower than the audio holds the stream
// back (its writes wait), never its audio in memory. Validation errors
// are returned before anything is written.
//
// An error after bytes were written (a cancelled context, a failed write,
// ErrAudioTooLong once the audio passes Options.MaxAudio, an engine
// failure) leaves w holding a valid beginning of the audio that stops
// short. Do not present it as complete: an HTTP handler aborts the
// response (panic(http.ErrAbortHandler), as package server does, so the
// client sees a cut, not a short success); a file writer deletes the
// file. Stream's memory does not grow with the input: it holds at most
// one piece of a sentence's audio (samples not yet encoded, about 11 s at
// 24 kHz) besides what the encoder and the look-ahead (Options.Ahead)
// hold.
func (s *Synthesizer) Stream(ctx context.Context, w io.Writer, req Request) (Result, error) {
	p, err := s.Prepare(req)
	if err != nil {
		return Result{}, err
	}
	return p.Stream(ctx, w)
}

// run synthesizes a prepared request into w in the form its
// Format.Streaming says.
func (s *Synthesizer) run(ctx context.Context, w io.Writer, prep *Prepared) (Result, error) {
	o, err := s.newOutput(w, prep.req, prep.voice)
	if err != nil {
		return Result{}, err
	}
	o.res.IgnoredTags, o.res.ClampedTags = slices.Concat(prep.ignored, prep.script.Ignored()), prep.script.Clamped()
	if o.r.loc != nil {
		o.r.loc.start(prep.req.Input, 0)
		o.r.loc.source = prep.source
		if prep.written != "" {
			o.r.loc.written, o.r.loc.writtenAt = []rune(prep.written), 0
		}
	}
	// Tags are parsed once; each sentence is rendered part by part (text
	// in its style, or an event), then encoded, written and flushed.
	sentences := prep.script.Sentences(pieceLen(prep.script, prep.req.Speed))
	whole := len(sentences)
	if prep.req.Format.Streaming {
		sentences = quickStart(sentences, s.quick)
	}
	defer o.release()
	s.running.Add(1)
	defer s.running.Add(-1)
	o.ahead = s.newAhead(ctx, o.r, sentences)
	o.r.ahead = o.ahead
	defer o.ahead.stop()
	cut := len(sentences) > whole // the first sentence is two pieces
	for i, sen := range sentences {
		if err := o.sentence(ctx, sen, !cut || i > 0); err != nil {
			return o.result(), err
		}
	}
	return o.close()
}

// output is one request's audio in the making: its encoder and pipeline,
// the renderer and the result so far. run gives it the sentences of a
// whole input, a TextStream those of its text as it arrives.
type output struct {
	s        *Synthesizer
	w        io.Writer
	tw       *timedWriter
	p        *pipeline
	r        *renderer
	res      Result
	index    int // sentences written, for SentenceDone
	onSpoken func(SentenceDone)
	// ahead renders the sentences of a whole input ahead; nil for none.
	ahead *ahead
}

// newOutput starts the encoder of req's format on w.
func (s *Synthesizer) newOutput(w io.Writer, req Request, v voices.Voice) (*output, error) {
	o := &output{s: s, w: w, tw: &timedWriter{w: w}, onSpoken: req.OnSentence}
	// A complete clip written through to an io.WriterAt (a file, a
	// server's spool) is made there: nothing waits on a reader, and its
	// writes, the encoder's header rewrite at Close among them, are
	// synthesis.
	o.tw.through = encode.WriterAt(w, req.Format) != nil
	var enc encode.Encoder
	err := o.timed(func() (err error) {
		enc, err = s.formats.NewEncoder(o.tw.target(), req.Format)
		return err
	})
	if err != nil {
		if o.tw.failed != nil {
			// The header's write failed: w's error, the format is fine.
			return nil, err
		}
		return nil, &FormatError{Format: req.Format, Supported: s.formats.Names(), Err: err}
	}
	o.p = &pipeline{enc: enc, outRate: req.Format.Rate(), max: s.maxAudio}
	if req.Format.Streaming {
		// A stream's audio goes out as the engine makes it.
		o.p.early = max(1, o.p.outRate/earlyPart)
		o.p.push = o.push
	}
	if b, ok := pipeBuffers.Get().(*pipeScratch); ok {
		o.p.f32, o.p.held = b.f32, b.held
		if b.outRate == o.p.outRate {
			o.p.spare, o.p.spareRate = b.spare, b.inRate
		}
	}
	o.r = &renderer{s: s, req: req, voice: v, p: o.p, res: &o.res}
	if req.OnSentence != nil {
		o.r.loc = new(locator)
	}
	return o, nil
}

// release returns the pipeline's buffers for the next request's; o is
// not used after.
func (o *output) release() {
	o.r.releaseVoices()
	p := o.p
	if cap(p.held) > 2*maxHeld { // a rare long part: let it go
		p.held = nil
	}
	b := &pipeScratch{f32: p.f32[:0], held: p.held[:0], spare: p.spare, inRate: p.spareRate, outRate: p.outRate}
	if p.rs != nil { // the request stopped short
		b.spare, b.inRate = p.rs, p.inRate
	}
	pipeBuffers.Put(b)
	p.f32, p.held, p.rs, p.spare = nil, nil, nil, nil
}

// pipeBuffers holds the sample buffers of finished requests' pipelines
// (*pipeScratch): each request would otherwise grow its own, sentence by
// sentence, to the size of its longest.
var pipeBuffers sync.Pool

type pipeScratch struct {
	f32             []float32
	held            []int16
	spare           *dsp.Resampler // from inRate to outRate, or nil
	inRate, outRate int
}

// timed runs f and adds its time, less blocked writes, to SynthesisTime:
// everything from the encoder's start to its final flush is synthesis.
func (o *output) timed(f func() error) error {
	start, blocked := time.Now(), o.tw.blocked
	err := f()
	o.res.SynthesisTime += time.Since(start) - (o.tw.blocked - blocked)
	return err
}

// sentence renders, encodes, writes and flushes one sentence, then tells
// Request.OnSentence. whole is false for the first clause of a sentence
// that QuickStart cut, which Result.Sentences does not count.
func (o *output) sentence(ctx context.Context, sen tags.Sentence, whole bool) error {
	begin := o.p.pos()
	o.r.words = o.r.words[:0]
	pre := o.ahead.take(o.index)
	err := o.timed(func() error {
		if err := o.s.render(ctx, o.r, sen, pre); err != nil {
			return err
		}
		if err := o.p.endSentence(); err != nil {
			return err
		}
		return o.p.encode()
	})
	if err != nil {
		return err
	}
	if whole {
		o.res.Sentences++
	}
	o.push()
	if o.onSpoken != nil {
		o.onSpoken(SentenceDone{Index: o.index, Start: o.p.duration(begin), End: o.p.duration(o.p.pos()),
			Words: slices.Clone(o.r.words)})
	}
	o.index++
	return nil
}

// push flushes what the encoder wrote to w out to the client (see
// flush), and starts the look-ahead of a stream, which waits for its
// first audio to be out (see ahead.heard).
func (o *output) push() {
	start := time.Now()
	flush(o.w)
	o.tw.blocked += time.Since(start)
	o.ahead.heard()
}

// close ends the audio: the resampler's and the encoder's last samples.
func (o *output) close() (Result, error) {
	if err := o.timed(o.p.close); err != nil {
		return o.result(), err
	}
	flush(o.w)
	return o.result(), nil
}

// result is the result so far: of the whole audio once closed, of what was
// written before an error otherwise.
func (o *output) result() Result {
	o.res.Samples = o.p.written
	o.res.Audio = o.p.duration(o.p.written)
	return o.res
}

// render renders the parts of one sentence into r's pipeline. Each text
// part is rendered in one of the synthesizer's slots, and waiting for the
// slot counts as engine time; events (pauses and synthetic sounds) are
// cheap and take none. Encoding and writing happen outside the slots, at
// the end of the sentence or between parts once maxHeld samples are
// waiting, except a stream's early chunks (see pipeline), which are
// written as the engine makes them.
func (s *Synthesizer) render(ctx context.Context, r *renderer, sen tags.Sentence, pre []*aheadPart) error {
	// text renders a text part in a slot, or takes it from pre, the
	// sentence's engine calls rendered ahead, with no slot.
	text := func(part tags.Part, at seams) error {
		if len(pre) > 0 {
			p := pre[0]
			pre = pre[1:]
			return r.text(ctx, part, at, p)
		}
		return s.inSlot(ctx, r, func() error { return r.text(ctx, part, at, nil) })
	}
	if part, breaks, ok := r.withBreaks(sen); ok {
		// One piece of text with its pauses as breaks: the engine speaks
		// the sentence whole and puts the silences in it.
		r.breaks = breaks
		defer func() { r.breaks = nil }()
		return text(part, seams{})
	}
	for i, part := range sen.Parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		if part.IsEvent() {
			err = r.event(part)
		} else {
			err = text(part, seamsOf(sen, i))
		}
		if err != nil {
			return err
		}
		if len(r.p.held) >= maxHeld {
			if err := r.p.encode(); err != nil {
				return err
			}
		}
	}
	return nil
}

// inSlot runs f in a render slot of the request's account.
func (s *Synthesizer) inSlot(ctx context.Context, r *renderer, f func() error) error {
	start := time.Now()
	waiting := func() { s.log.Debug("tts: waiting for a render slot", "account", r.req.Account) }
	if err := s.slots.acquire(ctx, r.req.Account, waiting); err != nil {
		return err
	}
	defer s.slots.release(r.req.Account)
	r.ahead.started()
	wait := time.Since(start)
	r.res.EngineTime += wait
	r.res.SlotWait += wait
	return f()
}

// maxHeld is the most samples the pipeline holds before encoding them in
// the middle of a sentence: about 11 s at 24 kHz, 512 KiB. One text part
// (at most sentence.DefaultMaxLen characters) is always held whole.
const maxHeld = 1 << 18

// earlyPart is the shortest audio, as a part of a second, a stream's
// pipeline holds before it encodes it, when its engine's chunks come over
// time (see pipeline.early).
const earlyPart = 20

// pipeline carries engine chunks through resampling to the encoder. A
// stream's samples from an engine whose chunks come over time go to the
// encoder and pushed out as soon as early of them are held, while the
// engine renders on; others are held until encode,
// at the end of a sentence. It counts the samples it
// writes and fails with ErrAudioTooLong once they pass max.
type pipeline struct {
	enc       encode.Encoder
	outRate   int
	max       time.Duration
	inRate    int
	rs        *dsp.Resampler
	spare     *dsp.Resampler // a finished resampler from spareRate, for reuse
	spareRate int
	f32       []float32
	held      []int16 // resampled, not yet encoded
	written   int
	base      int           // samples written before the current engine rate began
	fed       int           // samples at the current engine rate given to the resampler
	lastRate  int           // the engine rate of the sentence before
	emitTime  time.Duration // time spent in emit during the current engine call
	// early, when not 0, is how many held samples emit encodes and
	// pushes at once, while streams is set: the engine's chunks come
	// over time (engine.ChunkStreamer).
	early   int
	streams bool
	push    func() // flushes the encoder's output to the client
}

func (p *pipeline) emit(c engine.Chunk) error {
	start := time.Now()
	defer func() { p.emitTime += time.Since(start) }()
	if c.SampleRate != p.inRate {
		if err := p.switchRate(c.SampleRate); err != nil {
			return err
		}
	}
	p.fed += len(c.Samples)
	p.f32 = p.rs.Process(p.f32[:0], c.Samples)
	if err := p.write(p.f32); err != nil {
		return err
	}
	if p.early > 0 && p.streams && len(p.held) >= p.early {
		if err := p.encode(); err != nil {
			return err
		}
		p.push()
	}
	return nil
}

// endSentence drains the resampler, so that a sentence's audio is all
// written when the sentence is (a stream's next sentence may be a while
// coming); the next sentence starts a new resampler.
func (p *pipeline) endSentence() error {
	if p.rs == nil {
		return nil
	}
	err := p.write(p.rs.Flush(p.f32[:0]))
	p.lastRate = p.inRate
	p.spare, p.spareRate = p.rs, p.inRate
	p.rs, p.inRate = nil, 0
	return err
}

// pos returns where, in samples of the output, the next sample given to
// emit will be: the resampler holds a few samples back, which pos counts
// as written.
func (p *pipeline) pos() int {
	if p.inRate == 0 {
		return p.written
	}
	return p.base + int(int64(p.fed)*int64(p.outRate)/int64(p.inRate))
}

// duration returns the time of n samples of the output.
func (p *pipeline) duration(n int) time.Duration {
	return time.Duration(int64(n) * int64(time.Second) / int64(p.outRate))
}

// switchRate starts resampling from a new engine rate, draining the old
// resampler first.
func (p *pipeline) switchRate(rate int) error {
	if p.rs != nil {
		if err := p.write(p.rs.Flush(p.f32[:0])); err != nil {
			return err
		}
		p.spare, p.spareRate = p.rs, p.inRate
		p.rs = nil
	}
	if p.spare != nil && p.spareRate == rate {
		p.spare.Reset()
		p.rs, p.spare = p.spare, nil
	} else {
		rs, err := dsp.NewResampler(rate, p.outRate)
		if err != nil {
			return fmt.Errorf("tts: %w", err)
		}
		p.rs = rs
	}
	p.inRate = rate
	p.base, p.fed = p.written, 0
	return nil
}

// write holds x, converted to 16 bits, for the next encode.
func (p *pipeline) write(x []float32) error {
	if len(x) > p.room(p.outRate) {
		return p.tooLong()
	}
	p.held = dsp.AppendInt16(p.held, x)
	p.written += len(x)
	return nil
}

// room returns how many more samples at rate fit under the limit.
func (p *pipeline) room(rate int) int {
	return int(p.max.Seconds()*float64(rate)) - p.written*rate/p.outRate
}

func (p *pipeline) tooLong() error {
	return &AudioLimitError{Limit: p.max}
}

// encode sends the held samples to the encoder.
func (p *pipeline) encode() error {
	if len(p.held) == 0 {
		return nil
	}
	err := p.enc.Encode(p.held)
	p.held = p.held[:0]
	return err
}

func (p *pipeline) close() error {
	if p.rs != nil {
		if err := p.write(p.rs.Flush(p.f32[:0])); err != nil {
			return err
		}
	}
	if err := p.encode(); err != nil {
		return err
	}
	return p.enc.Close()
}

// timedWriter adds up the time its Writes take: time blocked on the
// destination, which is not synthesis, unless through is set.
type timedWriter struct {
	w       io.Writer
	blocked time.Duration
	through bool  // a complete clip's io.WriterAt: writing it is synthesis
	failed  error // the destination's first error: the caller's, not a codec's
}

func (t *timedWriter) Write(b []byte) (int, error) {
	start := time.Now()
	n, err := t.w.Write(b)
	if !t.through {
		t.blocked += time.Since(start)
	}
	return n, t.fail(err)
}

func (t *timedWriter) fail(err error) error {
	if err != nil && t.failed == nil {
		t.failed = err
	}
	return err
}

// target returns t, an io.WriterAt too when a complete clip is written
// through to its destination (see encode.WriterAt).
func (t *timedWriter) target() io.Writer {
	if t.through {
		return timedWriterAt{t, t.w.(io.WriterAt)}
	}
	return t
}

type timedWriterAt struct {
	*timedWriter
	at io.WriterAt
}

// WriteAt is synthesis (a complete clip written through), not timed.
func (t timedWriterAt) WriteAt(b []byte, off int64) (int, error) {
	n, err := t.at.WriteAt(b, off)
	return n, t.fail(err)
}

func flush(w io.Writer) {
	switch f := w.(type) {
	case interface{ Flush() error }:
		f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
}
