//go:build cgo

package espeak

/*
#cgo pkg-config: espeak-ng
#include <stdlib.h>
#include <espeak-ng/speak_lib.h>
#include <espeak-ng/espeak_ng.h>

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
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/voxkit/voxkit/engine"
)

// This file is the only one that calls libespeak-ng. Its functions run
// where the library lives: in an engine process (see process.go) or, with
// Options.InProcess, in the caller's own process. They take nativeMu.

var (
	// nativeMu guards every call into libespeak-ng and the variables below.
	nativeMu sync.Mutex
	// sampleRate is espeak's output rate once initialized (22050).
	sampleRate int
	// active is the synthesis in progress, read by synthCallback.
	active *job
	// current caches the voice and rate last set, to skip needless calls.
	currentVoice string
	currentWPM   int
	// voices is the table of the library's voices, built once.
	voices *voiceTable
)

// job is the synthesis synthCallback feeds.
type job struct {
	stop func() bool // true asks the library to stop
	pcm  []byte      // 16-bit little-endian samples
	// words are where the words begin.
	words []wordAt
	// phonemes, when wanted, collects the IPA of the phonemes synthesized
	// (espeak-ng's phoneme events).
	phonemes     []string
	wantPhonemes bool
}

// wordAt is where a word begins: at character Char (1-based) of the text,
// at MS milliseconds into the audio.
type wordAt struct{ Char, MS int }

// input says how espeak_Synth reads text.
type input int

const (
	plainText   input = iota
	ssmlText          // SSML elements (espeakSSML)
	phonemeText       // mnemonics in [[ ]] (espeakPHONEMES)
)

// synthCall asks for one piece of text, a sentence at most, spoken.
type synthCall struct {
	Voice string
	Text  string
	WPM   int
	Mode  input
	// Phonemes asks for the IPA of the phonemes spoken.
	Phonemes bool
}

// synthResult is a synthCall's audio.
type synthResult struct {
	PCM      []byte // 16-bit little-endian samples at Rate
	Words    []wordAt
	Phonemes []string
	Rate     int
}

// clause is one clause of espeak_TextToPhonemes' output: its phonemes,
// and where in the text the library stopped reading it (-1 at the end).
type clause struct {
	Phonemes string
	Next     int
}

// voiceTable is what the library offers: its voices, the file of every
// language code, its variants.
type voiceTable struct {
	// Rate is the library's output rate.
	Rate int
	// Voices holds one entry per usable voice file, by name.
	Voices []engine.Voice
	// Files maps every language code a voice speaks to the voice's file
	// identifier (e.g. "en-us" → "gmw/en-US"), lowest priority value
	// first.
	Files map[string]string
	// Variants maps each espeak-ng variant's name, lower-cased, to its
	// name ("alex" → "Alex").
	Variants map[string]string
}

// nativeDataDir returns the espeak-ng-data directory the library reads
// for dataPath ("": its default, found as espeak_Initialize would find
// it), without initializing it.
func nativeDataDir(dataPath string) string {
	nativeMu.Lock()
	defer nativeMu.Unlock()
	var path *C.char
	if dataPath != "" {
		path = C.CString(dataPath)
		defer C.free(unsafe.Pointer(path))
	}
	C.espeak_ng_InitializePath(path)
	var dir *C.char
	C.espeak_Info(&dir)
	return C.GoString(dir)
}

// nativeInit initializes libespeak-ng, once per process; dataPath is the
// espeak-ng-data directory, empty for the library's default.
func nativeInit(dataPath string) (*voiceTable, error) {
	nativeMu.Lock()
	defer nativeMu.Unlock()
	if sampleRate == 0 {
		var path *C.char
		if dataPath != "" {
			path = C.CString(dataPath)
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
	if voices == nil {
		voices = loadVoiceTable()
	}
	if len(voices.Voices) == 0 {
		return nil, errors.New("espeak: no voices found")
	}
	return voices, nil
}

// nativeSynth renders one piece of text, its samples appended to pcm;
// stop, polled while the library works, ends it early.
func nativeSynth(c synthCall, pcm []byte, stop func() bool) (synthResult, error) {
	ctext := C.CString(cText(c.Text))
	defer C.free(unsafe.Pointer(ctext))

	nativeMu.Lock()
	defer nativeMu.Unlock()
	if err := setVoice(c.Voice); err != nil {
		return synthResult{}, err
	}
	if c.WPM != currentWPM {
		if rc := C.espeak_SetParameter(C.espeakRATE, C.int(c.WPM), 0); rc != C.EE_OK {
			return synthResult{}, fmt.Errorf("espeak: set rate %d: code %d", c.WPM, int(rc))
		}
		currentWPM = c.WPM
	}
	prime(c.Text)
	j := &job{stop: stop, pcm: pcm, wantPhonemes: c.Phonemes}
	active = j
	defer func() { active = nil }()
	size := C.size_t(len(c.Text) + 1)
	flags := C.uint(C.espeakCHARS_UTF8)
	switch c.Mode {
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
	if stop() {
		return synthResult{}, errStopped
	}
	if rc != C.EE_OK {
		return synthResult{}, fmt.Errorf("espeak: synthesis failed: code %d", int(rc))
	}
	return synthResult{PCM: j.pcm, Words: j.words, Phonemes: j.phonemes, Rate: sampleRate}, nil
}

// errStopped is a synthesis its caller stopped.
var errStopped = errors.New("espeak: synthesis stopped")

// nativePhonemes returns the phonemes of text clause by clause, in the
// given espeak_TextToPhonemes mode.
func nativePhonemes(voice, text string, mode int) ([]clause, error) {
	ctext := C.CString(cText(text))
	defer C.free(unsafe.Pointer(ctext))
	base := uintptr(unsafe.Pointer(ctext))

	nativeMu.Lock()
	defer nativeMu.Unlock()
	if err := setVoice(voice); err != nil {
		return nil, err
	}
	var out []clause
	pos := unsafe.Pointer(ctext)
	for pos != nil {
		ph := C.GoString(C.voxkit_phonemes(&pos, C.int(mode)))
		next := -1
		if pos != nil {
			next = int(uintptr(pos) - base)
		}
		out = append(out, clause{Phonemes: ph, Next: next})
	}
	return out, nil
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

// prime readies the phoneme list for text (see Priming); nativeMu must be
// held. Each word of the priming clause gives at least two phonemes, each
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
// "+variant"; nativeMu must be held.
func setVoice(voice string) error {
	if voice == currentVoice && voice != "" {
		return nil
	}
	file, err := voices.file(voice)
	if err != nil {
		return err
	}
	currentVoice, currentWPM = "", 0 // a new voice resets the rate
	cv := C.CString(file)
	defer C.free(unsafe.Pointer(cv))
	if rc := C.espeak_SetVoiceByName(cv); rc != C.EE_OK {
		return fmt.Errorf("espeak: %w %q", engine.ErrUnknownVoice, voice)
	}
	currentVoice = voice
	return nil
}

// loadVoiceTable reads the library's voices; nativeMu must be held.
func loadVoiceTable() *voiceTable {
	t := &voiceTable{Rate: sampleRate, Files: make(map[string]string), Variants: make(map[string]string)}
	list := C.espeak_ListVoices(nil)
	if list == nil {
		return t
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
		t.Files[code] = c.file
	}
	spec := C.espeak_VOICE{languages: C.CString("variant")}
	defer C.free(unsafe.Pointer(spec.languages))
	if vl := C.espeak_ListVoices(&spec); vl != nil {
		for _, v := range unsafe.Slice(vl, 1<<16) {
			if v == nil {
				break
			}
			if name, ok := strings.CutPrefix(C.GoString(v.identifier), "!v/"); ok {
				t.Variants[strings.ToLower(name)] = name
			}
		}
	}
	for _, file := range files {
		// The voice's id is its first language, if no other voice took it.
		for code, c := range best {
			if c.file == file && c.priority < 100 {
				t.Voices = append(t.Voices, engine.Voice{Name: code, Language: bcp47(code), Description: names[file], SampleRate: sampleRate})
			}
		}
	}
	slices.SortFunc(t.Voices, func(a, b engine.Voice) int { return strings.Compare(a.Name, b.Name) })
	currentVoice = ""
	return t
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
