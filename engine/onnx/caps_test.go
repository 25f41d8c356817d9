package onnx

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// writeZeroNPZ writes an .npz of zero packs named names, deflated, as a
// small file that would expand to 510 KiB a pack. Every member holds the
// same bytes, deflated once.
func writeZeroNPZ(t *testing.T, path string, names []string) {
	t.Helper()
	header := "{'descr': '<f4', 'fortran_order': False, 'shape': (510, 1, 256), }"
	header += strings.Repeat(" ", 63-(10+len(header))%64) + "\n"
	pre := []byte("\x93NUMPY\x01\x00\x00\x00")
	binary.LittleEndian.PutUint16(pre[8:], uint16(len(header)))
	member := slices.Concat(pre, []byte(header), make([]byte, packBytes))
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.DefaultCompression)
	fw.Write(member)
	fw.Close()

	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range names {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: name + ".npy", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(member),
			CompressedSize64: uint64(deflated.Len()), UncompressedSize64: uint64(len(member))})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(deflated.Bytes())
	}
	if err := errors.Join(zw.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestTooManyPacksLeftOut: a Kokoro pack file of 1,500 packs (a 1 MB
// .npz that would expand to 783 MB) is refused whole before any pack is
// read, with a log line that says why; the other voices serve.
func TestTooManyPacksLeftOut(t *testing.T) {
	dir := t.TempDir()
	copyVoice(t, dir, toneLow, "good")
	kokoro, err := os.ReadFile(filepath.Join(kokoroDir, "kokoro-v1.0.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "kokoro-big.onnx"), kokoro, 0o644)
	names := make([]string, 1500)
	for i := range names {
		names[i] = fmt.Sprintf("af_%d", i)
	}
	writeZeroNPZ(t, filepath.Join(dir, "kokoro-big.voices.bin"), names)
	if _, err := readPacks(filepath.Join(dir, "kokoro-big.voices.bin"), nil); err == nil || !strings.Contains(err.Error(), "1500 voice packs, more than 256") {
		t.Fatalf("readPacks: %v", err)
	}

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var log bytes.Buffer
	e, err := Load(context.Background(), Options{LibraryPath: testLibrary(t), Phonemizer: phonemizer(t), VoicesDir: dir,
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	defer e.Close()
	runtime.ReadMemStats(&after)
	list, _ := e.Voices(context.Background())
	if len(list) != 1 || list[0].Name != "good" {
		t.Errorf("voices %+v, want good alone", list)
	}
	if !strings.Contains(log.String(), "kokoro-big") || !strings.Contains(log.String(), "more than 256") {
		t.Errorf("the log does not say why kokoro-big was left out:\n%s", log.String())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("loading allocated %d MB", alloc>>20)
	}
}

// TestSpeakerCap: a Piper config claiming more speakers than MaxSpeakers
// (and naming none) is refused, so it cannot list millions of voices.
func TestSpeakerCap(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(voicesDir, toneLow+".onnx.json"))
	if err != nil {
		t.Fatal(err)
	}
	huge := bytes.Replace(data, []byte(`"num_speakers": 1`), []byte(`"num_speakers": 3000000`), 1)
	if bytes.Equal(huge, data) {
		t.Fatal("the fixture has no num_speakers 1")
	}
	if _, err := ParseConfig(huge); !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), "more than 2048") {
		t.Errorf("ParseConfig with 3,000,000 speakers: %v", err)
	}
	ok := bytes.Replace(data, []byte(`"num_speakers": 1`), []byte(`"num_speakers": 904`), 1)
	if c, err := ParseConfig(ok); err != nil || len(c.Speakers) != 904 {
		t.Errorf("ParseConfig with 904 speakers: %v", err)
	}
}
