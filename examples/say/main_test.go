package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSayMatchesEspeakCommand checks the WAV that say writes against
// ffprobe and against the espeak-ng command's own rendering.
func TestSayMatchesEspeakCommand(t *testing.T) {
	for _, tool := range []string{"ffprobe", "espeak-ng"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
	}
	dir := t.TempDir()
	for _, tc := range []struct{ voice, text string }{
		{"en-us", "Hello world. This is a test of the voxkit speech toolkit."},
		{"en-gb", "The rainbow is a division of white light into many beautiful colours. These take the shape of a long round arch."},
		{"de", "Guten Morgen. Wie geht es dir heute?"},
	} {
		if testing.Short() && tc.voice != "en-us" {
			continue // make test says all three (TestSayPiperVoice speaks another engine under -short)
		}
		ours := filepath.Join(dir, tc.voice+".wav")
		var stderr bytes.Buffer
		if err := run([]string{"-voice", tc.voice, "-format", "wav", "-o", ours, tc.text}, nil, nil, &stderr); err != nil {
			t.Fatalf("say: %v %s", err, stderr.String())
		}
		p := probe(t, ours)
		if p.SampleRate != "24000" || p.Channels != 1 || p.SampleFmt != "s16" {
			t.Errorf("%s: ffprobe reads %+v, want 24000 Hz mono s16", tc.voice, p)
		}
		ref := filepath.Join(dir, tc.voice+"-ref.wav")
		if out, err := exec.Command("espeak-ng", "-v", tc.voice, "-w", ref, tc.text).CombinedOutput(); err != nil {
			t.Fatalf("espeak-ng: %v %s", err, out)
		}
		got, want := p.seconds(t), probe(t, ref).seconds(t)
		if got < 0.9*want || got > 1.1*want {
			t.Errorf("%s: %.3f s of audio, the espeak-ng command gives %.3f s", tc.voice, got, want)
		}
	}
}

func TestSayList(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-list"}, nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"en-us ", "en-gb ", "de "} {
		if !strings.Contains(out.String(), "\n"+v) && !strings.HasPrefix(out.String(), v) {
			t.Errorf("-list lacks %q", v)
		}
	}
}

func TestSayBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-voice", "nope", "-o", filepath.Join(dir, "a.wav"), "hi"},
		{"-format", "aiff", "-o", filepath.Join(dir, "b.wav"), "hi"},
		{"-speed", "9", "-o", filepath.Join(dir, "c.wav"), "hi"},
		{"-o", filepath.Join(dir, "d.wav"), "   "},
	} {
		var stderr bytes.Buffer
		if err := run(args, strings.NewReader(""), nil, &stderr); err == nil {
			t.Errorf("say %q succeeded", args)
		}
	}
}

// TestSayPiperVoice speaks with a Piper voice from a voices directory
// (the onnx package's tone fixture) through ONNX Runtime.
func TestSayPiperVoice(t *testing.T) {
	if os.Getenv("ONNXRUNTIME_LIB") == "" && os.Getenv("CI") == "" {
		t.Skip("ONNXRUNTIME_LIB not set (make test sets it)")
	}
	out := filepath.Join(t.TempDir(), "piper.wav")
	var stderr bytes.Buffer
	args := []string{"-voices", "../../engine/onnx/testdata/voices", "-voice", "en_GB-tonevctk-medium:p239", "-o", out, "Hello world. Two sentences."}
	if err := run(args, nil, nil, &stderr); err != nil {
		t.Fatalf("say: %v\n%s", err, stderr.String())
	}
	p := probe(t, out)
	if p.SampleRate != "24000" || p.seconds(t) < 0.5 {
		t.Errorf("ffprobe reads %+v", p)
	}
}

// stream is what ffprobe tells of a file's audio stream.
type stream struct {
	SampleRate string `json:"sample_rate"`
	Channels   int    `json:"channels"`
	SampleFmt  string `json:"sample_fmt"`
	Duration   string `json:"duration"`
}

func (s stream) seconds(t *testing.T) float64 {
	d, err := strconv.ParseFloat(s.Duration, 64)
	if err != nil {
		t.Fatalf("duration %q: %v", s.Duration, err)
	}
	return d
}

// probe has ffprobe read the file's first stream.
func probe(t *testing.T, path string) stream {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-show_streams", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var r struct{ Streams []stream }
	if err := json.Unmarshal(out, &r); err != nil || len(r.Streams) == 0 {
		t.Fatalf("ffprobe %s: %v %s", path, err, out)
	}
	return r.Streams[0]
}

// TestSayFormatFromName: without -format, the output file's extension
// chooses it (hello.mp3 is mp3), where a wav went into any file whatever
// its name; -format still wins, and a name no codec has is wav.
func TestSayFormatFromName(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		name string
		want string // ffprobe's codec_name
	}{
		{nil, "a.mp3", "mp3"},
		{nil, "b.FLAC", "flac"},
		{nil, "c.opus", "opus"},
		{nil, "d.wav", "pcm_s16le"},
		{nil, "e.audio", "pcm_s16le"},
		{[]string{"-format", "flac"}, "f.mp3", "flac"},
	} {
		path := filepath.Join(dir, tc.name)
		args := append(append(tc.args, "-o", path), "Hello.")
		var stderr bytes.Buffer
		if err := run(args, nil, nil, &stderr); err != nil {
			t.Fatalf("say %q: %v", args, err)
		}
		out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path).Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
			t.Errorf("say %q wrote %q (%v), want %s", args, got, err, tc.want)
		}
	}
}
