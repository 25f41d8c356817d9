// Command audiobook turns a book into audio with one long-form job of a
// voxkit server (docs/jobs.md): it uploads the file (EPUB, Markdown,
// HTML or plain text), follows the job with a progress bar and an ETA,
// and downloads the results: the whole audio, and on request each
// chapter's, the captions and the word timings.
//
//	export VOXKIT_API_KEY=sk_...
//	go run ./examples/audiobook -voice en-us -format mp3 -captions srt -o book book.epub
//
// The server is $VOXKIT_BASE_URL (default http://127.0.0.1:8080/v1).
// The files keep the names the server gives them (job_…-audio.mp3,
// job_…-chapter-2.mp3, job_…-captions.srt, job_…-timestamps.json).
//
// The job's id is written to DIR/.voxkit-job when it is submitted: run
// the same command again (after Ctrl-C, say, which leaves the job
// running on the server) and it waits for that job instead of submitting
// the book again; -resume ID waits for any job of the account. -list
// lists the account's jobs, -cancel ID stops one, -delete ID removes a
// finished one with its audio. It uses only the standard library.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"
	"unicode"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // -h printed the usage: not a failure, as with flag.ExitOnError
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "audiobook:", err)
		if errors.Is(err, errInterrupted) {
			os.Exit(130)
		}
		os.Exit(1)
	}
}

// DefaultBaseURL is the server's API when $VOXKIT_BASE_URL is not set.
const DefaultBaseURL = "http://127.0.0.1:8080/v1"

// options are the command line's.
type options struct {
	base, key                   string
	voice, format, captions     string
	speed                       float64
	timestamps, chapters, list  bool
	dir, resume, cancel, delete string
	file                        string
	// poll is how long to wait before following a job again when its
	// events stream ended early (the server restarting, say).
	poll time.Duration
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("audiobook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audiobook [flags] BOOK   (.epub, .md, .html or .txt)\n"+
			"       audiobook -resume ID | -list | -cancel ID | -delete ID")
		fs.PrintDefaults()
	}
	base := os.Getenv("VOXKIT_BASE_URL")
	if base == "" {
		base = DefaultBaseURL
	}
	fs.StringVar(&o.base, "base", base, "the server's API ($VOXKIT_BASE_URL)")
	fs.StringVar(&o.key, "key", "", "API key (default $VOXKIT_API_KEY, which the usage does not show)")
	fs.StringVar(&o.voice, "voice", "alloy", "voice: an id of GET /v1/models, or an OpenAI voice name")
	fs.StringVar(&o.format, "format", "mp3", "audio format: mp3, opus, flac, wav or pcm")
	fs.Float64Var(&o.speed, "speed", 0, "speed from 0.25 to 4 (0: the voice's own)")
	fs.StringVar(&o.captions, "captions", "", "captions to download: srt, vtt or srt,vtt")
	fs.BoolVar(&o.timestamps, "timestamps", false, "download the word timings (JSON) too")
	fs.BoolVar(&o.chapters, "chapters", false, "download each chapter's audio too")
	fs.StringVar(&o.dir, "o", ".", "directory of the downloads and of the job's id (.voxkit-job)")
	fs.StringVar(&o.resume, "resume", "", "wait for job `ID` and download its results instead of submitting")
	fs.BoolVar(&o.list, "list", false, "list the account's jobs")
	fs.StringVar(&o.cancel, "cancel", "", "cancel the queued or running job `ID`")
	fs.StringVar(&o.delete, "delete", "", "delete the finished job `ID` and its audio")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.key == "" {
		o.key = os.Getenv("VOXKIT_API_KEY")
	}
	o.poll = time.Second
	modes := 0
	for _, on := range []bool{o.resume != "", o.list, o.cancel != "", o.delete != ""} {
		if on {
			modes++
		}
	}
	switch {
	case modes > 1:
		return o, errors.New("give one of -resume, -list, -cancel and -delete")
	case modes == 1 && fs.NArg() > 0:
		return o, fmt.Errorf("-resume, -list, -cancel and -delete take no book (%q)", fs.Arg(0))
	case modes == 0 && fs.NArg() != 1:
		fs.Usage()
		return o, errors.New("give one book to read")
	}
	o.file = fs.Arg(0)
	for _, c := range captionList(o.captions) {
		if c != "srt" && c != "vtt" {
			return o, fmt.Errorf("-captions %q: give srt, vtt or srt,vtt", o.captions)
		}
	}
	if o.key == "" {
		return o, errors.New("no API key: set $VOXKIT_API_KEY or pass -key")
	}
	return o, nil
}

func captionList(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// run is the command: ctx ends with Ctrl-C.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	c := newClient(o.base, o.key)
	switch {
	case o.list:
		return list(ctx, c, stdout)
	case o.cancel != "":
		return cancel(ctx, c, o.cancel, stdout)
	case o.delete != "":
		return remove(ctx, c, o.delete, stdout)
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	id := o.resume
	if id == "" {
		if id, err = submitOrResume(ctx, c, o, stderr); err != nil {
			return err
		}
	}
	j, err := follow(ctx, c, id, o.poll, newBar(stderr))
	if errors.Is(err, errInterrupted) {
		return fmt.Errorf("%w: job %s goes on on the server; run the same command again, or audiobook -resume %s -o %s, to wait for it",
			errInterrupted, id, id, o.dir)
	}
	if err != nil {
		return err
	}
	if j.Status != "succeeded" {
		msg := j.Status
		if j.Error != nil && j.Error.Message != "" {
			msg += ": " + j.Error.Message
		}
		return fmt.Errorf("job %s %s", id, msg)
	}
	return downloadAll(ctx, c, j, o, stdout)
}

// errInterrupted is returned when Ctrl-C ends the wait.
var errInterrupted = errors.New("interrupted")

func list(ctx context.Context, c *client, stdout io.Writer) error {
	after := ""
	fmt.Fprintf(stdout, "%-28s %-10s %7s %9s  %-16s %s\n", "ID", "STATUS", "DONE", "CHAPTERS", "CREATED", "FIRST CHAPTER")
	for {
		var page jobList
		path := "/audio/jobs?limit=100"
		if after != "" {
			path += "&after=" + after
		}
		if err := c.getJSON(ctx, path, &page); err != nil {
			return err
		}
		for _, j := range page.Data {
			first := ""
			if len(j.Chapters) > 0 {
				first = strings.Map(func(r rune) rune { // a title shown on one line, no escape reaching the terminal
					if unicode.IsControl(r) {
						return ' '
					}
					return r
				}, j.Chapters[0].Title)
			}
			fmt.Fprintf(stdout, "%-28s %-10s %6.1f%% %9d  %-16s %s\n", j.ID, j.Status, j.Progress.Percent, len(j.Chapters),
				time.Unix(j.CreatedAt, 0).Format("2006-01-02 15:04"), first)
		}
		if !page.HasMore || page.LastID == "" {
			return nil
		}
		after = page.LastID
	}
}

func cancel(ctx context.Context, c *client, id string, stdout io.Writer) error {
	var j job
	if err := c.getJSON(ctx, jobPath(id, ""), &j); err != nil {
		return err
	}
	if finished(j.Status) {
		return fmt.Errorf("job %s has ended (%s): nothing to cancel; -delete %s removes it and its audio", id, j.Status, id)
	}
	if err := c.doJSON(ctx, "DELETE", jobPath(id, ""), &j); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "job %s %s\n", j.ID, j.Status)
	return nil
}

func remove(ctx context.Context, c *client, id string, stdout io.Writer) error {
	var j job
	if err := c.getJSON(ctx, jobPath(id, ""), &j); err != nil {
		return err
	}
	if !finished(j.Status) {
		return fmt.Errorf("job %s is %s: -cancel %s stops it first", id, j.Status, id)
	}
	var d struct {
		Deleted bool `json:"deleted"`
	}
	if err := c.doJSON(ctx, "DELETE", jobPath(id, ""), &d); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "job %s deleted\n", id)
	return nil
}

func finished(status string) bool {
	return status == "succeeded" || status == "failed" || status == "cancelled"
}
