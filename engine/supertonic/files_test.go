package supertonic

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadFiles: files that are not what a model needs are refused with
// an error that names them, never a panic.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := func(dims ...int64) []byte {
		var b []byte
		for _, d := range dims {
			b = binary.LittleEndian.AppendUint64(b, uint64(d))
		}
		return b
	}
	for _, tc := range []struct {
		name string
		read func() error
	}{
		{"config without ttl", func() error {
			_, err := readConfig(write("a.json", []byte(`{"ae": {"sample_rate": 44100, "base_chunk_size": 512}}`)))
			return err
		}},
		{"config with a zero", func() error {
			_, err := readConfig(write("b.json", []byte(`{"ae": {"sample_rate": 0, "base_chunk_size": 512}, "ttl": {"chunk_compress_factor": 6, "latent_dim": 24}}`)))
			return err
		}},
		{"config not JSON", func() error { _, err := readConfig(write("c.json", []byte("ae"))); return err }},
		{"indexer of 3 bytes", func() error { _, err := readIndexer(write("i.bin", []byte{1, 2, 3})); return err }},
		{"empty indexer", func() error { _, err := readIndexer(write("i.json", []byte("[]"))); return err }},
		{"voice.bin too short", func() error { _, err := readVoiceBin(write("v1.bin", header(1, 2))); return err }},
		{"voice.bin of another size", func() error {
			_, err := readVoiceBin(write("v2.bin", append(header(1, 2, 2, 1, 1, 1), make([]byte, 4)...)))
			return err
		}},
		{"voice.bin of a zero dimension", func() error { _, err := readVoiceBin(write("v3.bin", header(1, 0, 2, 1, 1, 1))); return err }},
		{"voice.bin of two counts", func() error {
			_, err := readVoiceBin(write("v4.bin", append(header(2, 1, 1, 1, 1, 1), make([]byte, 4*3)...)))
			return err
		}},
		{"style of wrong dims", func() error {
			d := filepath.Join(dir, "styles")
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, "F1.json"), []byte(`{"style_ttl": {"dims": [1, 2, 2], "data": [[[1, 2], [3]]]}, "style_dp": {"dims": [1, 1, 1], "data": [[[1]]]}}`), 0o644)
			_, err := readStyleDir(d)
			return err
		}},
		{"no model", func() error { _, err := findFiles(dir); return err }},
	} {
		err := tc.read()
		if err == nil || !strings.HasPrefix(err.Error(), "supertonic: ") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestVoiceBin: voice.bin's voices are named F1… then M1…, and their styles
// are cut as sherpa-onnx cuts them.
func TestVoiceBin(t *testing.T) {
	var b []byte
	for _, d := range []int64{4, 1, 2, 4, 1, 1} {
		b = binary.LittleEndian.AppendUint64(b, uint64(d))
	}
	for i := range 4*2 + 4 {
		b = binary.LittleEndian.AppendUint32(b, uint32(i))
	}
	p := filepath.Join(t.TempDir(), "voice.bin")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	styles, err := readVoiceBin(p)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range styles {
		names = append(names, s.name)
	}
	if strings.Join(names, " ") != "F1 F2 M1 M2" {
		t.Errorf("names %v", names)
	}
	m2 := styles[3]
	if len(m2.ttl) != 2 || floatsLE(b[48+4*6 : 48+4*8])[0] != m2.ttl[0] || floatsLE(b[48+4*11:])[0] != m2.dp[0] || m2.dpDims != [3]int64{1, 1, 1} {
		t.Errorf("M2: ttl %v, dp %v (%v)", m2.ttl, m2.dp, m2.dpDims)
	}
}

// FuzzFrontEnd: any text, valid UTF-8 or not, goes through the front end
// without a panic, into at most a few code points per byte.
func FuzzFrontEnd(f *testing.F) {
	for _, s := range []string{"Hello, world", "한국어", "e.g., a@b", "\xF0\x9F", "\xE0\xA0", "x\xC2", "😀😀", "ǅ ﷺ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := prepare(s, "de")
		if cps := codePoints(p); len(cps) > 20*len(p)+20 {
			t.Errorf("%q: %d code points", s, len(cps))
		}
	})
}
