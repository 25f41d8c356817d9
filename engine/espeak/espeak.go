//go:build cgo

package espeak

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/sentence"
	"github.com/voxkit/voxkit/internal/dsp"
)

// Rates espeak-ng accepts, in words per minute.
const (
	normalWPM = 175
	minWPM    = 80
	maxWPM    = 4 * normalWPM // espeak-ng speeds up past 450 with its sonic stage
)

// Options configure the engine. The zero value works.
type Options struct {
	// DataPath is the espeak-ng-data directory; empty means the
	// library's default.
	DataPath string
	// Processes is how many engine processes may speak at once; 0 means
	// one per CPU (runtime.GOMAXPROCS), at most 8. The first engine of a
	// program (per DataPath) sets it; later ones share its processes.
	Processes int
	// InProcess runs libespeak-ng in this process instead of in engine
	// processes: no process starts, and one synthesis runs at a time.
	// Nothing contains a crash of the library then: an input that
	// crashes it ends the program.
	InProcess bool
	// Unguarded sends text to libespeak-ng as written, without the
	// rewrites that keep it from its known crashes (see guard.go). For
	// tests of crash containment; such input then fails with
	// engine.ErrCrashed instead of speaking.
	Unguarded bool
	// Logger receives what the engine processes' start reports (the
	// parts of their sandbox the kernel refused); nil means
	// slog.Default().
	Logger *slog.Logger
}

// Engine speaks with libespeak-ng. It is safe for concurrent use.
type Engine struct {
	lib       backend
	table     *voiceTable
	unguarded bool
	closed    bool
	mu        sync.RWMutex // guards closed
}

var _ engine.Engine = (*Engine)(nil)
var _ engine.VoiceLister = (*Engine)(nil)
var _ engine.Phonemizer = (*Engine)(nil)
var _ engine.VoiceResolver = (*Engine)(nil)
var _ engine.PhonemeChecker = (*Engine)(nil)

// ErrClosed is returned by an engine used after Close; it wraps
// engine.ErrClosed.
var ErrClosed = fmt.Errorf("espeak: %w", engine.ErrClosed)

// New initializes libespeak-ng and returns an engine. Unless
// opts.InProcess, the library runs in engine processes that this program
// starts as itself (see process.go): the first is started here, others
// as calls need them; they end with the program.
func New(opts Options) (*Engine, error) {
	var lib backend = inProcess{}
	var table *voiceTable
	if opts.InProcess {
		t, err := nativeInit(opts.DataPath)
		if err != nil {
			return nil, err
		}
		table = t
	} else {
		p, err := sharedProcesses(opts)
		if err != nil {
			return nil, err
		}
		lib, table = p, p.table
	}
	return &Engine{lib: lib, table: table, unguarded: opts.Unguarded}, nil
}

var (
	poolsMu sync.Mutex
	pools   = map[string]*processes{} // by DataPath
)

// sharedProcesses returns the program's engine processes for
// opts.DataPath, starting them if need be.
func sharedProcesses(opts Options) (*processes, error) {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	if p, ok := pools[opts.DataPath]; ok {
		return p, nil
	}
	n := opts.Processes
	if n <= 0 {
		n = min(runtime.GOMAXPROCS(0), 8)
	}
	p, err := startProcesses(opts.DataPath, n, opts.Logger)
	if err != nil {
		return nil, err
	}
	pools[opts.DataPath] = p
	return p, nil
}

// SampleRate returns the rate of the audio the engine produces.
func (e *Engine) SampleRate() int { return e.table.Rate }

// Close marks the engine closed. libespeak-ng itself, and its engine
// processes, stay for the life of the program, since other engines may
// share them.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	return nil
}

func (e *Engine) isClosed() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.closed
}

// Synthesize speaks req.Text sentence by sentence. Each sentence's audio
// is delivered as one chunk after the library lock is released, so a slow
// emit never holds up other goroutines. req.Prosody.Rate sets the speaking
// rate within espeak's range (80 to 700 words per minute, 175 normal);
// slower rates are reached by time-stretching the audio. The controls
// Renders declares are rendered through SSML or the whisper variant.
func (e *Engine) Synthesize(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	if e.isClosed() {
		return ErrClosed
	}
	if req.Phonemes != "" {
		return e.speakPhonemes(ctx, req, emit)
	}
	speed := req.Prosody.RateOrDefault()
	wpm := int(float64(normalWPM)*speed + 0.5)
	wpm = max(minWPM, min(maxWPM, wpm))
	// Below espeak's slowest rate, stretch what it gives.
	stretch := speed * normalWPM / float64(wpm)
	voice := req.Voice
	if req.Prosody.Whisper {
		voice = whisperVoice(voice)
	}
	ssml := needsSSML(req.Prosody)
	// A chunk is only valid during emit, so one buffer serves every
	// sentence, and then other requests.
	bufp := buffers.Get().(*[]float32)
	defer buffers.Put(bufp)
	cursor := 0
	offset := 0 // samples emitted so far
	for _, text := range e.pieces(req.Text) {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := cursor + max(0, strings.Index(req.Text[cursor:], text))
		cursor = start + len(text)
		breaks := breaksIn(req.Breaks, start, cursor, len(req.Text))
		input := text
		if ssml {
			input = markup(text, req.Prosody)
		}
		samples, words, rate, err := e.synth(ctx, (*bufp)[:0], voice, input, wpm, modeOf(ssml), nil)
		*bufp = samples
		if err != nil {
			return err
		}
		if len(samples) == 0 && len(breaks) == 0 {
			continue
		}
		before := len(samples)
		if stretch < 0.99 {
			samples = dsp.Stretch(samples, rate, stretch)
		}
		scale := float64(len(samples)) / float64(max(before, 1))
		spoken := wordsOf(text, start, words, len(samples), rate, scale, ssml, req.Prosody)
		if len(breaks) > 0 {
			samples = insertBreaks(samples, rate, scale, text, start, breaks, words, ssml, spoken)
		}
		timeWords(samples, spoken, offset)
		samples = dsp.AppendSilence(samples, pauseAfter(text, rate, speed))
		offset += len(samples)
		if err := emit(engine.Chunk{Samples: samples, SampleRate: rate, Words: spoken}); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// pieces splits text into sentences, and those into the pieces that
// libespeak-ng may be given one at a time (see guardPieces).
func (e *Engine) pieces(text string) []string {
	sentences := sentence.Split(text, 0)
	if e.unguarded {
		return sentences
	}
	var out []string
	for _, s := range sentences {
		out = append(out, guardPieces(s)...)
	}
	return out
}

// breaksIn returns the breaks of [start, end) of the text, with the
// breaks at the text's end (textLen) going to its last piece.
func breaksIn(all []engine.Break, start, end, textLen int) []engine.Break {
	var out []engine.Break
	for _, b := range all {
		if b.Offset >= start && (b.Offset < end || end == textLen && b.Offset >= end) {
			out = append(out, b)
		}
	}
	return out
}

// insertBreaks puts the silence of each break into samples (the audio of
// text, which starts at byte start of the request's text), before the
// word that begins at or after the break's offset, by the word positions
// espeak-ng reported; at the end when no word follows. scale is how much
// the audio was stretched after synthesis. With SSML input the reported
// positions are those of the markup, so the breaks go at the end.
//
// The words' From, in samples of the sentence, move with the silence
// put before them.
func insertBreaks(samples []float32, rate int, scale float64, text string, start int, breaks []engine.Break, words []wordAt, ssml bool, spoken []engine.Word) []float32 {
	at := func(b engine.Break) int {
		if ssml {
			return len(samples)
		}
		char := utf8.RuneCountInString(text[:min(len(text), max(0, b.Offset-start))]) + 1 // espeak counts from 1
		for _, w := range words {
			if w.Char >= char {
				return min(len(samples), int(float64(w.MS)*float64(rate)/1000*scale))
			}
		}
		return len(samples)
	}
	// From the last break back, so that earlier positions stay valid.
	breaks = slices.Clone(breaks)
	slices.SortStableFunc(breaks, func(a, b engine.Break) int { return a.Offset - b.Offset })
	for i := len(breaks) - 1; i >= 0; i-- {
		pos := at(breaks[i])
		n := int(breaks[i].Duration.Seconds()*float64(rate) + 0.5)
		samples = slices.Insert(samples, pos, make([]float32, n)...)
		for j := range spoken {
			if spoken[j].From >= pos {
				spoken[j].From += n
			}
		}
	}
	return samples
}

// pauseAfter returns the number of silent samples to add after a
// sentence. In library mode espeak-ng ends a clause almost without a
// pause; the espeak-ng command leaves about 0.3 s after a sentence (0.15 s
// after a comma), which keeps sentences from running together. Text that
// ends without punctuation (a piece of a sentence whose style changes
// next, when package tts renders audio tags) gets no pause.
func pauseAfter(text string, sampleRate int, rate float64) int {
	pause := 0.0
	switch end := strings.TrimRight(text, "\"')]}”’»」』"); {
	case strings.HasSuffix(end, ","), strings.HasSuffix(end, ";"), strings.HasSuffix(end, ":"):
		pause = 0.1
	case strings.ContainsAny(lastRune(end), ".!?…。！？"):
		pause = 0.25
	}
	return int(pause * float64(sampleRate) / rate)
}

func lastRune(s string) string {
	_, size := utf8.DecodeLastRuneInString(s)
	return s[len(s)-size:]
}

// buffers holds sample buffers (*[]float32) for reuse across requests.
var buffers = sync.Pool{New: func() any { return new([]float32) }}

func modeOf(ssml bool) input {
	if ssml {
		return ssmlText
	}
	return plainText
}

// synth renders one piece of text, a sentence at most, appending its
// samples to dst, and says where its words begin. phonemes, when not
// nil, receives the IPA of the phonemes spoken.
func (e *Engine) synth(ctx context.Context, dst []float32, voice, text string, wpm int, mode input, phonemes *[]string) ([]float32, []wordAt, int, error) {
	res, err := e.lib.synth(ctx, synthCall{Voice: voice, Text: text, WPM: wpm, Mode: mode, Phonemes: phonemes != nil})
	if err != nil {
		return dst, nil, 0, err
	}
	if err := ctx.Err(); err != nil {
		return dst, nil, 0, err
	}
	if phonemes != nil {
		*phonemes = res.Phonemes
	}
	// 16-bit samples in this machine's byte order (the engine process's).
	for i := 0; i+1 < len(res.PCM); i += 2 {
		dst = append(dst, float32(int16(binary.NativeEndian.Uint16(res.PCM[i:])))/32768)
	}
	return dst, res.Words, res.Rate, nil
}

// file returns the file identifier of voice, a language code
// optionally followed by "+" and an espeak-ng variant ("en-us+f3"), case
// aside.
func (t *voiceTable) file(voice string) (string, error) {
	base, variant, hasVariant := strings.Cut(strings.ToLower(voice), "+")
	file, ok := t.Files[base]
	if !ok {
		return "", fmt.Errorf("espeak: %w %q", engine.ErrUnknownVoice, voice)
	}
	if hasVariant {
		name, ok := t.Variants[variant]
		if !ok {
			return "", fmt.Errorf("espeak: %w %q: espeak-ng has no variant %q", engine.ErrUnknownVoice, voice, variant)
		}
		file += "+" + name
	}
	return file, nil
}

// ResolveVoice implements engine.VoiceResolver: it accepts a voice with an
// espeak-ng variant, "en-us+f3" (a voice of the list, "+", a variant of
// espeak-ng's voices/!v directory), which Voices does not list.
func (e *Engine) ResolveVoice(name string) (engine.Voice, error) {
	base, variant, ok := strings.Cut(name, "+")
	if !ok {
		return engine.Voice{}, fmt.Errorf("espeak: %w %q", engine.ErrUnknownVoice, name)
	}
	if _, err := e.table.file(name); err != nil {
		return engine.Voice{}, err
	}
	for _, v := range e.table.Voices {
		if v.Name == strings.ToLower(base) {
			return engine.Voice{Name: name, Language: v.Language, SampleRate: e.table.Rate,
				Description: v.Description + ", variant " + e.table.Variants[strings.ToLower(variant)]}, nil
		}
	}
	return engine.Voice{Name: name, Language: bcp47(strings.ToLower(base)), Description: "espeak-ng " + name, SampleRate: e.table.Rate}, nil
}

// Voices lists the voices espeak-ng has, named by their main language
// code ("en-us", "en-gb", "fr-fr", ...).
func (e *Engine) Voices(ctx context.Context) ([]engine.Voice, error) {
	if e.isClosed() {
		return nil, ErrClosed
	}
	return slices.Clone(e.table.Voices), nil
}

// bcp47 turns an espeak language code into a BCP 47 tag: "en-us" becomes
// "en-US".
func bcp47(lang string) string {
	parts := strings.Split(lang, "-")
	for i := 1; i < len(parts); i++ {
		if len(parts[i]) == 2 {
			parts[i] = strings.ToUpper(parts[i])
		}
	}
	return strings.Join(parts, "-")
}

// languageMarker matches the "(en)" / "(cmn)" switches espeak puts around
// words it reads in another language.
var languageMarker = regexp.MustCompile(`\([a-z]{2,3}(-[a-z0-9]+)?\)`)

// clausePunctuation are the marks that end a clause and that Piper-style
// phoneme sequences keep.
const clausePunctuation = ".,;:!?"

// Phonemize returns the IPA phonemes of text, one string per clause, each
// ending with the punctuation mark that closed the clause in text (if any).
// espeak-ng 1.51 drops punctuation from its phoneme output, so it is put
// back from the text each clause was read from.
func (e *Engine) Phonemize(ctx context.Context, voice, text string) ([]string, error) {
	return e.phonemize(ctx, voice, text, ipaMode)
}

// Phoneme modes of espeak_TextToPhonemes: bit 1 asks for IPA, bit 7 for
// a tie character (bits 8 to 15) between the letters of one phoneme.
const (
	ipaMode     = 0x02
	ipaTiedMode = ipaMode | 0x80 | '^'<<8
)

// PhonemizeTied is Phonemize with espeak-ng's tie marks: the letters of a
// phoneme written with two or more letters are joined by "^", as in
// "həlˈo^ʊ wˈɜːld." (espeak_TextToPhonemes mode 0x02|0x80|('^'<<8)). It
// lets a caller tell the diphthong "a^ɪ" from the two vowels "aɪ" — which
// Kokoro's phoneme set (misaki's) needs.
func (e *Engine) PhonemizeTied(ctx context.Context, voice, text string) ([]string, error) {
	return e.phonemize(ctx, voice, text, ipaTiedMode)
}

func (e *Engine) phonemize(ctx context.Context, voice, text string, mode int) ([]string, error) {
	if e.isClosed() {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []string
	for _, piece := range e.pieces(text) {
		ph, err := e.phonemizePiece(ctx, voice, piece, mode)
		if err != nil {
			return nil, err
		}
		out = append(out, ph...)
	}
	return out, nil
}

// phonemizePiece phonemizes what libespeak-ng may be given at once.
func (e *Engine) phonemizePiece(ctx context.Context, voice, text string, mode int) ([]string, error) {
	clauses, err := e.lib.phonemes(ctx, voice, text, mode)
	if err != nil {
		return nil, err
	}
	var out []string
	start := 0
	for _, c := range clauses {
		end := len(text)
		if c.Next >= 0 {
			// espeak stops one character into the next clause.
			end = min(len(text), c.Next)
			_, size := utf8.DecodeLastRuneInString(text[:end])
			end = max(start, end-size)
		}
		clause := strings.TrimSpace(languageMarker.ReplaceAllString(c.Phonemes, ""))
		if mark := closingMark(text[start:end]); mark != "" && clause != "" {
			clause += mark
		}
		if clause != "" {
			out = append(out, clause)
		}
		start = end
	}
	return out, nil
}

// closingMark returns the last clause punctuation in the source text of a
// clause, ignoring trailing spaces and closing quotes.
func closingMark(src string) string {
	src = strings.TrimRight(src, " \t\r\n\"')]}”’»")
	if src == "" {
		return ""
	}
	// espeak-ng ends a clause at an ellipsis with no terminator of its
	// own, so Piper voices see no mark there.
	if strings.HasSuffix(src, "...") || strings.HasSuffix(src, "…") {
		return ""
	}
	last := src[len(src)-1:]
	if strings.Contains(clausePunctuation, last) {
		return last
	}
	return ""
}
