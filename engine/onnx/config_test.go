package onnx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/engine"
)

// The five real Piper configs, copied from the voices' releases.
func TestRealConfigs(t *testing.T) {
	tests := []struct {
		file                string
		rate, speakers      int
		espeak, lang        string
		noise, length, nw   float32
		firstSpeaker        string
		firstSpeakerID      int64
		quality, dataset    string
		numIDs, numSymbols  int
		pad, bos, eos, stop int64
	}{
		{"en_GB-alan-medium", 22050, 1, "en-gb-x-rp", "en-GB", 0.667, 0.8, 0.8, "", 0, "medium", "alan", 154, 256, 0, 1, 2, 10},
		{"en_GB-aru-medium", 22050, 12, "en-gb-x-rp", "en-GB", 0.667, 0.6, 0.8, "03", 0, "medium", "aru", 154, 256, 0, 1, 2, 10},
		{"en_GB-vctk-medium", 22050, 109, "en-gb-x-rp", "en-GB", 0.333, 1.4, 0.333, "p239", 0, "medium", "vctk", 154, 256, 0, 1, 2, 10},
		{"en_US-lessac-low", 16000, 1, "en-us", "en-US", 0.667, 1, 0.8, "", 0, "low", "lessac", 154, 256, 0, 1, 2, 10},
		{"en_US-lessac-medium", 22050, 1, "en-us", "en-US", 0.667, 1.2, 0.8, "", 0, "medium", "lessac", 154, 256, 0, 1, 2, 10},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := ReadConfig(filepath.Join("testdata", "configs", tt.file+".onnx.json"))
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(c.SampleRate, c.NumSpeakers, c.EspeakVoice, c.Language, c.NoiseScale, c.LengthScale, c.NoiseW, c.Quality, c.Dataset, len(c.PhonemeIDs), c.NumSymbols)
			want := fmt.Sprint(tt.rate, tt.speakers, tt.espeak, tt.lang, tt.noise, tt.length, tt.nw, tt.quality, tt.dataset, tt.numIDs, tt.numSymbols)
			if got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if ids := c.IDs(nil, "."); !slices.Equal(ids, []int64{tt.bos, tt.pad, tt.stop, tt.pad, tt.eos}) {
				t.Errorf(`IDs(".") = %v`, ids)
			}
			if tt.speakers > 1 {
				names := c.speakerNames()
				if len(names) != tt.speakers || names[0] != tt.firstSpeaker || c.Speakers[names[0]] != tt.firstSpeakerID {
					t.Errorf("speakers: %d, first %q", len(names), names[0])
				}
			} else if len(c.Speakers) != 0 {
				t.Errorf("single-speaker voice has speakers %v", c.Speakers)
			}
		})
	}
}

func TestIDs(t *testing.T) {
	c, err := ReadConfig("testdata/configs/en_US-lessac-medium.onnx.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		phonemes string
		want     []int64
	}{
		// Hand-checked against the config's phoneme_id_map:
		// ^1 _0 h20 ə59 l24 ˈ120 o27 ʊ100 ,8 space3 w35 ɜ62 ː122 d17 !4 $2
		{"həlˈoʊ, wˈɜːld!", []int64{1, 0, 20, 0, 59, 0, 24, 0, 120, 0, 27, 0, 100, 0, 8, 0, 3, 0,
			35, 0, 120, 0, 62, 0, 122, 0, 24, 0, 17, 0, 4, 0, 2}},
		// ð41 ə59 space3 k23 w35 ˈ120 ɪ74 k23 .10
		{"ðə kwˈɪk.", []int64{1, 0, 41, 0, 59, 0, 3, 0, 23, 0, 35, 0, 120, 0, 74, 0, 23, 0, 10, 0, 2}},
		// Unknown phonemes (☃, the tie bar U+0361) are skipped.
		{"a☃t͡ʃ", []int64{1, 0, 14, 0, 32, 0, 96, 0, 2}},
		// NFD: precomposed ç becomes c (16) + combining cedilla (140);
		// ã becomes a (14) + combining tilde (141).
		{"çã", []int64{1, 0, 16, 0, 140, 0, 14, 0, 141, 0, 2}},
		{"", []int64{1, 0, 2}},
	}
	for _, tt := range tests {
		if got := c.IDs(nil, tt.phonemes); !slices.Equal(got, tt.want) {
			t.Errorf("IDs(%q)\n got %v\nwant %v", tt.phonemes, got, tt.want)
		}
	}
}

// TestIDsFromEspeak phonemizes known sentences with the real espeak-ng
// and checks the ids a voice is fed.
func TestIDsFromEspeak(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneLow, toneVCTK)})
	tests := []struct {
		voice, text, phonemes string
		want                  []int64
	}{
		{toneLow, "Hello, world!", "həlˈoʊ, wˈɜːld!", []int64{1, 0, 20, 0, 59, 0, 24, 0, 120, 0, 27, 0, 100, 0, 8, 0, 3, 0,
			35, 0, 120, 0, 62, 0, 122, 0, 24, 0, 17, 0, 4, 0, 2}},
		// ð41 ə59 space3 k23 w35 ˈ120 ɪ74 k23 space3 b15 ɹ88 ˈ120 a14 ʊ100 n26 .10
		{toneLow, "The quick brown.", "ðə kwˈɪk bɹˈaʊn.", []int64{1, 0, 41, 0, 59, 0, 3, 0, 23, 0, 35, 0, 120, 0, 74, 0, 23, 0, 3, 0,
			15, 0, 88, 0, 120, 0, 14, 0, 100, 0, 26, 0, 10, 0, 2}},
		// ɪ74 z38 space3 ɪ74 t32 ?13
		{toneLow, "Is it?", "ɪz ɪt?", []int64{1, 0, 74, 0, 38, 0, 3, 0, 74, 0, 32, 0, 13, 0, 2}},
		// en-gb-x-rp (the vctk config): əʊ where en-us has oʊ.
		{toneVCTK, "Hello, world!", "həlˈəʊ, wˈɜːld!", []int64{1, 0, 20, 0, 59, 0, 24, 0, 120, 0, 59, 0, 100, 0, 8, 0, 3, 0,
			35, 0, 120, 0, 62, 0, 122, 0, 24, 0, 17, 0, 4, 0, 2}},
		// ɪ74 t32 s31 _3 h20 ˈ120 ɑ51 ː122 f19 _3 p28 ˈ120 ɑ51 ː122 s31 t32 _3
		// n26 ˈ120 a14 ɪ74 n26 ;12 _3 t32 ˈ120 a14 ɪ74 m25 _3 f19 ɔ54 ː122 _3
		// t32 ˈ120 i21 ː122 .10
		{toneVCTK, "It's half past nine; time for tea.", "ɪts hˈɑːf pˈɑːst nˈaɪn; tˈaɪm fɔː tˈiː.", []int64{1, 0,
			74, 0, 32, 0, 31, 0, 3, 0, 20, 0, 120, 0, 51, 0, 122, 0, 19, 0, 3, 0, 28, 0, 120, 0, 51, 0, 122, 0, 31, 0, 32, 0, 3, 0,
			26, 0, 120, 0, 14, 0, 74, 0, 26, 0, 12, 0, 3, 0, 32, 0, 120, 0, 14, 0, 74, 0, 25, 0, 3, 0, 19, 0, 54, 0, 122, 0, 3, 0,
			32, 0, 120, 0, 21, 0, 122, 0, 10, 0, 2}},
	}
	for _, tt := range tests {
		m := e.models[tt.voice]
		sentences, err := e.phonemes(context.Background(), m, tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if len(sentences) != 1 || sentences[0] != tt.phonemes {
			t.Fatalf("%s: phonemes(%q) = %q, want [%q]", tt.voice, tt.text, sentences, tt.phonemes)
		}
		if got := m.cfg.IDs(nil, sentences[0]); !slices.Equal(got, tt.want) {
			t.Errorf("%s: ids of %q\n got %v\nwant %v", tt.voice, tt.text, got, tt.want)
		}
	}
}

// TestPiperSentences: a clause ending in . ? or ! ends Piper's sentence
// (its id sequence), even inside what engine/sentence keeps together;
// other clause marks do not.
func TestPiperSentences(t *testing.T) {
	e := load(t, Options{Models: fixtureModels(toneLow)})
	tests := []struct {
		text string
		want []string
	}{
		{"Dr. Smith lives on Baker Street.", []string{"dˈɑːktɚ.", "smˈɪθ lˈaɪvz ˌɔn bˈeɪkɚ stɹˈiːt."}},
		{"Wait; listen: the rain, here!", []string{"wˈeɪt; lˈɪsən: ðə ɹˈeɪn, hˈɪɹ!"}},
		{"No mark at the end", []string{"nˈoʊ mˈɑːɹk æt ðɪ ˈɛnd"}},
	}
	for _, tt := range tests {
		got, err := e.phonemes(context.Background(), e.models[toneLow], tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("phonemes(%q)\n got %q\nwant %q", tt.text, got, tt.want)
		}
		var seqs int
		err = e.Synthesize(context.Background(), engine.Request{Voice: toneLow, Text: tt.text}, func(c engine.Chunk) error {
			bins, _ := decodeTones(c.Samples, tonePeriod)
			if n := len(bins); n < 5 || bins[0] != 1 || bins[n-1] != 2 {
				t.Errorf("%q: chunk %d is not one ^ … $ sequence: %v", tt.text, seqs, bins)
			}
			seqs++
			return nil
		})
		if err != nil || seqs != len(tt.want) {
			t.Errorf("%q: %d chunks (err %v), want %d", tt.text, seqs, err, len(tt.want))
		}
	}
}

func TestPhonemeMap(t *testing.T) {
	c := mustParse(t, func(raw map[string]any) {
		raw["phoneme_map"] = map[string]any{"g": []string{"ɡ"}, "r": []string{"ɹ", "ː"}}
	})
	if got, want := c.IDs(nil, "gr"), []int64{1, 0, 66, 0, 88, 0, 122, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("IDs with phoneme_map = %v, want %v", got, want)
	}
}

func TestBadConfigs(t *testing.T) {
	tests := []struct {
		name   string
		change func(map[string]any)
		want   string
	}{
		{"no sample rate", func(r map[string]any) { delete(r, "audio") }, "sample_rate"},
		{"no id map", func(r map[string]any) { delete(r, "phoneme_id_map") }, "phoneme_id_map is missing"},
		{"no pad", func(r map[string]any) { delete(r["phoneme_id_map"].(map[string]any), "_") }, `no "_"`},
		{"long key", func(r map[string]any) { r["phoneme_id_map"].(map[string]any)["ab"] = []int{3} }, "not one codepoint"},
		{"id too big", func(r map[string]any) { r["phoneme_id_map"].(map[string]any)["a"] = []int{256} }, "num_symbols"},
		{"speaker out of range", func(r map[string]any) {
			r["num_speakers"] = 2
			r["speaker_id_map"] = map[string]int{"x": 2}
		}, "speaker_id_map"},
		{"phoneme type", func(r map[string]any) { r["phoneme_type"] = "pinyin" }, "phoneme_type"},
		{"no espeak voice", func(r map[string]any) { delete(r, "espeak") }, "espeak.voice"},
		{"length scale", func(r map[string]any) { r["inference"].(map[string]any)["length_scale"] = 0 }, "length_scale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig(configJSON(t, tt.change))
			if !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want ErrBadConfig mentioning %q", err, tt.want)
			}
		})
	}
	if _, err := ParseConfig([]byte("{")); !errors.Is(err, ErrBadConfig) {
		t.Errorf("truncated JSON: %v", err)
	}
}

func TestConfigDefaults(t *testing.T) {
	c := mustParse(t, func(r map[string]any) {
		delete(r, "inference")
		delete(r, "num_speakers")
		r["speaker_id_map"] = map[string]int{}
	})
	if c.NoiseScale != 0.667 || c.LengthScale != 1 || c.NoiseW != 0.8 || c.NumSpeakers != 1 {
		t.Errorf("defaults: %+v", c)
	}
	c = mustParse(t, func(r map[string]any) {
		r["num_speakers"] = 3
		r["speaker_id_map"] = map[string]int{}
	})
	if got := c.speakerNames(); !slices.Equal(got, []string{"0", "1", "2"}) {
		t.Errorf("unnamed speakers: %v", got)
	}
}

// configJSON returns the lessac-low config after change.
func configJSON(t *testing.T, change func(map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/configs/en_US-lessac-low.onnx.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	change(raw)
	out, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustParse(t *testing.T, change func(map[string]any)) *Config {
	t.Helper()
	c, err := ParseConfig(configJSON(t, change))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
