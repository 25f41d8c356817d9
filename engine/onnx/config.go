package onnx

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ErrBadConfig is returned (wrapped) for a voice config that cannot be
// used.
var ErrBadConfig = errors.New("onnx: bad voice config")

// Special phonemes of Piper's id map.
const (
	padPhoneme = "_" // between phonemes
	bosPhoneme = "^" // start of a sentence
	eosPhoneme = "$" // end of a sentence
)

// Piper's inference defaults, used when a config leaves them out.
const (
	defaultNoiseScale  = 0.667
	defaultLengthScale = 1.0
	defaultNoiseW      = 0.8
	// defaultHopLength is piper1-gpl's samples per frame (of a duration
	// output) when a config has no hop_length.
	defaultHopLength = 256
)

// Config is a Piper voice config, the NAME.onnx.json beside NAME.onnx.
// Only the fields the engine uses are kept.
type Config struct {
	// SampleRate is the model's output rate in hertz.
	SampleRate int
	// Quality is Piper's quality label ("x_low", "low", "medium", "high").
	Quality string
	// EspeakVoice is the espeak-ng voice that phonemizes text.
	EspeakVoice string
	// PhonemeType is "espeak" (IPA from espeak-ng) or "text" (the text's
	// own codepoints).
	PhonemeType string
	// NoiseScale, LengthScale and NoiseW are the inference defaults.
	NoiseScale, LengthScale, NoiseW float32
	// PhonemeMap replaces a phoneme by others before ids are looked up.
	PhonemeMap map[rune][]rune
	// PhonemeIDs maps a phoneme (one codepoint) to its ids.
	PhonemeIDs map[rune][]int64
	// NumSymbols is the size of the model's id vocabulary.
	NumSymbols int
	// NumSpeakers is 1 for a single-speaker voice.
	NumSpeakers int
	// Speakers maps speaker names to speaker ids (sid), for voices with
	// more than one speaker.
	Speakers map[string]int64
	// Language is a BCP 47 tag such as "en-US", when the config has one.
	Language string
	// Dataset names the voice's training data, e.g. "lessac".
	Dataset string
	// HopLength is the number of samples per frame of the model's
	// phoneme durations (see the package doc on word timings): the
	// config's hop_length, 256 when it has none.
	HopLength int
}

// rawConfig mirrors the JSON file.
type rawConfig struct {
	Audio struct {
		SampleRate int    `json:"sample_rate"`
		Quality    string `json:"quality"`
	} `json:"audio"`
	Espeak struct {
		Voice string `json:"voice"`
	} `json:"espeak"`
	Inference struct {
		NoiseScale  *float32 `json:"noise_scale"`
		LengthScale *float32 `json:"length_scale"`
		NoiseW      *float32 `json:"noise_w"`
	} `json:"inference"`
	PhonemeType  string              `json:"phoneme_type"`
	PhonemeMap   map[string][]string `json:"phoneme_map"`
	PhonemeIDMap map[string][]int64  `json:"phoneme_id_map"`
	NumSymbols   int                 `json:"num_symbols"`
	NumSpeakers  int                 `json:"num_speakers"`
	SpeakerIDMap map[string]int64    `json:"speaker_id_map"`
	Language     struct {
		Code string `json:"code"`
	} `json:"language"`
	Dataset   string `json:"dataset"`
	HopLength *int   `json:"hop_length"`
}

// ReadConfig reads and checks a Piper voice config file.
func ReadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return c, nil
}

// MaxSpeakers is the most speakers a Piper voice may have (libritts_r
// has 904): each is a voice of the catalog, so a config claiming more is
// refused.
const MaxSpeakers = 2048

// ParseConfig parses and checks a Piper voice config. Errors wrap
// ErrBadConfig.
func ParseConfig(data []byte) (*Config, error) {
	var raw rawConfig
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadConfig}, args...)...)
	}
	c := &Config{
		SampleRate:  raw.Audio.SampleRate,
		Quality:     raw.Audio.Quality,
		EspeakVoice: raw.Espeak.Voice,
		PhonemeType: raw.PhonemeType,
		NoiseScale:  orDefault(raw.Inference.NoiseScale, defaultNoiseScale),
		LengthScale: orDefault(raw.Inference.LengthScale, defaultLengthScale),
		NoiseW:      orDefault(raw.Inference.NoiseW, defaultNoiseW),
		NumSymbols:  raw.NumSymbols,
		NumSpeakers: max(raw.NumSpeakers, 1),
		Language:    strings.ReplaceAll(raw.Language.Code, "_", "-"),
		Dataset:     raw.Dataset,
		HopLength:   defaultHopLength,
	}
	if raw.HopLength != nil {
		c.HopLength = *raw.HopLength
	}
	if c.PhonemeType == "" {
		c.PhonemeType = "espeak"
	}
	switch {
	case c.SampleRate < 1000 || c.SampleRate > 192000:
		return nil, bad("audio.sample_rate %d is out of range", c.SampleRate)
	case c.PhonemeType != "espeak" && c.PhonemeType != "text":
		return nil, bad("phoneme_type %q is not supported (want espeak or text)", c.PhonemeType)
	case c.PhonemeType == "espeak" && c.EspeakVoice == "":
		return nil, bad("espeak.voice is missing")
	case c.LengthScale <= 0:
		return nil, bad("inference.length_scale %g is not positive", c.LengthScale)
	case c.HopLength <= 0:
		return nil, bad("hop_length %d is not positive", c.HopLength)
	case c.NoiseScale < 0 || c.NoiseW < 0:
		return nil, bad("inference.noise_scale and noise_w must not be negative")
	case len(raw.PhonemeIDMap) == 0:
		return nil, bad("phoneme_id_map is missing")
	case raw.NumSpeakers > MaxSpeakers:
		return nil, bad("num_speakers %d is more than %d", raw.NumSpeakers, MaxSpeakers)
	}
	c.PhonemeIDs = make(map[rune][]int64, len(raw.PhonemeIDMap))
	for p, ids := range raw.PhonemeIDMap {
		r, err := onePhoneme(p)
		if err != nil {
			return nil, bad("phoneme_id_map: %v", err)
		}
		if len(ids) == 0 {
			return nil, bad("phoneme_id_map: %q has no ids", p)
		}
		for _, id := range ids {
			if id < 0 || c.NumSymbols > 0 && id >= int64(c.NumSymbols) {
				return nil, bad("phoneme_id_map: id %d of %q is outside [0, num_symbols=%d)", id, p, c.NumSymbols)
			}
		}
		c.PhonemeIDs[r] = ids
	}
	for _, p := range []string{padPhoneme, bosPhoneme, eosPhoneme} {
		if _, ok := c.PhonemeIDs[rune(p[0])]; !ok {
			return nil, bad("phoneme_id_map has no %q", p)
		}
	}
	if len(raw.PhonemeMap) > 0 {
		c.PhonemeMap = make(map[rune][]rune, len(raw.PhonemeMap))
		for from, to := range raw.PhonemeMap {
			r, err := onePhoneme(from)
			if err != nil {
				return nil, bad("phoneme_map: %v", err)
			}
			for _, s := range to {
				c.PhonemeMap[r] = append(c.PhonemeMap[r], []rune(norm.NFD.String(s))...)
			}
		}
	}
	if c.NumSpeakers > 1 {
		c.Speakers = make(map[string]int64, len(raw.SpeakerIDMap))
		for name, id := range raw.SpeakerIDMap {
			if id < 0 || id >= int64(c.NumSpeakers) {
				return nil, bad("speaker_id_map: id %d of %q is outside [0, num_speakers=%d)", id, name, c.NumSpeakers)
			}
			c.Speakers[name] = id
		}
		if len(c.Speakers) == 0 { // name the speakers by their ids
			for id := range c.NumSpeakers {
				c.Speakers[fmt.Sprint(id)] = int64(id)
			}
		}
	}
	return c, nil
}

func orDefault(v *float32, def float32) float32 {
	if v == nil {
		return def
	}
	return *v
}

// onePhoneme returns the single codepoint of a phoneme map key.
func onePhoneme(s string) (rune, error) {
	r, size := utf8.DecodeRuneInString(s)
	if s == "" || size != len(s) || r == utf8.RuneError {
		return 0, fmt.Errorf("phoneme %q is not one codepoint", s)
	}
	return r, nil
}

// IDs turns the phonemes of one sentence into model input the way Piper
// does: phonemes are the codepoints of the NFD form of phonemes, mapped
// through PhonemeMap, and the ids are
//
//	^ _ p1 _ p2 _ … pN _ $
//
// with phonemes that have no id skipped. It appends to dst and returns the
// extended slice.
func (c *Config) IDs(dst []int64, phonemes string) []int64 {
	return c.ids(dst, phonemes, nil)
}

// ids is IDs, recording what each id stands for in t when t is not nil.
func (c *Config) ids(dst []int64, phonemes string, t *wordTracker) []int64 {
	pad := c.PhonemeIDs[rune(padPhoneme[0])]
	bos := c.PhonemeIDs[rune(bosPhoneme[0])]
	dst = append(dst, bos...)
	dst = append(dst, pad...)
	t.edge(len(bos) + len(pad))
	add := func(r rune) {
		ids, ok := c.PhonemeIDs[r]
		if ok {
			dst = append(dst, ids...)
			dst = append(dst, pad...)
		}
		t.phoneme(r, len(ids), len(pad))
	}
	var it norm.Iter
	it.InitString(norm.NFD, phonemes)
	for !it.Done() {
		seg := it.Next()
		for len(seg) > 0 {
			r, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			if to, ok := c.PhonemeMap[r]; ok {
				for _, m := range to {
					add(m)
				}
				continue
			}
			add(r)
		}
	}
	eos := c.PhonemeIDs[rune(eosPhoneme[0])]
	t.edge(len(eos))
	return append(dst, eos...)
}

// speakerNames returns the config's speaker names ordered by speaker id.
func (c *Config) speakerNames() []string {
	names := make([]string, 0, len(c.Speakers))
	for name := range c.Speakers {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := c.Speakers[a] - c.Speakers[b]; d != 0 {
			return int(d)
		}
		return strings.Compare(a, b)
	})
	return names
}
