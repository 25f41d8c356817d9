package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// jobFile holds the id of the job a directory's downloads come from,
// and the fingerprint of what was submitted (the book and the settings
// that change its audio).
const jobFile = ".voxkit-job"

// submitOrResume returns the job of the book: the one DIR/.voxkit-job
// names when it was made of the same book and settings and has not
// failed, been cancelled or been removed; else a new one.
func submitOrResume(ctx context.Context, c *client, o options, stderr io.Writer) (string, error) {
	data, err := os.ReadFile(o.file)
	if err != nil {
		return "", err
	}
	print := fingerprint(data, o)
	saved := filepath.Join(o.dir, jobFile)
	if b, err := os.ReadFile(saved); err == nil {
		id, was, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		var j job
		switch err := c.getJSON(ctx, jobPath(id, ""), &j); {
		case strings.TrimSpace(was) != print:
			fmt.Fprintf(stderr, "%s names job %s, of another book or other settings: submitting this one\n", saved, id)
		case isStatus(err, http.StatusNotFound):
			fmt.Fprintf(stderr, "job %s (%s) is gone: submitting the book again\n", id, saved)
		case err != nil:
			return "", err
		case j.Status == "failed" || j.Status == "cancelled":
			fmt.Fprintf(stderr, "job %s (%s) %s: submitting the book again\n", id, saved, j.Status)
		default:
			fmt.Fprintf(stderr, "job %s, submitted earlier (%s): %s\n", id, saved, j.Status)
			return id, nil
		}
	}
	j, err := submit(ctx, c, o, data)
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(saved, []byte(j.ID+"\n"+print+"\n")); err != nil {
		return "", fmt.Errorf("job %s submitted, but its id could not be kept: %w", j.ID, err)
	}
	titles := make([]string, len(j.Chapters))
	for i, ch := range j.Chapters {
		titles[i] = strconv.Quote(ch.Title)
		if ch.Title == "" {
			titles[i] = "(untitled)"
		}
	}
	fmt.Fprintf(stderr, "submitted job %s: %d chapters (%s)\n", j.ID, len(j.Chapters), clip(strings.Join(titles, ", "), 200))
	return j.ID, nil
}

func isStatus(err error, status int) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.Status == status
}

// fingerprint sums what makes a job's audio: the book and the voice,
// format and speed.
func fingerprint(data []byte, o options) string {
	h := sha256.New()
	h.Write(data)
	fmt.Fprintf(h, "\x00%s\x00%s\x00%g", o.voice, o.format, o.speed)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// submit uploads the book as the jobs API takes a file: multipart, the
// book in the field "file", the speech fields beside it.
func submit(ctx context.Context, c *client, o options, data []byte) (job, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fields := [][2]string{{"voice", o.voice}, {"response_format", o.format}}
	if o.speed != 0 {
		fields = append(fields, [2]string{"speed", strconv.FormatFloat(o.speed, 'g', -1, 64)})
	}
	if cs := captionList(o.captions); len(cs) > 0 {
		fields = append(fields, [2]string{"captions", strings.Join(cs, ",")})
	}
	if o.timestamps {
		fields = append(fields, [2]string{"timestamps", "word"})
	}
	for _, f := range fields {
		mw.WriteField(f[0], f[1])
	}
	name := filepath.Base(o.file)
	ct := mime.TypeByExtension(filepath.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": "file", "filename": name}))
	h.Set("Content-Type", ct)
	part, _ := mw.CreatePart(h)
	part.Write(data)
	mw.Close()
	res, err := c.do(ctx, http.MethodPost, "/audio/jobs", &body, mw.FormDataContentType())
	if err != nil {
		return job{}, err
	}
	defer res.Body.Close()
	var j job
	if err := json.NewDecoder(res.Body).Decode(&j); err != nil || j.ID == "" {
		return j, fmt.Errorf("submitting: the answer is not a job (%v)", err)
	}
	return j, nil
}

// follow waits for job id to end, showing its progress on bar, and
// returns it as it ended. It follows the job's events, again after a
// pause when their stream ends early or the server does not answer (a
// server restarting, a proxy's 502) for up to giveUp; Ctrl-C ends the
// wait with errInterrupted.
func follow(ctx context.Context, c *client, id string, pause time.Duration, bar *bar) (job, error) {
	var last job
	var failing time.Time // when the server stopped answering; zero while it answers
	for {
		res, err := c.do(ctx, http.MethodGet, jobPath(id, "/events"), nil, "")
		ended := false
		if err == nil {
			failing = time.Time{}
			err = events(res.Body, func(e event) error {
				if err := json.Unmarshal(e.data, &last); err != nil {
					return fmt.Errorf("job %s: an event that is not a job: %w", id, err)
				}
				bar.update(last)
				if e.name == "done" || e.name == "error" {
					ended = true
					return errStop
				}
				return nil
			})
			res.Body.Close()
		}
		switch {
		case ctx.Err() != nil:
			bar.stop()
			return last, errInterrupted
		case ended:
			bar.stop()
			return last, nil
		case err != nil && !retryable(err):
			bar.stop()
			return last, err // 404, 401 …: waiting again would not help
		case err != nil && failing.IsZero():
			failing = time.Now()
			bar.note(fmt.Sprintf("the server does not answer (%v); trying again", err))
		case err != nil && time.Since(failing) > giveUp:
			bar.stop()
			return last, fmt.Errorf("following job %s: the server has not answered for %s: %w", id, giveUp, err)
		}
		select {
		case <-ctx.Done():
			bar.stop()
			return last, errInterrupted
		case <-time.After(pause):
		}
	}
}

// giveUp is how long follow waits for a server that does not answer.
const giveUp = 5 * time.Minute

// retryable reports whether a request that failed with err may succeed
// later: the server unreachable, overloaded or restarting.
func retryable(err error) bool {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Status >= 500 || ae.Status == http.StatusTooManyRequests
	}
	return true
}

// downloadAll saves the results of succeeded job j into o.dir.
func downloadAll(ctx context.Context, c *client, j job, o options, stdout io.Writer) error {
	paths := []string{"/audio"}
	if o.chapters {
		for _, ch := range j.Chapters {
			paths = append(paths, fmt.Sprintf("/chapters/%d/audio", ch.Index))
		}
	}
	for _, cs := range captionList(o.captions) {
		paths = append(paths, "/captions."+cs)
	}
	if o.timestamps {
		paths = append(paths, "/timestamps.json")
	}
	for _, p := range paths {
		name, n, had, err := download(ctx, c, jobPath(j.ID, p), j.ID+"-"+strings.ReplaceAll(strings.Trim(p, "/"), "/", "-"), o.dir)
		if err != nil {
			return err
		}
		if had {
			fmt.Fprintf(stdout, "have %s (%s) already\n", name, size(n))
		} else {
			fmt.Fprintf(stdout, "saved %s (%s)\n", name, size(n))
		}
	}
	return nil
}

// download saves the file at path into dir, named as the server's
// Content-Disposition says (else fallback), and returns its name and
// size. A file of that name and size there already (a job's results
// never change, and are named for it) is kept: had is true.
func download(ctx context.Context, c *client, path, fallback, dir string) (name string, n int64, had bool, err error) {
	res, err := c.do(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return "", 0, false, err
	}
	defer res.Body.Close()
	name = fallback
	if _, params, err := mime.ParseMediaType(res.Header.Get("Content-Disposition")); err == nil {
		if n := filepath.Base(params["filename"]); n != "" && !strings.HasPrefix(n, ".") && n == params["filename"] {
			name = n
		}
	}
	name = filepath.Join(dir, name)
	if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() && res.ContentLength > 0 && st.Size() == res.ContentLength {
		return name, st.Size(), true, nil
	}
	tmp, err := os.CreateTemp(dir, ".download-*")
	if err != nil {
		return "", 0, false, err
	}
	defer os.Remove(tmp.Name())
	n, err = io.Copy(tmp, res.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if ctx.Err() != nil {
			err = errInterrupted
		}
		return "", 0, false, fmt.Errorf("downloading %s: %w", path, err)
	}
	if res.ContentLength >= 0 && n != res.ContentLength {
		return "", 0, false, fmt.Errorf("downloading %s: %d bytes of %d", path, n, res.ContentLength)
	}
	return name, n, false, os.Rename(tmp.Name(), name)
}

func writeFileAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
