package onnx

import (
	"archive/zip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/enginetest"
	"github.com/voxkit/voxkit/voices"
)

// Fixtures made by testdata/gen/kokoro.py: one model per export flavour.
const kokoroDir = "testdata/kokoro"

func TestKokoroVocab(t *testing.T) {
	if len(kokoroVocab) != 114 {
		t.Errorf("%d symbols, want 114", len(kokoroVocab))
	}
	seen := map[int64]rune{}
	for r, id := range kokoroVocab {
		if id < 1 || id > 177 {
			t.Errorf("%q has id %d, outside 1..177", r, id)
		}
		if o, dup := seen[id]; dup {
			t.Errorf("%q and %q share id %d", r, o, id)
		}
		seen[id] = r
	}
}

// TestKokoroTokens checks the ids of real espeak-ng phonemizations against
// vectors checked by hand with Kokoro's config.json vocab.
func TestKokoroTokens(t *testing.T) {
	// Raw espeak en-us IPA, no misaki table: as the vector.
	if got, want := kokoroTokens("həlˈoʊ wˈɜːld."), []int64{50, 83, 54, 156, 57, 135, 16, 65, 156, 87, 158, 54, 46, 4}; !slices.Equal(got, want) {
		t.Errorf("raw IPA: got %v, want %v", got, want)
	}
	tp := phonemizer(t).(TiePhonemizer)
	tests := []struct {
		voice, text, phonemes string
		ids                   []int64
	}{
		{"af_x", "Hello world.", "həlˈO wˈɜɹld.", []int64{50, 83, 54, 156, 31, 16, 65, 156, 87, 123, 54, 46, 4}},
		{"bf_x", "Hello world.", "həlˈQ wˈɜːld.", []int64{50, 83, 54, 156, 33, 16, 65, 156, 87, 158, 54, 46, 4}},
		{"af_x", "My house, boy!", "mI hˈWs, bˈY!", []int64{55, 25, 16, 50, 156, 39, 61, 3, 16, 44, 156, 41, 5}},
		{"af_x", "Judge the church.", "ʤˈʌʤ ðə ʧˈɜɹʧ.", []int64{82, 156, 138, 82, 16, 81, 83, 16, 133, 156, 87, 123, 133, 4}},
		{"af_x", "Say okay?", "sˈA OkˈA?", []int64{61, 156, 24, 16, 31, 53, 156, 24, 6}},
		{"af_x", "Butter.", "bˈʌTəɹ.", []int64{44, 156, 138, 36, 83, 123, 4}},
		{"es_x", "Muy bien.", "mˈuj βjˈen.", []int64{55, 156, 63, 52, 16, 75, 52, 156, 47, 56, 4}},
		{"it_x", "Ciao.", "ʧˈao.", []int64{133, 156, 43, 57, 4}},
		{"pf_x", "Tudo bem?", "tˈudʊ bˈAŋ?", []int64{62, 156, 63, 46, 135, 16, 44, 156, 24, 112, 6}},
	}
	for _, tt := range tests {
		if tt.voice == "es_x" {
			tt.voice = "ef_x"
		} else if tt.voice == "it_x" {
			tt.voice = "if_x"
		}
		lang, err := kokoroLanguageOf(tt.voice)
		if err != nil {
			t.Fatal(err)
		}
		clauses, err := tp.PhonemizeTied(context.Background(), lang.espeak, tt.text)
		if err != nil {
			t.Fatal(err)
		}
		ph := lang.kokoroPhonemes(strings.Join(clauses, " "))
		if ph != tt.phonemes {
			t.Errorf("%s %q: phonemes %q, want %q", tt.voice, tt.text, ph, tt.phonemes)
		}
		if got := kokoroTokens(ph); !slices.Equal(got, tt.ids) {
			t.Errorf("%s %q: ids %v, want %v", tt.voice, tt.text, got, tt.ids)
		}
	}
}

// TestMisakiTables covers each entry of the tables, from tied espeak IPA.
func TestMisakiTables(t *testing.T) {
	us, gb, fr := kokoroLanguages['a'], kokoroLanguages['b'], kokoroLanguages['f']
	tests := []struct {
		lang     kokoroLanguage
		ipa, out string
	}{
		{us, "bˈʌʔˌn̩", "bˈʌtn"},
		{us, "bˈʌʔn̩", "bˈʌtn"},
		{us, "bˈʌʔn", "bˈʌtn"},
		{us, "ʔ", "t"},
		{us, "a^ɪ", "I"},
		{us, "a^ʊ", "W"},
		{us, "d^ʒ", "ʤ"},
		{us, "e^ɪ", "A"},
		{us, "e", "A"},
		{us, "t^ʃ", "ʧ"},
		{us, "ɔ^ɪ", "Y"},
		{us, "ə^l", "ᵊl"},
		{us, "ʲo^ʊ", "jO"},
		{us, "ʲə", "jə"},
		{us, "tʲ", "t"},
		{us, "ɚ", "əɹ"},
		{us, "r", "ɹ"},
		{us, "x", "k"},
		{us, "ç", "k"},
		{us, "ɐ", "ə"},
		{us, "ɬ", "l"},
		{us, "ɑ̃", "ɑ"},
		{us, "sˈɪɾn̩", "sˈɪTᵊn"}, // syllabic consonant, and the US flap
		{us, "o^ʊ", "O"},
		{us, "ɜːɹ", "ɜɹ"},
		{us, "ɜː", "ɜɹ"},
		{us, "ɪə", "iə"},
		{us, "ɑː", "ɑ"},
		{us, "ɾ", "T"},
		{us, "o", "ɔ"},
		{gb, "e^ə", "ɛː"},
		{gb, "iə", "ɪə"},
		{gb, "ə^ʊ", "Q"},
		{gb, "ɜː ɾ o", "ɜː ɾ ɔ"},
		{fr, "a^ɪ a^ʊ d^z d^ʒ e^ɪ o^ʊ s^s t^s t^ʃ ɔ^ɪ ə^ʊ", "I W ʣ ʤ A O S ʦ ʧ Y Q"},
		{fr, "ʒə- e o r", "ʒə e o r"},
	}
	for _, tt := range tests {
		if got := tt.lang.kokoroPhonemes(tt.ipa); got != tt.out {
			t.Errorf("%s: %q -> %q, want %q", tt.lang.name, tt.ipa, got, tt.out)
		}
	}
}

func TestKokoroLanguages(t *testing.T) {
	for _, v := range []string{"jf_alpha", "zm_yunxi", "xx_nobody", ""} {
		if _, err := kokoroLanguageOf(v); !errors.Is(err, ErrUnsupportedLanguage) {
			t.Errorf("%q: got %v, want ErrUnsupportedLanguage", v, err)
		}
	}
	_, err := kokoroLanguageOf("jf_alpha")
	if !strings.Contains(err.Error(), "Japanese") {
		t.Errorf("error %q does not name the language", err)
	}
}

func TestSplitTokens(t *testing.T) {
	word := func(n int) []int64 { return slices.Repeat([]int64{kokoroVocab['a']}, n) }
	cat := func(parts ...[]int64) []int64 { return slices.Concat(parts...) }
	sp, comma, dot, semi := []int64{16}, []int64{3}, []int64{4}, []int64{1}
	tests := []struct {
		name string
		in   []int64
		lens []int
	}{
		{"fits", word(510), []int{510}},
		{"empty", nil, nil},
		{"period before comma", cat(word(100), dot, sp, word(200), comma, sp, word(300)), []int{101, 200 + 1 + 1 + 300}},
		{"colon class before comma", cat(word(300), semi, sp, word(100), comma, sp, word(300)), []int{301, 100 + 1 + 1 + 300}},
		{"comma", cat(word(400), comma, sp, word(400)), []int{401, 400}},
		{"space", cat(word(400), sp, word(400)), []int{400, 400}},
		{"one long word", word(1200), []int{510, 510, 180}},
	}
	for _, tt := range tests {
		var lens []int
		for _, c := range splitTokens(tt.in) {
			lens = append(lens, len(c))
			if c[0] == 16 || c[len(c)-1] == 16 {
				t.Errorf("%s: chunk with an edge space", tt.name)
			}
		}
		if !slices.Equal(lens, tt.lens) {
			t.Errorf("%s: chunk lengths %v, want %v", tt.name, lens, tt.lens)
		}
	}
}

func TestParseBlend(t *testing.T) {
	tests := []struct {
		in   string
		want []blendTerm
		bad  bool
	}{
		{"af_bella(2)+af_sky(1)", []blendTerm{{"af_bella", 2}, {"af_sky", 1}}, false},
		{"af_bella+af_sky", []blendTerm{{"af_bella", 1}, {"af_sky", 1}}, false},
		{"af_bella(0.5)-am_adam(.25)", []blendTerm{{"af_bella", 0.5}, {"am_adam", -0.25}}, false},
		{"af_bella(0)+af_sky", nil, true},
		{"af_bella(x)", nil, true},
		{"af_bella++af_sky", nil, true},
		{"(2)", nil, true},
	}
	for _, tt := range tests {
		got, err := parseBlend(tt.in)
		if tt.bad != (err != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("parseBlend(%q) = %v, %v", tt.in, got, err)
		}
	}
	a, b := pack{1, 2}, pack{4, 8}
	if got := blend([]pack{a, b}, []float64{2, 1}); !slices.Equal(got, pack{2, 4}) {
		t.Errorf("2a+b = %v", got)
	}
	if got := blend([]pack{a, b}, []float64{1, -1}); !slices.Equal(got, pack{-1.5, -3}) {
		t.Errorf("a-b = %v", got)
	}
}

// testPack returns a pack whose row r is (lo(r) × 128, hi(r) × 128).
func testPack(lo, hi func(r int) float32) pack {
	p := make(pack, packRows*styleDim)
	for r := range packRows {
		for c := range styleDim {
			if c < 128 {
				p[r*styleDim+c] = lo(r)
			} else {
				p[r*styleDim+c] = hi(r)
			}
		}
	}
	return p
}

func packData(p pack) []byte {
	b := make([]byte, 4*len(p))
	for i, v := range p {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// writeNPZ writes packs as NumPy writes an .npz (stored .npy entries).
func writeNPZ(t *testing.T, path string, packs map[string]pack) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range packs {
			if !yield(k) {
				return
			}
		}
	}) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		header := "{'descr': '<f4', 'fortran_order': False, 'shape': (510, 1, 256), }"
		header += strings.Repeat(" ", 63-(10+len(header))%64) + "\n"
		pre := []byte("\x93NUMPY\x01\x00\x00\x00")
		binary.LittleEndian.PutUint16(pre[8:], uint16(len(header)))
		w.Write(pre)
		w.Write([]byte(header))
		w.Write(packData(packs[name]))
	}
	if err := errors.Join(zw.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestReadPacks reads the three layouts of the fixtures, and one pack
// written in each layout, and refuses broken files with errors naming the
// voice.
func TestReadPacks(t *testing.T) {
	for _, tt := range []struct {
		path  string
		names []string
		want  []string
	}{
		{kokoroDir + "/kokoro-v1.0.voices.bin", nil, []string{"af_heart", "bf_emma", "ff_siwis", "jf_alpha"}},
		{kokoroDir + "/kokoro-community.voices", nil, []string{"am_adam", "ef_dora"}},
		{kokoroDir + "/kokoro-zh.voices.bin", []string{"zf_xiaobei", "af_maple"}, []string{"af_maple", "zf_xiaobei"}},
	} {
		packs, err := readPacks(tt.path, tt.names)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		var got []string
		for name, p := range packs {
			got = append(got, name)
			if len(p) != packRows*styleDim {
				t.Errorf("%s %s: %d floats", tt.path, name, len(p))
			}
		}
		if slices.Sort(got); !slices.Equal(got, tt.want) {
			t.Errorf("%s: packs %v, want %v", tt.path, got, tt.want)
		}
	}

	dir := t.TempDir()
	p := testPack(func(r int) float32 { return float32(r) / 7 }, func(r int) float32 { return -float32(r) })
	other := testPack(func(int) float32 { return 1 }, func(int) float32 { return 2 })
	writeNPZ(t, filepath.Join(dir, "a.npz"), map[string]pack{"af_x": p, "af_y": other})
	os.Mkdir(filepath.Join(dir, "raw"), 0o755)
	os.WriteFile(filepath.Join(dir, "raw", "af_x.bin"), packData(p), 0o644)
	os.WriteFile(filepath.Join(dir, "raw", "readme.txt"), []byte("not a pack"), 0o644)
	os.WriteFile(filepath.Join(dir, "cat.bin"), append(packData(other), packData(p)...), 0o644)
	for _, src := range []struct {
		path  string
		names []string
	}{{"a.npz", nil}, {"raw", nil}, {"cat.bin", []string{"af_y", "af_x"}}} {
		packs, err := readPacks(filepath.Join(dir, src.path), src.names)
		if err != nil {
			t.Fatalf("%s: %v", src.path, err)
		}
		if !slices.Equal(packs["af_x"], p) {
			t.Errorf("%s: af_x differs from what was written", src.path)
		}
		if got := packs["af_x"].row(3)[0]; got != float32(3)/7 {
			t.Errorf("%s: row 3 starts with %g", src.path, got)
		}
	}

	os.WriteFile(filepath.Join(dir, "raw", "af_short.bin"), make([]byte, 1000), 0o644)
	writeNPZ(t, filepath.Join(dir, "bad.npz"), map[string]pack{"af_bad": p[:styleDim]})
	for _, bad := range []struct {
		path, names, want string
	}{
		{"raw", "", "af_short"},
		{"bad.npz", "", "af_bad"},
		{"cat.bin", "", "speaker_names"},
		{"cat.bin", "one", "1 names"},
		{"raw/readme.txt", "x", "whole number"},
	} {
		var names []string
		if bad.names != "" {
			names = strings.Split(bad.names, ",")
		}
		_, err := readPacks(filepath.Join(dir, bad.path), names)
		if !errors.Is(err, ErrBadPack) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: got %v, want ErrBadPack naming %q", bad.path, err, bad.want)
		}
	}
}

// kokoroFrames is what the fixture models compute: frames per token for a
// style row and speed.
func kokoroFrames(row []float32, speed float64) int {
	var sum float32
	for _, v := range row[128:] {
		sum += v
	}
	d := math.RoundToEven(4 * (1 + float64(sum/128)) / speed)
	return max(1, int(d))
}

// tokenCount returns the number of tokens (without pads) the engine
// feeds for text spoken by a voice.
func tokenCount(t *testing.T, voice, text string) int {
	lang, err := kokoroLanguageOf(voice)
	if err != nil {
		t.Fatal(err)
	}
	clauses, err := phonemizer(t).(TiePhonemizer).PhonemizeTied(context.Background(), lang.espeak, text)
	if err != nil {
		t.Fatal(err)
	}
	return len(kokoroTokens(lang.kokoroPhonemes(strings.Join(clauses, " "))))
}

// TestKokoroFlavours loads the fixture directory: the three export
// flavours, the three pack layouts. Each supported pack is listed and
// speaks at 24 kHz, with (n + 2 pads) × frames × 600 samples, frames
// following the pack's row for n and the speed (rounded to a whole number
// for the int32-speed export).
func TestKokoroFlavours(t *testing.T) {
	e := load(t, Options{VoicesDir: kokoroDir})
	list, err := e.Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range list {
		names = append(names, v.Name)
	}
	want := []string{"af_heart", "af_maple", "am_adam", "bf_emma", "ef_dora", "ff_siwis"}
	if !slices.Equal(names, want) {
		t.Fatalf("voices %v, want %v (jf_alpha and zf_xiaobei unlisted)", names, want)
	}
	const text = "Hello there."
	for _, tt := range []struct {
		voice, model string
		speed        float64
	}{
		{"af_heart", "kokoro-v1.0", 1}, {"af_heart", "kokoro-v1.0", 2}, {"af_heart", "kokoro-v1.0", 0.5},
		{"ef_dora", "kokoro-community", 1}, {"ef_dora", "kokoro-community", 1.5},
		{"af_maple", "kokoro-zh", 1}, {"af_maple", "kokoro-zh", 2}, {"af_maple", "kokoro-zh", 1.4},
	} {
		audio, rate, chunks := collect(t, e, engine.Request{Voice: tt.voice, Text: text, Prosody: engine.Prosody{Rate: tt.speed}})
		n := tokenCount(t, tt.voice, text)
		speed := tt.speed
		if tt.model == "kokoro-zh" {
			speed = max(1, math.Round(speed))
		}
		frames := kokoroFrames(e.models[tt.model].kokoro.packs[tt.voice].row(n), speed)
		if rate != KokoroSampleRate || chunks != 1 || len(audio) != (n+2)*frames*600 {
			t.Errorf("%s at %g: %d samples at %d Hz in %d chunks, want %d = (%d+2) × %d × 600 at 24000 in 1",
				tt.voice, tt.speed, len(audio), rate, chunks, (n+2)*frames*600, n, frames)
		}
	}
	for _, v := range []string{"jf_alpha", "zf_xiaobei", "jf_alpha(1)+af_heart(1)"} {
		err := e.Synthesize(context.Background(), engine.Request{Voice: v, Text: "Hi."}, func(engine.Chunk) error { return nil })
		if !errors.Is(err, engine.ErrUnknownVoice) || !errors.Is(err, ErrUnsupportedLanguage) {
			t.Errorf("%s: got %v, want unknown voice (unsupported language)", v, err)
		}
	}
	if t.Failed() {
		return
	}
	enginetest.Run(t, e, "af_heart")
}

// kokoroTestDir makes a voices directory with the community model and the
// given packs.
func kokoroTestDir(t *testing.T, packs map[string]pack) string {
	dir := t.TempDir()
	model, err := os.ReadFile(filepath.Join(kokoroDir, "kokoro-community.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "k.onnx"), model, 0o644)
	os.Mkdir(filepath.Join(dir, "k.voices"), 0o755)
	for name, p := range packs {
		if err := os.WriteFile(filepath.Join(dir, "k.voices", name+".bin"), packData(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestKokoroStyleRow checks that a sentence of n tokens is spoken with row
// min(n, 509): row r of the pack gives the amplitude r/2000, which the
// audio's peak reads back. A sentence of more than 510 tokens is cut into
// chunks, each with the row of its own length; the model itself refuses
// longer input.
func TestKokoroStyleRow(t *testing.T) {
	rowPack := testPack(func(r int) float32 { return float32(r) / 1000 }, func(int) float32 { return 0 })
	e := load(t, Options{VoicesDir: kokoroTestDir(t, map[string]pack{"af_rows": rowPack})})
	peakRow := func(x []float32) int {
		var peak float64
		for _, v := range x {
			peak = max(peak, math.Abs(float64(v)))
		}
		return int(math.Round(peak * 2000))
	}
	for _, text := range []string{"Hi.", "Hello world.", "The quick brown fox jumps over the lazy dog."} {
		audio, _, _ := collect(t, e, engine.Request{Voice: "af_rows", Text: text})
		if n := tokenCount(t, "af_rows", text); peakRow(audio) != n {
			t.Errorf("%q: row %d, want %d (its token count)", text, peakRow(audio), n)
		}
	}
	// One sentence, no punctuation, about 1000 tokens.
	long := strings.TrimSpace(strings.Repeat("banana ", 130)) + "."
	var rows []int
	err := e.Synthesize(context.Background(), engine.Request{Voice: "af_rows", Text: long}, func(c engine.Chunk) error {
		rows = append(rows, peakRow(c.Samples))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	total, n := 0, tokenCount(t, "af_rows", long)
	for _, r := range rows {
		total += r
		if r > KokoroMaxTokens {
			t.Errorf("a chunk of %d tokens", r)
		}
	}
	// Spaces between the pieces cut are dropped.
	if len(rows) < 2 || total > n || total < n-len(rows) {
		t.Errorf("long sentence of %d tokens: chunks of %v tokens", n, rows)
	}
	m, s := session(t, e, "k")
	if _, _, err := m.runKokoro(context.Background(), s, make([]int64, KokoroMaxTokens), rowPack.row(509), 1); err != nil {
		t.Errorf("510 tokens: %v", err)
	}
	if _, _, err := m.runKokoro(context.Background(), s, make([]int64, KokoroMaxTokens+1), rowPack.row(509), 1); err == nil {
		t.Error("511 tokens: the model took them (want its position table to refuse)")
	}
}

// TestKokoroBlend: a blend differs from both parents and equals the pack
// of their weighted mean; it is resolved, not listed, and a catalog
// accepts it through engine.VoiceResolver.
func TestKokoroBlend(t *testing.T) {
	a := testPack(func(r int) float32 { return 0.2 }, func(r int) float32 { return 0.1 })
	b := testPack(func(r int) float32 { return 0.5 }, func(r int) float32 { return 1.5 })
	mean := blend([]pack{a, b}, []float64{2, 1})
	e := load(t, Options{VoicesDir: kokoroTestDir(t, map[string]pack{"af_a": a, "af_b": b, "af_mean": mean})})
	say := func(voice string) []float32 {
		audio, _, _ := collect(t, e, engine.Request{Voice: voice, Text: "Hello there, blend."})
		return audio
	}
	mixed := say("af_a(2)+af_b(1)")
	if slices.Equal(mixed, say("af_a")) || slices.Equal(mixed, say("af_b")) {
		t.Error("the blend sounds like one of its parents")
	}
	if !slices.Equal(mixed, say("af_mean")) {
		t.Error("the blend differs from the averaged pack")
	}
	if slices.Equal(say("af_a-af_b"), mixed) {
		t.Error("subtraction ignored")
	}

	cat := new(voices.Catalog)
	if err := cat.AddEngine(context.Background(), "onnx", e, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, id := range cat.List("") {
		if strings.ContainsAny(id.ID, "+()") {
			t.Errorf("blend %s listed", id.ID)
		}
	}
	v, err := cat.Lookup("", "af_a(2)+af_b(1)")
	if err != nil || v.Engine != "onnx" || v.EngineVoice != "af_a(2)+af_b(1)" || v.Language != "en-US" {
		t.Errorf("catalog lookup of a blend: %+v, %v", v, err)
	}
	for _, bad := range []string{"af_a(2)+af_nobody", "af_a(0)", "af_a+"} {
		if _, err := cat.Lookup("", bad); !errors.Is(err, engine.ErrUnknownVoice) {
			t.Errorf("%s: got %v, want unknown voice", bad, err)
		}
		if _, err := e.ResolveVoice(bad); !errors.Is(err, engine.ErrUnknownVoice) {
			t.Errorf("ResolveVoice(%s): got %v, want unknown voice", bad, err)
		}
	}
	// An id with a hyphen but no pack in it is not a blend, so another
	// engine's voice or a language match may take it.
	if _, err := e.ResolveVoice("en-GB"); !errors.Is(err, engine.ErrUnknownVoice) || errors.Is(err, engine.ErrUnsupportedVoice) {
		t.Errorf(`ResolveVoice("en-GB"): got %v, want unknown, not unsupported`, err)
	}
	if err := cat.Add(voices.Voice{ID: "en-gb", Engine: "espeak", EngineVoice: "en-gb"}); err != nil {
		t.Fatal(err)
	}
	if v, err := cat.Lookup("", "en-GB"); err != nil || v.ID != "en-gb" {
		t.Errorf(`Lookup("en-GB") beside Kokoro: %+v, %v`, v, err)
	}
}

// TestKokoroLayoutErrors: a model that is not a Kokoro export, or packs
// that cannot be read, fail a Strict Load with errors naming the model or
// the voice.
func TestKokoroLayoutErrors(t *testing.T) {
	dir := t.TempDir()
	tone, err := os.ReadFile(filepath.Join(voicesDir, toneLow+".onnx"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notkokoro.onnx"), tone, 0o644)
	os.WriteFile(filepath.Join(dir, "notkokoro.voices.bin"), packData(testPack(func(int) float32 { return 0 }, func(int) float32 { return 0 })), 0o644)
	_, err = Load(context.Background(), Options{LibraryPath: testLibrary(t), Phonemizer: phonemizer(t), VoicesDir: dir, Strict: true})
	if err == nil || !strings.Contains(err.Error(), "not a Kokoro export") || !strings.Contains(err.Error(), "notkokoro") {
		t.Errorf("tone model as Kokoro: got %v", err)
	}
	dir = kokoroTestDir(t, nil)
	os.WriteFile(filepath.Join(dir, "k.voices", "af_bad.bin"), []byte("short"), 0o644)
	_, err = Load(context.Background(), Options{LibraryPath: testLibrary(t), Phonemizer: phonemizer(t), VoicesDir: dir, Strict: true})
	if !errors.Is(err, ErrBadPack) || !strings.Contains(err.Error(), "af_bad") {
		t.Errorf("bad pack: got %v", err)
	}
	_, err = Load(context.Background(), Options{LibraryPath: testLibrary(t), Phonemizer: plainPhonemizer{}, VoicesDir: kokoroDir, Strict: true})
	if err == nil || !strings.Contains(err.Error(), "tie marks") {
		t.Errorf("phonemizer without ties: got %v", err)
	}
}

// plainPhonemizer has no tie marks.
type plainPhonemizer struct{}

func (plainPhonemizer) Phonemize(ctx context.Context, voice, text string) ([]string, error) {
	return nil, fmt.Errorf("not used")
}
