// Package audiotest judges audio in tests with real tools: ffprobe and
// ffmpeg to inspect and decode, pocketsphinx to hear what was said.
package audiotest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Require skips the test when a tool is missing, unless running in CI
// (CI set), where a missing tool is a failure: CI installs them all.
func Require(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed (.ci/deps.sh test installs it)", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
}

// Probe is what ffprobe reads of a file's first audio stream.
type Probe struct {
	Codec      string
	SampleRate int
	Channels   int
	SampleFmt  string
	Duration   float64 // seconds
}

// ProbeFile runs ffprobe on path. A file ending in ".pcm" is read as raw
// 24 kHz mono s16le, and its duration is computed from its size (raw
// audio has no container to state it).
func ProbeFile(t testing.TB, path string) Probe {
	t.Helper()
	Require(t, "ffprobe")
	args := []string{"-v", "error", "-select_streams", "a:0", "-show_entries",
		"stream=codec_name,sample_rate,channels,sample_fmt:format=duration", "-of", "default=nw=1"}
	raw := strings.HasSuffix(path, ".pcm")
	if raw {
		args = append(args, "-f", "s16le", "-ar", "24000", "-ac", "1")
	}
	out, err := exec.Command("ffprobe", append(args, path)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ffprobe %s: %v\n%s", path, err, out)
	}
	var p Probe
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "codec_name":
			p.Codec = v
		case "sample_rate":
			p.SampleRate, _ = strconv.Atoi(v)
		case "channels":
			p.Channels, _ = strconv.Atoi(v)
		case "sample_fmt":
			p.SampleFmt = v
		case "duration":
			p.Duration, _ = strconv.ParseFloat(v, 64)
		}
	}
	if raw {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		p.Duration = float64(st.Size()) / 2 / 24000
	}
	return p
}

// ProbeBytes writes audio to a temporary file with the extension ext and
// probes it.
func ProbeBytes(t testing.TB, audio []byte, ext string) Probe {
	t.Helper()
	return ProbeFile(t, WriteTemp(t, audio, ext))
}

// WriteTemp writes data to a new file in t.TempDir() and returns its path.
func WriteTemp(t testing.TB, data []byte, ext string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audio."+ext)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Decode decodes any file ffmpeg reads into mono 16-bit samples at rate.
func Decode(t testing.TB, path string, rate int) []int16 {
	t.Helper()
	return DecodeAll(t, rate, path)[0]
}

// DecodeAll decodes files as Decode does, in one ffmpeg run: its start
// (about 0.3 CPU-s) costs more than decoding a minute of speech.
func DecodeAll(t testing.TB, rate int, paths ...string) [][]int16 {
	t.Helper()
	inputs := make([][]string, len(paths))
	for i, path := range paths {
		inputs[i] = []string{"-i", path}
	}
	out, _ := DecodeInputs(t, rate, inputs...)
	return out
}

// DecodeInputs runs ffmpeg once over inputs, each its input options
// ending in "-i path", and returns each one's first audio stream as mono
// 16-bit samples at rate (0: the stream's own), with what ffmpeg reported
// at level error though it decoded them (a decoder's complaints). A failed
// run fails the test, naming the input by its index as "stream #2:0".
func DecodeInputs(t testing.TB, rate int, inputs ...[]string) ([][]int16, string) {
	t.Helper()
	Require(t, "ffmpeg")
	args := []string{"-v", "error"}
	for _, in := range inputs {
		args = append(args, in...)
	}
	dir := t.TempDir()
	for i := range inputs {
		args = append(args, "-map", strconv.Itoa(i)+":a:0", "-f", "s16le", "-ac", "1")
		if rate != 0 {
			args = append(args, "-ar", strconv.Itoa(rate))
		}
		args = append(args, filepath.Join(dir, strconv.Itoa(i)+".raw"))
	}
	var stderr bytes.Buffer
	cmd := exec.Command("ffmpeg", args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ffmpeg decode %v: %v\n%s", inputs, err, stderr.String())
	}
	out := make([][]int16, len(inputs))
	for i := range inputs {
		b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)+".raw"))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = make([]int16, len(b)/2)
		for k := range out[i] {
			out[i][k] = int16(binary.LittleEndian.Uint16(b[2*k:]))
		}
	}
	return out, stderr.String()
}

// Recognize asks pocketsphinx which of the candidate sentences the audio
// file at path says. Free transcription of synthetic speech is poor, but
// with a grammar of candidates the recognizer reliably picks the spoken
// one. Candidates are lower-case words without punctuation. The result is
// what pocketsphinx heard, "" for nothing.
func Recognize(t testing.TB, path string, candidates []string) string {
	t.Helper()
	return recognize(t, path, candidates, func(model string) []byte {
		return dictionaryOf(t, model+"/cmudict-en-us.dict", candidates)
	}, nil)
}

// RecognizePronounced is Recognize with the words' pronunciations given,
// in the phones of the English model (CMU's ARPAbet: "HH EH R"): words of
// other languages, pronounced as a speaker of them would, are heard by
// the phones closest to theirs. Candidates' words must be keys of
// pronounce, of ASCII letters and digits. No silence is put between
// words: with it, the recognizer often ended such speech outside the
// grammar and heard nothing.
func RecognizePronounced(t testing.TB, path string, candidates []string, pronounce map[string]string) string {
	t.Helper()
	return recognize(t, path, candidates, func(string) []byte {
		var b strings.Builder
		for w, phones := range pronounce {
			fmt.Fprintf(&b, "%s %s\n", w, phones)
		}
		return []byte(b.String())
	}, []string{"-fsgusefiller", "no"})
}

func recognize(t testing.TB, path string, candidates []string, dictionary func(model string) []byte, options []string) string {
	t.Helper()
	Require(t, "pocketsphinx_continuous", "ffmpeg")
	const model = "/usr/share/pocketsphinx/model/en-us"
	dir := t.TempDir()
	gram := filepath.Join(dir, "g.gram")
	src := fmt.Sprintf("#JSGF V1.0;\ngrammar candidates;\npublic <s> = %s;\n", strings.Join(candidates, " | "))
	if err := os.WriteFile(gram, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	wav16 := filepath.Join(dir, "in16k.wav")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", wav16).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg to 16 kHz: %v\n%s", err, out)
	}
	dict := filepath.Join(dir, "words.dict")
	if err := os.WriteFile(dict, dictionary(model), 0o644); err != nil {
		t.Fatal(err)
	}
	// The beams are wider than pocketsphinx's defaults (1e-48, 1e-48,
	// 7e-29): with those, espeak-ng's own speech at 140–150 words a
	// minute (its rate slowed by 0.85, as emphasis does) lost every path
	// through the grammar and was heard as nothing, at random from one
	// call to the next. Wider beams cost no measurable time and still
	// hear reversed speech as a wrong sentence and another sentence as
	// nothing.
	args := append([]string{"-hmm", model + "/en-us", "-dict", dict, "-jsgf", gram, "-infile", wav16, "-logfn", os.DevNull,
		"-beam", "1e-80", "-wbeam", "1e-60", "-pbeam", "1e-80"}, options...)
	out, err := exec.Command("pocketsphinx_continuous", args...).Output()
	if err != nil {
		t.Fatalf("pocketsphinx: %v", err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// dictionaryOf returns the entries of the pronouncing dictionary at path
// for the words of sentences ("word" and its variants "word(2)"…): all a
// grammar of those sentences looks up, and the recognizer loads it in a
// fraction of the time the whole dictionary takes.
func dictionaryOf(t testing.TB, path string, sentences []string) []byte {
	t.Helper()
	all, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	for _, s := range sentences {
		for _, w := range strings.Fields(s) {
			words[w] = true
		}
	}
	var out []byte
	for line := range strings.Lines(string(all)) {
		word, _, _ := strings.Cut(line, " ")
		if base, _, _ := strings.Cut(word, "("); words[base] {
			out = append(out, line...)
		}
	}
	return out
}

// Candidates is a set of distinct English sentences for Recognize.
var Candidates = []string{
	"the quick brown fox jumps over the lazy dog",
	"she sells sea shells by the sea shore",
	"please call me back tomorrow morning",
	"the weather is cold and rainy today",
	"we need more time to finish the work",
	"open the door and turn on the light",
}
