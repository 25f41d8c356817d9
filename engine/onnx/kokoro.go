package onnx

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/sentence"
)

// KokoroSampleRate is the output rate of every Kokoro export.
const KokoroSampleRate = 24000

// TiePhonemizer is a Phonemizer that can also write espeak-ng's "^" tie
// marks between the letters of one phoneme (the espeak engine can).
// Kokoro voices need it: misaki's phoneme set, which Kokoro was trained
// on, is derived from that form.
type TiePhonemizer interface {
	PhonemizeTied(ctx context.Context, voice, text string) ([]string, error)
}

// kokoroModel is what a Kokoro model adds to its *model: the names of its
// export's inputs and output, and its voice packs.
type kokoroModel struct {
	ids      string // "tokens" (kokoro-onnx v1.0) or "input_ids"
	audio    string // "audio" or "waveform"
	duration string // "duration" or "durations" (frames per token), or ""
	intSpeed bool   // speed is int32 (kokoro-onnx v1.1-zh)
	packs    map[string]pack
	source   string // NAME.voices, NAME.voices.bin or the pack file pairKokoro chose
}

// Input names shared by every Kokoro export.
const (
	kokoroStyle = "style"
	kokoroSpeed = "speed"
)

// kokoroPacksPath returns where the voice packs of a Kokoro model
// NAME.onnx are when they are named for it: NAME.voices/ (a directory of
// VOICE.bin) or NAME.voices.bin (an .npz archive or packs back to back)
// beside it; else "".
func kokoroPacksPath(modelPath string) string {
	base := strings.TrimSuffix(modelPath, ".onnx")
	for _, p := range []string{base + ".voices", base + ".voices.bin"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// readVoice reads the model file of a voice directory entry for the
// catalog, without creating a session (see model.load). This is
// where the voice-directory scan tells the two families apart: a model
// with NAME.onnx.json beside it is a Piper voice; one with packs named
// for it (kokoroPacksPath) is a Kokoro model; any other is a Kokoro model
// if its inputs and outputs say so, paired with a pack file beside it by
// pairKokoro (kokoro-onnx's files as downloaded), else a Piper voice
// whose config is missing. A Kokoro model that no pack file can be told
// for is logged with the reason, the candidates and the name to give.
func (e *Engine) readVoice(name, path string) (*model, error) {
	if _, err := os.Stat(path + ".json"); err == nil {
		return readModel(name, path)
	}
	var k *kokoroModel
	var speakers []string
	source := kokoroPacksPath(path)
	if source == "" {
		var err error
		if k, speakers, err = kokoroExport(path); err != nil {
			return readModel(name, path) // fails: no config
		}
		if source, err = pairKokoro(path); err != nil {
			var pe *packPairError
			if errors.As(err, &pe) {
				e.log.Warn("onnx: Kokoro model left out: no voice packs", "model", path, "reason", pe.Reason,
					"candidates", strings.Join(pe.Candidates, ", "), "rename_to", pe.Want)
			}
			return nil, err
		}
		e.log.Debug("onnx: Kokoro model paired with a pack file beside it", "model", path, "packs", source)
	}
	if _, ok := e.opts.Phonemizer.(TiePhonemizer); !ok {
		return nil, fmt.Errorf("onnx: Kokoro model %s needs a phonemizer with tie marks (Options.Phonemizer: the espeak engine)", name)
	}
	return readKokoro(name, path, source, k, speakers)
}

// readKokoro reads a Kokoro model's packs and detects the export's
// flavour from its inputs and outputs (unless k has it already, with the
// model's speakers), without creating a session.
func readKokoro(name, path, source string, k *kokoroModel, speakers []string) (*model, error) {
	fail := func(err error) (*model, error) {
		return nil, fmt.Errorf("onnx: Kokoro model %s (%s): %w", name, path, err)
	}
	stamp, err := stampOf(path, source)
	if err != nil {
		return fail(err)
	}
	if k == nil {
		if k, speakers, err = kokoroExport(path); err != nil {
			return fail(err)
		}
	}
	if k.packs, err = readPacks(source, speakers); err != nil {
		return fail(err)
	}
	k.source = source
	m := &model{
		name: name, path: path, stamp: stamp, size: stamp.modelSize, kokoro: k,
		cfg: &Config{SampleRate: KokoroSampleRate, PhonemeType: "espeak", NumSpeakers: len(k.packs), Quality: "kokoro", LengthScale: 1},
	}
	m.outputs = []string{k.audio}
	if k.duration != "" {
		m.outputs = append(m.outputs, k.duration)
	}
	return m, nil
}

// loadKokoro creates a Kokoro model's session and checks it with one
// short run.
func (m *model) loadKokoro(so sessionOptions) (*ort.DynamicAdvancedSession, error) {
	fail := func(err error) (*ort.DynamicAdvancedSession, error) {
		return nil, fmt.Errorf("onnx: Kokoro model %s (%s): %w", m.name, m.path, err)
	}
	k := m.kokoro
	s, err := newSession(m.path, []string{k.ids, kokoroStyle, kokoroSpeed}, m.outputs, so)
	if err != nil {
		return fail(err)
	}
	first := k.packs[slices.Sorted(maps.Keys(k.packs))[0]]
	if _, _, err := m.runKokoro(context.Background(), s, []int64{kokoroVocab['ə']}, first.row(1), 1); err != nil {
		s.Destroy()
		return fail(fmt.Errorf("test run: %w", err))
	}
	return s, nil
}

// kokoroExport tells the flavour of a Kokoro export from its inputs and
// outputs (never from its file name), and returns sherpa-onnx's
// speaker_names metadata when the model has it.
func kokoroExport(path string) (*kokoroModel, []string, error) {
	mi, err := readModelInfo(path)
	if err != nil {
		return nil, nil, err
	}
	k := &kokoroModel{}
	types := map[string]ort.TensorElementDataType{}
	for _, in := range mi.inputs {
		types[in.name] = in.elem
	}
	for _, name := range []string{"tokens", "input_ids"} {
		if t, ok := types[name]; ok && t == ort.TensorElementDataTypeInt64 {
			k.ids = name
		}
	}
	speed, hasSpeed := types[kokoroSpeed]
	k.intSpeed = speed == ort.TensorElementDataTypeInt32
	for _, out := range mi.outputs {
		if (out.name == "audio" || out.name == "waveform") && out.elem == ort.TensorElementDataTypeFloat {
			k.audio = out.name
		}
		if (out.name == "duration" || out.name == "durations") && numericType(out.elem) {
			k.duration = out.name
		}
	}
	if k.ids == "" || types[kokoroStyle] != ort.TensorElementDataTypeFloat || !hasSpeed ||
		speed != ort.TensorElementDataTypeFloat && !k.intSpeed || k.audio == "" {
		var names []string
		for _, in := range mi.inputs {
			names = append(names, in.String())
		}
		for _, out := range mi.outputs {
			names = append(names, "-> "+out.String())
		}
		return nil, nil, fmt.Errorf("not a Kokoro export: want inputs tokens or input_ids (int64), style (float32), speed (float32 or int32) and output audio or waveform (float32); it has %s", strings.Join(names, ", "))
	}
	names := mi.metadata["speaker_names"]
	if names == "" {
		return k, nil, nil
	}
	return k, strings.Split(names, ","), nil
}

// runKokoro synthesizes one chunk of at most KokoroMaxTokens ids (without
// the pads) with a style vector, and returns 24 kHz audio, and the frames
// of each token (pads included) when the model gives them. A model whose
// speed input is int32 gets the speed rounded to a whole number, at least
// 1. A done ctx terminates the run.
func (m *model) runKokoro(ctx context.Context, s *ort.DynamicAdvancedSession, ids []int64, style []float32, speed float64) (audio []float32, durations []float64, err error) {
	k := m.kokoro
	padded := make([]int64, len(ids)+2)
	copy(padded[1:], ids)
	var in tensors
	in.add(ort.NewTensor(ort.NewShape(1, int64(len(padded))), padded))
	in.add(ort.NewTensor(ort.NewShape(1, styleDim), style))
	if k.intSpeed {
		in.add(ort.NewTensor(ort.NewShape(1), []int32{int32(max(1, math.Round(speed)))}))
	} else {
		in.add(ort.NewTensor(ort.NewShape(1), []float32{float32(speed)}))
	}
	return runAudio(ctx, s, &in, m.outputs, false)
}

// kokoroOwners maps each usable pack name to its model: when two Kokoro
// models have a pack of the same name, the model whose NAME sorts first
// has it; a pack named like a Piper voice is shadowed by that voice. e.mu
// is held.
func (e *Engine) kokoroOwners() map[string]*model {
	owners := map[string]*model{}
	for _, name := range slices.Sorted(maps.Keys(e.models)) {
		m := e.models[name]
		if m.kokoro == nil {
			continue
		}
		for p := range m.kokoro.packs {
			if _, taken := owners[p]; taken {
				continue
			}
			if piper := e.models[p]; piper != nil && piper.kokoro == nil {
				continue
			}
			owners[p] = m
		}
	}
	return owners
}

// kokoroVoices lists the packs of the Kokoro models that the engine can
// speak with, and logs nothing: packs of unsupported languages (Japanese,
// Mandarin) are left out, since using them fails. e.mu is held.
func (e *Engine) kokoroVoices() []engine.Voice {
	var out []engine.Voice
	for p, m := range e.kokoroOwners() {
		lang, err := kokoroLanguageOf(p)
		if err != nil {
			continue
		}
		out = append(out, engine.Voice{
			Name:        p,
			Language:    lang.tag,
			Description: fmt.Sprintf("Kokoro %s (%s, %s, %d Hz)", p, lang.name, m.name, KokoroSampleRate),
			SampleRate:  KokoroSampleRate,
		})
	}
	return out
}

// kokoroVoice is a resolved Kokoro voice id: a pack or a blend of packs
// of one model.
type kokoroVoice struct {
	m     *model
	style pack
	lang  kokoroLanguage
}

// kokoroVoice resolves a pack name or a blend such as
// "af_bella(2)+af_sky(1)". Errors wrap engine.ErrUnknownVoice (and
// ErrUnsupportedLanguage for a Japanese or Mandarin pack).
func (e *Engine) kokoroVoice(id string) (kokoroVoice, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed {
		return kokoroVoice{}, errClosed
	}
	owners := e.kokoroOwners()
	if h := e.held[id]; h != nil && h.m.kokoro != nil {
		for p := range h.m.kokoro.packs { // removed by a rescan while HoldVoice holds it
			if owners[p] == nil {
				owners[p] = h.m
			}
		}
	}
	unknown := func(err error) (kokoroVoice, error) {
		if err == nil {
			return kokoroVoice{}, fmt.Errorf("onnx: %w %q", engine.ErrUnknownVoice, id)
		}
		return kokoroVoice{}, fmt.Errorf("onnx: %w %q: %w", engine.ErrUnknownVoice, id, err)
	}
	if m := owners[id]; m != nil {
		lang, err := kokoroLanguageOf(id)
		if err != nil {
			return unknown(err)
		}
		return kokoroVoice{m, m.kokoro.packs[id], lang}, nil
	}
	if !strings.ContainsAny(id, "+-()") {
		return unknown(nil)
	}
	terms, err := parseBlend(id)
	if err != nil {
		return unknown(err)
	}
	if !slices.ContainsFunc(terms, func(t blendTerm) bool { return owners[t.name] != nil }) {
		return unknown(nil) // no pack in it: not a blend, such as "en-GB"
	}
	var packs []pack
	var weights []float64
	var m *model
	for _, t := range terms {
		owner := owners[t.name]
		switch {
		case owner == nil:
			return unknown(&engine.UnsupportedVoiceError{Voice: id,
				Reason: fmt.Sprintf("the blend's part %s is not a Kokoro voice of this server", t.name)})
		case m != nil && owner != m:
			return unknown(&engine.UnsupportedVoiceError{Voice: id,
				Reason: fmt.Sprintf("a blend mixes the packs of one Kokoro model, and %s is a pack of %s while %s is of %s", t.name, owner.name, terms[0].name, m.name)})
		}
		if _, err := kokoroLanguageOf(t.name); err != nil {
			return unknown(err)
		}
		m = owner
		packs = append(packs, m.kokoro.packs[t.name])
		weights = append(weights, t.weight)
	}
	lang, _ := kokoroLanguageOf(terms[0].name)
	return kokoroVoice{m, blend(packs, weights), lang}, nil
}

// ResolveVoice implements engine.VoiceResolver: it accepts what Voices
// does not list — the bare NAME of a multi-speaker Piper model, which is
// its first speaker (speaker id 0), and a blend of Kokoro packs such as
// "af_bella(2)+af_sky(1)", which speaks the language of its first voice.
func (e *Engine) ResolveVoice(name string) (engine.Voice, error) {
	e.mu.RLock()
	m := e.models[name]
	e.mu.RUnlock()
	if m != nil && m.kokoro == nil && m.multi {
		return engine.Voice{Name: name, Language: m.cfg.Language, SampleRate: m.cfg.SampleRate,
			Description: fmt.Sprintf("Piper %s (%s, %d Hz), its first speaker", m.cfg.Dataset, m.cfg.Quality, m.cfg.SampleRate)}, nil
	}
	v, err := e.kokoroVoice(name)
	if err != nil {
		return engine.Voice{}, err
	}
	return engine.Voice{
		Name:        name,
		Language:    v.lang.tag,
		Description: fmt.Sprintf("Kokoro blend %s (%s, %s, %d Hz)", name, v.lang.name, v.m.name, KokoroSampleRate),
		SampleRate:  KokoroSampleRate,
	}, nil
}

// synthesizeKokoro speaks req with a Kokoro pack or blend: sentence by
// sentence as for Piper voices, each phonemized by espeak-ng with tie
// marks, mapped to misaki's phoneme set, cut into chunks of at most 510
// tokens, and run with the pack's style row for the chunk's length.
func (e *Engine) synthesizeKokoro(ctx context.Context, req engine.Request, emit engine.ChunkFunc) error {
	v, err := e.kokoroVoice(req.Voice)
	if err != nil {
		return err
	}
	s, _, err := e.acquire(ctx, v.m)
	if err != nil {
		return e.runError(ctx, req, err)
	}
	defer e.release(v.m)
	tp, ok := e.opts.Phonemizer.(TiePhonemizer)
	if !ok {
		return errors.New("onnx: Kokoro voices need a phonemizer with tie marks (Options.Phonemizer: the espeak engine)")
	}
	speed := req.Prosody.RateOrDefault()
	gain := gainOf(req.Prosody)
	at, from := 0, 0 // samples emitted, bytes of req.Text passed
	for _, text := range sentence.Split(req.Text, 0) {
		if err := ctx.Err(); err != nil {
			return err
		}
		clauses, err := tp.PhonemizeTied(ctx, v.lang.espeak, text)
		if err != nil {
			return fmt.Errorf("onnx: phonemize for voice %s: %w", req.Voice, err)
		}
		var runs []idRun
		for _, s := range sentencesOf(clauses) {
			t := &wordTracker{}
			ids := kokoroTokensTracked(v.lang.kokoroPhonemes(s), t)
			for _, c := range splitTokenSpans(ids) {
				r := idRun{ids: ids[c.from:c.to]}
				r.info, r.words = chunkWords(t.info[c.from:c.to])
				runs = append(runs, r)
			}
		}
		words := dealPiece(req.Text, text, &from, runs)
		for i, r := range runs {
			if err := ctx.Err(); err != nil {
				return err
			}
			audio, durations, err := v.m.runKokoro(ctx, s, r.ids, v.style.row(len(r.ids)), speed)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("onnx: voice %s: %w", req.Voice, err)
			}
			scale(audio, gain)
			c := engine.Chunk{Samples: audio, SampleRate: KokoroSampleRate}
			c.Words = words.timings(i, durations, kokoroFrame, at, len(audio))
			if err := emit(c); err != nil {
				return err
			}
			at += len(audio)
		}
	}
	return ctx.Err()
}

// kokoroFrame is the number of samples of one frame of a Kokoro model's
// durations.
const kokoroFrame = 600

// chunkWords returns the idInfo of a chunk of tokens with its two pads,
// its phoneme words numbered from 0, and their number.
func chunkWords(info []idInfo) ([]idInfo, int) {
	out := make([]idInfo, 0, len(info)+2)
	out = append(out, idInfo{idEdge, -1})
	first, last := int32(-1), int32(-1)
	for _, id := range info {
		if id.word >= 0 {
			if first < 0 {
				first = id.word
			}
			last = id.word
			id.word -= first
		}
		out = append(out, id)
	}
	out = append(out, idInfo{idEdge, -1})
	if first < 0 {
		return out, 0
	}
	return out, int(last - first + 1)
}

// currentStamp returns the stamp of the model's files as they are now: the
// .onnx with its .onnx.json, or with its packs for a Kokoro model.
func (m *model) currentStamp() (fileStamp, error) {
	if m.kokoro != nil {
		return stampOf(m.path, m.kokoro.source)
	}
	return stampOf(m.path, m.path+".json")
}
