//go:build cgo

package espeak

/*
#cgo pkg-config: espeak-ng
#include <stdlib.h>
#include <espeak-ng/speak_lib.h>

extern int synthCallback(short*, int, espeak_EVENT*);

static void voxkit_set_callback(void) {
	espeak_SetSynthCallback((t_espeak_callback*)synthCallback);
}

// voxkit_phonemes returns the phonemes of the clause at *text and advances
// *text past it (NULL at the end). Wrapped so Go need not take the address
// of a C pointer variable. mode is espeak_TextToPhonemes' phonememode.
static const char* voxkit_phonemes(const void** text, int mode) {
	return espeak_TextToPhonemes(text, espeakCHARS_UTF8, mode);
}

// voxkit_prime translates text, one clause, for the phoneme list it
// leaves behind (see prime).
static void voxkit_prime(const char* text) {
	const void* p = text;
	while (p != NULL)
		espeak_TextToPhonemes(&p, espeakCHARS_UTF8, 0);
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

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

var (
	// mu guards every call into libespeak-ng and the variables below.
	mu sync.Mutex
	// sampleRate is espeak's output rate once initialized (22050).
	sampleRate int
	// active is the synthesis in progress, read by synthCallback.
	active *job
	// current caches the voice and rate last set, to skip needless calls.
	currentVoice string
	currentWPM   int
)

type job struct {
	ctx     context.Context
	samples []float32
	words   []wordAt // where the words begin
	// phonemes, when not nil, collects the IPA of the phonemes
	// synthesized (espeak-ng's phoneme events).
	phonemes *[]string
}

// wordAt is where a word begins: at character char (1-based) of the text,
// at ms milliseconds into the audio.
type wordAt struct{ char, ms int }

// Options configure the engine. The zero value works.
type Options struct {
	// DataPath is the espeak-ng-data directory; empty means the
	// library's default.
	DataPath string
}

// Engine speaks with libespeak-ng. It is safe for concurrent use; calls
// into the library are serialized.
type Engine struct {
	closed bool
	mu     sync.RWMutex // guards closed
}

var _ engine.Engine = (*Engine)(nil)
var _ engine.VoiceLister = (*Engine)(nil)
var _ engine.Phonemizer = (*Engine)(nil)
var _ engine.VoiceResolver = (*Engine)(nil)
var _ engine.PhonemeChecker = (*Engine)(nil)

// ErrClosed is returned by an engine used after Close.
var ErrClosed = errors.New("espeak: engine closed")

// New initializes libespeak-ng (once per process) and returns an engine.
func New(opts Options) (*Engine, error) {
	mu.Lock()
	defer mu.Unlock()
	if sampleRate == 0 {
		var path *C.char
		if opts.DataPath != "" {
			path = C.CString(opts.DataPath)
			defer C.free(unsafe.Pointer(path))
		}
		// Phoneme events, in IPA, tell what was said (see job.phonemes).
		rate := C.espeak_Initialize(C.AUDIO_OUTPUT_SYNCHRONOUS, 0, path, C.espeakINITIALIZE_DONT_EXIT|phonemeEvents)
		if rate <= 0 {
			return nil, fmt.Errorf("espeak: initialize failed (code %d): is espeak-ng-data installed?", int(rate))
		}
		C.voxkit_set_callback()
		sampleRate = int(rate)
	}
	return &Engine{}, nil
}

// SampleRate returns the rate of the audio the engine produces.
func (e *Engine) SampleRate() int {
	mu.Lock()
	defer mu.Unlock()
	return sampleRate
}

// Close marks the engine closed. libespeak-ng itself stays initialized for
// the life of the process, since other engines may share it.
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
	for _, text := range sentence.Split(req.Text, 0) {
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
		samples, words, rate, err := synth(ctx, (*bufp)[:0], voice, input, wpm, modeOf(ssml), nil)
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
			if w.char >= char {
				return min(len(samples), int(float64(w.ms)*float64(rate)/1000*scale))
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

// cText makes text safe to pass as a C string: NUL would end it early and
// other control characters are not speech, so each becomes a space.
// Offsets into the result equal offsets into text.
func cText(text string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return ' '
		}
		return r
	}, text)
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

// input says how espeak_Synth reads text.
type input int

const (
	plainText   input = iota
	ssmlText          // SSML elements (espeakSSML)
	phonemeText       // mnemonics in [[ ]] (espeakPHONEMES)
)

func modeOf(ssml bool) input {
	if ssml {
		return ssmlText
	}
	return plainText
}

// synth renders one sentence under the library lock, appending its
// samples to dst, and says where its words begin. phonemes, when not
// nil, receives the IPA of the phonemes spoken.
func synth(ctx context.Context, dst []float32, voice, text string, wpm int, mode input, phonemes *[]string) ([]float32, []wordAt, int, error) {
	ctext := C.CString(cText(text))
	defer C.free(unsafe.Pointer(ctext))

	mu.Lock()
	defer mu.Unlock()
	if err := setVoice(voice); err != nil {
		return dst, nil, 0, err
	}
	if wpm != currentWPM {
		if rc := C.espeak_SetParameter(C.espeakRATE, C.int(wpm), 0); rc != C.EE_OK {
			return dst, nil, 0, fmt.Errorf("espeak: set rate %d: code %d", wpm, int(rc))
		}
		currentWPM = wpm
	}
	prime(text)
	j := &job{ctx: ctx, samples: dst, phonemes: phonemes}
	active = j
	defer func() { active = nil }()
	size := C.size_t(len(text) + 1)
	flags := C.uint(C.espeakCHARS_UTF8)
	switch mode {
	case ssmlText:
		flags |= C.espeakSSML
	case phonemeText:
		flags |= C.espeakPHONEMES
		// The flag stays set in the library until the next espeak_Synth
		// and makes espeak_TextToPhonemes read [[ ]] in text as
		// phonemes too: a synthesis of nothing clears it.
		defer C.espeak_Synth(unsafe.Pointer(emptyText), 1, 0, C.POS_CHARACTER, 0, C.espeakCHARS_UTF8, nil, nil)
	}
	rc := C.espeak_Synth(unsafe.Pointer(ctext), size, 0, C.POS_CHARACTER, 0, flags, nil, nil)
	if err := ctx.Err(); err != nil {
		return j.samples, nil, 0, err
	}
	if rc != C.EE_OK {
		return j.samples, nil, 0, fmt.Errorf("espeak: synthesis failed: code %d", int(rc))
	}
	return j.samples, j.words, sampleRate, nil
}

// Priming: libespeak-ng keeps one clause's phonemes at a time in a
// static list, and while timing a clause's last phonemes it reads entries
// past the clause's end, which hold whatever earlier, longer clauses left
// there: the same text came out longer or shorter after other requests
// (docs/tags.md, "Determinism"). prime makes those entries the same before
// every synthesis: it translates, without synthesizing, one clause longer
// than any clause of the text, made of "1 " repeated (a digit is two or
// more phonemes in every language tried; a letter is not: French reads
// "a a a a" as three phonemes). BenchmarkSynthesize measures its cost.
const (
	// maxPrimeWords keeps the priming text one clause: espeak-ng cuts a
	// clause at 800 bytes.
	maxPrimeWords = 350
	primeWords    = "1 "
)

// emptyText is "", in C memory for good.
var emptyText = C.CString("")

// primeText is primeWords maxPrimeWords times, in C memory for good.
var primeText = C.CString(strings.Repeat(primeWords, maxPrimeWords))

// prime readies the phoneme list for text (see Priming); mu must be held.
// Each word of the priming clause gives at least two phonemes, each
// letter of text at most about one and each digit at most about eight
// ("7" is "seven", "1000000" "one million").
func prime(text string) {
	n := utf8.RuneCountInString(text)
	for _, c := range text {
		if c >= '0' && c <= '9' {
			n += 7
		}
	}
	words := min(maxPrimeWords, n/2+16)
	C.voxkit_prime((*C.char)(unsafe.Add(unsafe.Pointer(primeText), len(primeWords)*(maxPrimeWords-words))))
}

// setVoice selects voice, a language code optionally followed by
// "+variant"; mu must be held.
func setVoice(voice string) error {
	if voice == currentVoice && voice != "" {
		return nil
	}
	file, err := voiceFile(voice)
	if err != nil {
		return err
	}
	if err := selectVoice(file); err != nil {
		return fmt.Errorf("espeak: %w %q", engine.ErrUnknownVoice, voice)
	}
	currentVoice = voice
	return nil
}

// voiceFile returns the file identifier of voice, a language code
// optionally followed by "+" and an espeak-ng variant ("en-us+f3"), case
// aside; mu must be held.
func voiceFile(voice string) (string, error) {
	loadVoiceTable()
	base, variant, hasVariant := strings.Cut(strings.ToLower(voice), "+")
	file, ok := voiceFiles[base]
	if !ok {
		return "", fmt.Errorf("espeak: %w %q", engine.ErrUnknownVoice, voice)
	}
	if hasVariant {
		name, ok := variants[variant]
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
	mu.Lock()
	defer mu.Unlock()
	if _, err := voiceFile(name); err != nil {
		return engine.Voice{}, err
	}
	for _, v := range voiceList {
		if v.Name == strings.ToLower(base) {
			return engine.Voice{Name: name, Language: v.Language, SampleRate: sampleRate,
				Description: v.Description + ", variant " + variants[strings.ToLower(variant)]}, nil
		}
	}
	return engine.Voice{Name: name, Language: bcp47(strings.ToLower(base)), Description: "espeak-ng " + name, SampleRate: sampleRate}, nil
}

// selectVoice loads a voice by file identifier; mu must be held.
func selectVoice(file string) error {
	currentVoice, currentWPM = "", 0 // a new voice resets the rate
	cv := C.CString(file)
	defer C.free(unsafe.Pointer(cv))
	if rc := C.espeak_SetVoiceByName(cv); rc != C.EE_OK {
		return fmt.Errorf("espeak: voice %q: code %d", file, int(rc))
	}
	return nil
}

// Voices lists the voices espeak-ng has, named by their main language
// code ("en-us", "en-gb", "fr-fr", ...).
func (e *Engine) Voices(ctx context.Context) ([]engine.Voice, error) {
	if e.isClosed() {
		return nil, ErrClosed
	}
	mu.Lock()
	defer mu.Unlock()
	loadVoiceTable()
	if len(voiceList) == 0 {
		return nil, errors.New("espeak: no voices found")
	}
	return slices.Clone(voiceList), nil
}

var (
	// voiceFiles maps every language code a voice speaks to the voice's
	// file identifier (e.g. "en-us" → "gmw/en-US"), lowest priority
	// value first. Guarded by mu; built once.
	voiceFiles map[string]string
	// voiceList holds one entry per usable voice file.
	voiceList []engine.Voice
	// variants maps each espeak-ng variant's name, lower-cased, to its
	// name ("alex" → "Alex").
	variants map[string]string
)

// loadVoiceTable fills voiceFiles and voiceList; mu must be held.
func loadVoiceTable() {
	if voiceFiles != nil {
		return
	}
	voiceFiles = make(map[string]string)
	list := C.espeak_ListVoices(nil)
	if list == nil {
		return
	}
	type candidate struct {
		file     string
		priority int
	}
	best := make(map[string]candidate)
	var files []string
	names := make(map[string]string) // file → description
	for _, v := range unsafe.Slice(list, 1<<16) {
		if v == nil {
			break
		}
		file := C.GoString(v.identifier)
		if strings.HasPrefix(file, "mb/") { // MBROLA voices need separate databases
			continue
		}
		langs := languages(v.languages)
		if len(langs) == 0 {
			continue
		}
		files = append(files, file)
		names[file] = strings.ReplaceAll(C.GoString(v.name), "_", " ")
		for i, l := range langs {
			// The first language names the voice; others are aliases.
			p := l.priority
			if i > 0 {
				p += 100
			}
			if c, ok := best[l.code]; !ok || p < c.priority {
				best[l.code] = candidate{file, p}
			}
		}
	}
	for code, c := range best {
		voiceFiles[code] = c.file
	}
	variants = make(map[string]string)
	spec := C.espeak_VOICE{languages: C.CString("variant")}
	defer C.free(unsafe.Pointer(spec.languages))
	if vl := C.espeak_ListVoices(&spec); vl != nil {
		for _, v := range unsafe.Slice(vl, 1<<16) {
			if v == nil {
				break
			}
			if name, ok := strings.CutPrefix(C.GoString(v.identifier), "!v/"); ok {
				variants[strings.ToLower(name)] = name
			}
		}
	}
	for _, file := range files {
		// The voice's id is its first language, if no other voice took it.
		for code, c := range best {
			if c.file == file && c.priority < 100 {
				voiceList = append(voiceList, engine.Voice{Name: code, Language: bcp47(code), Description: names[file], SampleRate: sampleRate})
			}
		}
	}
	slices.SortFunc(voiceList, func(a, b engine.Voice) int { return strings.Compare(a.Name, b.Name) })
	currentVoice = ""
}

type language struct {
	priority int
	code     string
}

// languages reads an espeak_VOICE languages list: pairs of a priority
// byte and a NUL-terminated code, ended by a zero byte.
func languages(p *C.char) []language {
	var out []language
	for p != nil && *p != 0 {
		prio := int(*p)
		code := C.GoString((*C.char)(unsafe.Add(unsafe.Pointer(p), 1)))
		out = append(out, language{prio, strings.ToLower(code)})
		p = (*C.char)(unsafe.Add(unsafe.Pointer(p), 2+len(code)))
	}
	return out
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

func (e *Engine) phonemize(ctx context.Context, voice, text string, mode C.int) ([]string, error) {
	if e.isClosed() {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctext := C.CString(cText(text))
	defer C.free(unsafe.Pointer(ctext))
	base := uintptr(unsafe.Pointer(ctext))

	mu.Lock()
	defer mu.Unlock()
	if err := setVoice(voice); err != nil {
		return nil, err
	}
	var out []string
	pos := unsafe.Pointer(ctext)
	start := 0
	for pos != nil {
		ph := C.GoString(C.voxkit_phonemes(&pos, mode))
		end := len(text)
		if pos != nil {
			// espeak stops one character into the next clause.
			end = min(len(text), int(uintptr(pos)-base))
			_, size := utf8.DecodeLastRuneInString(text[:end])
			end = max(start, end-size)
		}
		clause := strings.TrimSpace(languageMarker.ReplaceAllString(ph, ""))
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
