package captions

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// timed makes words of text as an engine would time them: each word's
// letters take 60 ms, a space 20 ms more, and the pauses given (by the
// index of the word they follow) more still. Punctuation is not in the
// words.
func timed(text string, pauses map[int]time.Duration) []tts.Word {
	var words []tts.Word
	at := time.Duration(0)
	runes := []rune(text)
	for i := 0; i < len(runes); {
		if !isWordRune(runes[i]) {
			i++
			continue
		}
		j := i
		for j < len(runes) && isWordRune(runes[j]) {
			j++
		}
		d := time.Duration(j-i) * 60 * time.Millisecond
		words = append(words, tts.Word{Word: string(runes[i:j]), Start: at, End: at + d, CharStart: i, CharEnd: j})
		at += d + 20*time.Millisecond + pauses[len(words)-1]
		i = j
	}
	return words
}

func isWordRune(r rune) bool {
	return r == '\'' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func TestCues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		pauses map[int]time.Duration
		opts   Options
		want   []string // cues' texts, lines joined by "|"
	}{
		{"sentence ends", `"Wait," said Ann. It's late! Go?`, nil, Options{},
			[]string{`"Wait," said Ann.`, `It's late!`, `Go?`}},
		{"pauses", "one two three four", map[int]time.Duration{1: 600 * time.Millisecond}, Options{},
			[]string{"one two", "three four"}},
		{"short pauses do not cut", "one two three four", map[int]time.Duration{1: 300 * time.Millisecond}, Options{},
			[]string{"one two three four"}},
		{"two balanced lines", "the quick brown fox jumps over the lazy dog and runs far away from here", nil, Options{},
			[]string{"the quick brown fox jumps over the|lazy dog and runs far away from here"}},
		{"lines cut at a clause", "the quick brown fox jumps, and over the lazy dog it runs far away", nil, Options{},
			[]string{"the quick brown fox jumps,|and over the lazy dog it runs far away"}},
		{"full cues cut at a clause end", "aa bb cc dd, ee ff gg hh ii", nil, Options{LineChars: 12, Lines: 1},
			[]string{"aa bb cc dd,", "ee ff", "gg hh ii"}},
		{"no clause end: a sentence's last cue keeps three words", "aa bb cc dd ee ff. Gg", nil, Options{LineChars: 12, Lines: 1},
			[]string{"aa bb cc", "dd ee ff.", "Gg"}},
		{"long cues", "a b c d e f g h i j k l m n", nil, Options{MaxDuration: 400 * time.Millisecond},
			[]string{"a b c d e", "f g h i j", "k l m n"}},
		{"a long word alone", "supercalifragilisticexpialidocious word", nil, Options{LineChars: 10, Lines: 1},
			[]string{"supercalifragilisticexpialidocious", "word"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			words := timed(tc.text, tc.pauses)
			cues := tc.opts.Cues(tc.text, words)
			var got []string
			for _, c := range cues {
				got = append(got, strings.Join(c.Lines, "|"))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("cues\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			checkLayout(t, tc.opts.withDefaults(), cues, words)
		})
	}
}

// checkLayout: every cue holds whole words within the options' bounds,
// from its first word's start to its last word's end, and the cues hold
// every word once, in order.
func checkLayout(t *testing.T, o Options, cues []Cue, words []tts.Word) {
	t.Helper()
	k := 0
	for _, c := range cues {
		if len(c.Lines) > o.Lines {
			t.Errorf("cue %q has %d lines", c.Text(), len(c.Lines))
		}
		for _, l := range c.Lines {
			if utf8.RuneCountInString(l) > o.LineChars && len(strings.Fields(l)) > 1 {
				t.Errorf("line %q is longer than %d", l, o.LineChars)
			}
		}
		n := wordsIn(t, c.Text(), words[k:])
		first, last := words[k], words[k+n-1]
		if c.Start != first.Start || c.End != last.End {
			t.Errorf("cue %q at [%v, %v], its words at [%v, %v]", c.Text(), c.Start, c.End, first.Start, last.End)
		}
		if n > 1 && c.End-c.Start > o.MaxDuration {
			t.Errorf("cue %q lasts %v", c.Text(), c.End-c.Start)
		}
		k += n
	}
	if k != len(words) {
		t.Errorf("the cues hold %d words of %d", k, len(words))
	}
}

// wordsIn counts the words at the start of words that a cue's text
// shows: their letters and digits are the text's.
func wordsIn(t *testing.T, text string, words []tts.Word) int {
	t.Helper()
	want := letters(text)
	got := ""
	for n, w := range words {
		got += letters(w.Word)
		if got == want {
			return n + 1
		}
		if !strings.HasPrefix(want, got) {
			break
		}
	}
	t.Fatalf("the cue %q is not the next words %v", text, words[:min(len(words), 5)])
	return 0
}

func letters(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}

// parsed is a cue read back from a file.
type parsed struct {
	start, end time.Duration
	text       string
}

var (
	srtTime = regexp.MustCompile(`^(\d{2,}):([0-5]\d):([0-5]\d),(\d{3}) --> (\d{2,}):([0-5]\d):([0-5]\d),(\d{3})$`)
	vttTime = regexp.MustCompile(`^(\d{2,}):([0-5]\d):([0-5]\d)\.(\d{3}) --> (\d{2,}):([0-5]\d):([0-5]\d)\.(\d{3})$`)
)

func stampOf(m []string) time.Duration {
	n := make([]int, 4)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i])
	}
	return time.Duration(n[0])*time.Hour + time.Duration(n[1])*time.Minute + time.Duration(n[2])*time.Second + time.Duration(n[3])*time.Millisecond
}

// parseSubtitles reads an SRT or WebVTT file strictly: blocks separated
// by one blank line, SRT's numbered from 1, times in order, text lines
// never empty, the file ending in a blank line.
func parseSubtitles(t *testing.T, f Format, data string) []parsed {
	t.Helper()
	re := srtTime
	if f == WebVTT {
		rest, ok := strings.CutPrefix(data, "WEBVTT\n\n")
		if !ok {
			t.Fatalf("no WEBVTT header: %q", data)
		}
		data, re = rest, vttTime
	}
	if data == "" {
		return nil
	}
	body, ok := strings.CutSuffix(data, "\n\n")
	if !ok {
		t.Fatalf("the file does not end in a blank line: %q", data)
	}
	var cues []parsed
	for i, block := range strings.Split(body, "\n\n") {
		lines := strings.Split(block, "\n")
		if f == SRT {
			if lines[0] != strconv.Itoa(i+1) {
				t.Fatalf("block %d is numbered %q", i+1, lines[0])
			}
			lines = lines[1:]
		}
		if len(lines) < 2 {
			t.Fatalf("block %d has no text: %q", i+1, block)
		}
		m := re.FindStringSubmatch(lines[0])
		if m == nil {
			t.Fatalf("block %d: bad timing line %q", i+1, lines[0])
		}
		c := parsed{start: stampOf(m[1:5]), end: stampOf(m[5:9]), text: strings.Join(lines[1:], "\n")}
		if c.end <= c.start || len(cues) > 0 && c.start < cues[len(cues)-1].end {
			t.Fatalf("block %d: times out of order: %q", i+1, lines[0])
		}
		for _, l := range lines[1:] {
			if strings.TrimSpace(l) == "" || strings.Contains(l, "-->") || f == WebVTT && strings.ContainsAny(l, "<>") {
				t.Fatalf("block %d: bad text line %q", i+1, l)
			}
		}
		if f == WebVTT {
			c.text = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(c.text)
		}
		cues = append(cues, c)
	}
	return cues
}

// checkFile writes cues in a format, reads the file back and checks its
// cues' times against the words' within 1 ms.
func checkFile(t *testing.T, f Format, cues []Cue, words []tts.Word) {
	t.Helper()
	var buf bytes.Buffer
	write := WriteSRT
	if f == WebVTT {
		write = WriteVTT
	}
	if err := write(&buf, cues); err != nil {
		t.Fatal(err)
	}
	got := parseSubtitles(t, f, buf.String())
	if len(got) != len(cues) {
		t.Fatalf("%d cues read back, %d written", len(got), len(cues))
	}
	k := 0
	for i, c := range got {
		n := wordsIn(t, c.text, words[k:])
		first, last := words[k], words[k+n-1]
		k += n
		if d := (c.start - first.Start).Abs(); d > time.Millisecond {
			t.Errorf("cue %d starts at %v, its first word at %v", i, c.start, first.Start)
		}
		if d := (c.end - last.End).Abs(); d > time.Millisecond {
			t.Errorf("cue %d ends at %v, its last word at %v", i, c.end, last.End)
		}
		if c.text != cues[i].Text() {
			t.Errorf("cue %d reads back %q, written %q", i, c.text, cues[i].Text())
		}
	}
	if k != len(words) {
		t.Errorf("the file holds %d words of %d", k, len(words))
	}
}

// TestSpeech: the captions of real speech (espeak-ng's word timings),
// made segment by segment and shifted as a long job's are, read back
// from SRT and WebVTT with every cue at its words' times.
func TestSpeech(t *testing.T) {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer synth.Close()
	segments := []string{
		`On 3 May 1999, "Wait," said Ann, "it's 4:30 PM & the <ferry> leaves at five." She paid $12.50 for the tickets, and they ran down to the harbour while the gulls cried overhead.`,
		`Chapter two. Nobody slept that night; the fog came in from the sea, thick and grey, and stayed until the lighthouse keeper rang the bell at dawn.`,
	}
	var (
		all   []Cue
		words []tts.Word
		at    time.Duration
	)
	for _, text := range segments {
		var seg []tts.Word
		pcm, _, err := synth.SynthesizeRequest(context.Background(), tts.Request{Voice: "en-us", Input: text, Format: encode.PCM,
			OnSentence: func(d tts.SentenceDone) { seg = append(seg, d.Words...) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(seg) < 20 {
			t.Fatalf("%d words timed in %q", len(seg), text)
		}
		for _, c := range Cues(text, seg) {
			all = append(all, c.Shift(at))
		}
		for _, w := range seg {
			w.Start += at
			w.End += at
			words = append(words, w)
		}
		at += time.Duration(len(pcm)/2) * time.Second / 24000
	}
	checkLayout(t, Options{}.withDefaults(), all, words)
	if testing.Verbose() {
		var srt bytes.Buffer
		WriteSRT(&srt, all)
		t.Logf("SRT:\n%s", srt.String())
	}
	for _, f := range []Format{SRT, WebVTT} {
		t.Run(fmt.Sprint(f), func(t *testing.T) { checkFile(t, f, all, words) })
	}
	if !strings.Contains(all[0].Text(), `"Wait,"`) {
		t.Errorf("the first cue %q lost its punctuation", all[0].Text())
	}
}

func TestWriter(t *testing.T) {
	cues := []Cue{
		{Start: 0, End: 1500 * time.Millisecond, Lines: []string{"a <b> & c -->"}},
		{Start: time.Hour + 2*time.Minute + 3*time.Second + 4500*time.Microsecond, End: time.Hour + 2*time.Minute + 3*time.Second + 4500*time.Microsecond, Lines: []string{"one", "two"}},
	}
	for _, tc := range []struct {
		f    Format
		want string
	}{
		{SRT, "1\n00:00:00,000 --> 00:00:01,500\na <b> & c ->\n\n2\n01:02:03,005 --> 01:02:03,006\none\ntwo\n\n"},
		{WebVTT, "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\na &lt;b&gt; &amp; c --&gt;\n\n01:02:03.005 --> 01:02:03.006\none\ntwo\n\n"},
	} {
		var buf bytes.Buffer
		w := NewWriter(&buf, tc.f)
		for _, c := range cues {
			if err := w.Write(c); err != nil { // one at a time: numbered on
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tc.want {
			t.Errorf("%v:\n%q\nwant\n%q", tc.f, buf.String(), tc.want)
		}
		buf.Reset()
		write(&buf, tc.f, nil)
		if want := map[Format]string{SRT: "", WebVTT: "WEBVTT\n\n"}[tc.f]; buf.String() != want {
			t.Errorf("%v with no cues: %q", tc.f, buf.String())
		}
	}
}
