//go:build cgo

package espeak

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/internal/dsp"
)

// phonemeEvents are espeak_Initialize's options for espeakEVENT_PHONEME
// events (bit 0) that name phonemes in IPA (bit 1).
const phonemeEvents = 0x3

// speakPhonemes speaks req.Phonemes, IPA, through espeak-ng's phoneme
// input: mnemonics in [[ ]] (see mnemonics), symbols without one left
// out. It gives one chunk with one word over req.Text.
func (e *Engine) speakPhonemes(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	samples, rate, err := e.phonemeAudio(ctx, req, nil)
	if err != nil || len(samples) == 0 {
		return err
	}
	c := engine.Chunk{Samples: samples, SampleRate: rate}
	if a, b, ok := wordSpan(req.Text); ok && req.Words {
		c.Words = []engine.Word{{Start: a, End: b}}
		timeWords(samples, c.Words, 0)
	}
	samples = dsp.AppendSilence(samples, pauseAfter(req.Text, rate, req.Prosody.RateOrDefault()))
	c.Samples = samples
	if err := emit(c); err != nil {
		return err
	}
	return ctx.Err()
}

// phonemeAudio synthesizes req.Phonemes at req's rate, with req's
// breaks at the end, and puts the IPA espeak-ng reports for each phoneme
// it spoke in spoken when that is not nil.
func (e *Engine) phonemeAudio(ctx context.Context, req engine.Request, spoken *[]string) ([]float32, int, error) {
	ph, _ := mnemonics(req.Phonemes)
	if ph == "" {
		return nil, 0, ctx.Err()
	}
	speed := req.Prosody.RateOrDefault()
	wpm := max(minWPM, min(maxWPM, int(float64(normalWPM)*speed+0.5)))
	voice := req.Voice
	if req.Prosody.Whisper {
		voice = whisperVoice(voice)
	}
	pieces := []string{ph}
	if !e.unguarded {
		pieces = guardPhonemes(ph)
	}
	var samples []float32
	var rate int
	for _, piece := range pieces {
		var err error
		var got []string
		want := &got
		if spoken == nil {
			want = nil
		}
		samples, _, rate, err = e.synth(ctx, samples, voice, "[["+piece+"]]", wpm, phonemeText, want)
		if err != nil {
			return nil, 0, err
		}
		if spoken != nil {
			*spoken = append(*spoken, got...)
		}
	}
	if stretch := speed * normalWPM / float64(wpm); stretch < 0.99 {
		samples = dsp.Stretch(samples, rate, stretch)
	}
	for _, b := range req.Breaks {
		samples = dsp.AppendSilence(samples, int(b.Duration.Seconds()*float64(rate)+0.5))
	}
	return samples, rate, nil
}

// wordSpan returns the bytes of text from its first word character to
// the end of its last.
func wordSpan(text string) (a, b int, ok bool) {
	a = strings.IndexFunc(text, isWordChar)
	if a < 0 {
		return 0, 0, false
	}
	b = strings.LastIndexFunc(text, isWordChar)
	_, size := utf8.DecodeRuneInString(text[b:])
	return a, b + size, true
}

// UnknownPhonemes implements engine.PhonemeChecker: the IPA symbols that
// have no espeak-ng mnemonic (see mnemonics). Every voice takes the same
// ones.
func (e *Engine) UnknownPhonemes(ctx context.Context, voice, ipa string) ([]string, error) {
	_, unknown := mnemonics(ipa)
	return unknown, ctx.Err()
}
