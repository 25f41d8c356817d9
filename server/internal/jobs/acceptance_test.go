package jobs_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	bookfile "github.com/voxkit/voxkit/internal/book"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/jobs"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/tts"
)

// Issue 43's acceptance of a book, with the real espeak-ng: a 6,131-word
// text with numbers, dates and dialogue (testdata/book.md, three `#`
// chapters) uploaded as Markdown. Its progress events rise to 100 %; the
// whole audio is as long as its chapters (within 10 ms a seam); its SRT
// and WebVTT captions parse and their times are the word timings' within
// 50 ms; and each chapter's text spoken by POST /v1/audio/speech (its
// limits raised to take a chapter whole) is as long as the job's chapter,
// and the book as long as their sum, within 1 %.
func TestJobAcceptanceBook(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 40 minutes of speech twice; skipped by -short")
	}
	md, err := os.ReadFile("testdata/book.md")
	if err != nil {
		t.Fatal(err)
	}
	chapters, err := bookfile.Parse("book.md", "text/markdown", md)
	if err != nil || len(chapters) != 3 {
		t.Fatalf("the book: %d chapters, %v", len(chapters), err)
	}
	if words := len(strings.Fields(string(md))); words < 6000 {
		t.Fatalf("the book has %d words", words)
	}
	e := testserver.New(t, testserver.Options{
		Jobs: server.JobOptions{Enabled: true, Poll: 100 * time.Millisecond},
		Synth: func(o *tts.Options) {
			o.MaxInput, o.MaxAudio = 20_000, time.Hour // a chapter in one speech request
		}})
	res := upload(t, e, map[string]string{"voice": "en-us", "response_format": "wav", "captions": "srt,vtt"}, "book.md", md)
	var j jobs.Job
	json.NewDecoder(res.Body).Decode(&j)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted || len(j.Chapters) != 3 || j.Chapters[1].Title != chapters[1].Title || j.Progress.SegmentsTotal < 6 {
		t.Fatalf("upload: %d %+v", res.StatusCode, j)
	}
	evs := follow(t, e, j.ID)
	p := checkRising(t, evs)
	if len(evs) < 5 {
		t.Errorf("%d events: want progress between", len(evs))
	}
	t.Logf("%d events; %d characters, %d sentences, %d segments, %.1f s of audio", len(evs), p.CharactersTotal, p.SentencesTotal, p.SegmentsTotal, p.AudioSeconds)

	_, whole := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/audio")
	total, rate := wavSamples(t, whole)
	sum, spoken := 0, 0
	var chapterSamples [3]int
	for n := 1; n <= 3; n++ {
		_, b := fetch(t, e, e.Key, fmt.Sprintf("/v1/audio/jobs/%s/chapters/%d/audio", j.ID, n))
		s, _ := wavSamples(t, b)
		chapterSamples[n-1] = s
		sum += s
		status, speech, werr := testserver.SpeechOf(t, e, e.Key, mustJSON(map[string]any{"voice": "en-us", "response_format": "wav", "input": chapters[n-1].Text}))
		if status != http.StatusOK {
			t.Fatalf("chapter %d as speech: %d %+v", n, status, werr)
		}
		want, _ := wavSamples(t, speech)
		spoken += want
		t.Logf("chapter %d: job %.3f s, speech %.3f s (%+.2f %%)", n, seconds(s, rate), seconds(want, rate), 100*float64(s-want)/float64(want))
		if math.Abs(float64(s-want)) > 0.01*float64(want) {
			t.Errorf("chapter %d: %.3f s, the same text as speech %.3f s: more than 1 %% apart", n, seconds(s, rate), seconds(want, rate))
		}
	}
	if seams := 2; math.Abs(float64(total-sum)) > float64(seams*rate/100) {
		t.Errorf("the whole audio %.3f s, its chapters %.3f s: more than 10 ms a seam apart", seconds(total, rate), seconds(sum, rate))
	}
	t.Logf("book: job %.3f s, speech %.3f s (%+.2f %%)", seconds(total, rate), seconds(spoken, rate), 100*float64(total-spoken)/float64(spoken))
	if math.Abs(float64(total-spoken)) > 0.01*float64(spoken) {
		t.Errorf("the book %.3f s, its text as speech %.3f s: more than 1 %% apart", seconds(total, rate), seconds(spoken, rate))
	}

	_, raw := fetch(t, e, e.Key, "/v1/audio/jobs/"+j.ID+"/timestamps.json")
	var ts runner.Timestamps
	if err := json.Unmarshal(raw, &ts); err != nil || len(ts.Words) < 6000 || len(ts.Chapters) != 3 {
		t.Fatalf("timestamps: %v, %d words, %d chapters", err, len(ts.Words), len(ts.Chapters))
	}
	at := 0
	for i, c := range ts.Chapters {
		start, end := seconds(at, rate), seconds(at+chapterSamples[i], rate)
		if c.Title != chapters[i].Title || math.Abs(c.Start-start) > 0.01 || math.Abs(c.End-end) > 0.01*float64(i+1) {
			t.Errorf("chapter %d: %q %.3f-%.3f, its audio %q %.3f-%.3f", i+1, c.Title, c.Start, c.End, chapters[i].Title, start, end)
		}
		at += chapterSamples[i]
	}
	checkCaptions(t, e, j.ID, ts.Words)
}

func seconds(samples, rate int) float64 { return float64(samples) / float64(rate) }
