package onnx

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine"
	"golang.org/x/text/unicode/norm"
)

var _ engine.PhonemeChecker = (*Engine)(nil)

// speakPhonemes speaks req.Phonemes, IPA, instead of phonemizing
// req.Text: a Piper voice maps its symbols through the config's
// phoneme_id_map (phoneme_map first), a Kokoro voice through misaki's
// table and Kokoro's vocabulary (see kokoroIPA). Symbols the voice has no
// id for are left out (UnknownPhonemes lists them). It gives one chunk
// with one word over req.Text.
func (e *Engine) speakPhonemes(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	var audio []float32
	var rate int
	m, sid, err := e.lookup(req.Voice)
	switch {
	case err == nil:
		ids := m.cfg.ids(nil, req.Phonemes, nil)
		if len(ids) <= 3 { // ^ _ $: nothing to say
			return ctx.Err()
		}
		s, _, err := e.acquire(ctx, m)
		if err != nil {
			return e.runError(ctx, req, err)
		}
		defer e.release(m)
		audio, _, err = m.run(ctx, s, ids, m.cfg.LengthScale/float32(req.Prosody.RateOrDefault()), sid)
		if err != nil {
			return e.runError(ctx, req, err)
		}
		rate = m.cfg.SampleRate
	case !errors.Is(err, engine.ErrUnknownVoice):
		return err
	default: // a Kokoro pack or blend, or unknown
		v, err := e.kokoroVoice(req.Voice)
		if err != nil {
			return err
		}
		s, _, err := e.acquire(ctx, v.m)
		if err != nil {
			return e.runError(ctx, req, err)
		}
		defer e.release(v.m)
		ids := kokoroTokens(v.lang.kokoroPhonemes(kokoroIPA(req.Phonemes)))
		for _, c := range splitTokenSpans(ids) {
			a, _, err := v.m.runKokoro(ctx, s, ids[c.from:c.to], v.style.row(c.to-c.from), req.Prosody.RateOrDefault())
			if err != nil {
				return e.runError(ctx, req, err)
			}
			audio = append(audio, a...)
		}
		rate = KokoroSampleRate
	}
	if len(audio) == 0 {
		return ctx.Err()
	}
	scale(audio, gainOf(req.Prosody))
	c := engine.Chunk{Samples: audio, SampleRate: rate}
	if a := strings.IndexFunc(req.Text, isWordRune); a >= 0 && req.Words {
		b := strings.LastIndexFunc(req.Text, isWordRune)
		_, size := utf8.DecodeRuneInString(req.Text[b:])
		c.Words = []engine.Word{{Start: a, End: b + size, From: 0, To: len(audio)}}
	}
	if err := emit(c); err != nil {
		return err
	}
	return ctx.Err()
}

// runError is the error of a failed model run: the context's when it is
// done.
func (e *Engine) runError(ctx context.Context, req engine.Request, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("onnx: voice %s: %w", req.Voice, err)
}

// kokoroTies writes IPA's diphthongs and affricates with espeak-ng's tie
// mark, as misaki's tables (kokoroPhonemes) expect them: "oʊ" as "o^ʊ",
// which misaki's American English makes "O".
var kokoroTies = strings.NewReplacer(
	"aɪ", "a^ɪ", "aʊ", "a^ʊ", "eɪ", "e^ɪ", "ɔɪ", "ɔ^ɪ", "oʊ", "o^ʊ", "əʊ", "ə^ʊ",
	"tʃ", "t^ʃ", "dʒ", "d^ʒ", "ts", "t^s", "dz", "d^z", "eə", "e^ə",
	"\u0361", "", "\u035c", "", // IPA's own ties: t͡ʃ is tʃ
)

// kokoroIPA readies IPA for a Kokoro voice's table: IPA's ties and
// misaki's respelled as espeak-ng's. It is not normalized: Kokoro's
// vocabulary holds both precomposed letters (ç) and a combining mark
// (the nasal tilde).
func kokoroIPA(ipa string) string {
	return kokoroTies.Replace(strings.ReplaceAll(ipa, "^", ""))
}

// UnknownPhonemes implements engine.PhonemeChecker: the symbols of ipa
// that the voice's phoneme_id_map (Piper) or Kokoro's vocabulary, after
// misaki's table, has no id for.
func (e *Engine) UnknownPhonemes(ctx context.Context, voice, ipa string) ([]string, error) {
	var unknown []string
	add := func(r rune) {
		if s := string(r); !unicode.IsSpace(r) && !slices.Contains(unknown, s) {
			unknown = append(unknown, s)
		}
	}
	if m, _, err := e.lookup(voice); err == nil {
		for _, r := range norm.NFD.String(ipa) {
			to, ok := m.cfg.PhonemeMap[r]
			if !ok {
				to = []rune{r}
			}
			for _, p := range to {
				if _, ok := m.cfg.PhonemeIDs[p]; !ok {
					add(p)
				}
			}
		}
		return unknown, ctx.Err()
	}
	v, err := e.kokoroVoice(voice)
	if err != nil {
		return nil, err
	}
	for _, r := range v.lang.kokoroPhonemes(kokoroIPA(ipa)) {
		if _, ok := kokoroVocab[r]; !ok {
			add(r)
		}
	}
	return unknown, ctx.Err()
}
