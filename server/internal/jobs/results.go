package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/store"
)

// file serves a result file of the caller's job, with Range; name ""
// is the chapter of the path's {n}.
func (d *door) file(name string) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		j, err := d.job(r)
		if err != nil {
			return err
		}
		if j.Status != store.JobSucceeded {
			return &fault.Error{Status: http.StatusConflict, Type: fault.TypeInvalidRequest, Code: CodeNotReady,
				Message: fmt.Sprintf("Job %s is %s: its results are there once it has succeeded.", j.ID, j.Status)}
		}
		fname := name
		if fname == "" {
			n, err := strconv.Atoi(r.PathValue("n"))
			if err != nil || n < 1 {
				return fault.BadRequest(fault.CodeInvalidValue, "n", "The chapter must be a number from 1.")
			}
			fname = runner.ChapterFile(n)
		}
		f, err := d.jobs().JobFile(r.Context(), j.ID, fname)
		if errors.Is(err, store.ErrNotFound) {
			return &fault.Error{Status: http.StatusNotFound, Type: fault.TypeInvalidRequest, Code: fault.CodeNotFound,
				Message: fmt.Sprintf("Job %s has no %s.", j.ID, fault.Echo(r.URL.Path))}
		}
		if err != nil {
			return err
		}
		download := j.ID + "-" + fname
		if fname == runner.FileAudio || name == "" {
			if c, err := d.Formats.Lookup(objectOf(j).ResponseFormat); err == nil {
				download += "." + c.Extension
			}
		}
		w.Header().Set("Content-Type", f.ContentType)
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", download))
		http.ServeContent(w, r, "", j.Finished, &parts{ctx: r.Context(), jobs: d.jobs(), f: f, loaded: -1})
		return nil
	}
}

// CodeNotReady is the error code of a result asked for before its job
// succeeded.
const CodeNotReady = "job_not_ready"

// parts reads a result file from the store part by part.
type parts struct {
	ctx    context.Context
	jobs   store.Jobs
	f      store.JobFile
	off    int64
	loaded int
	data   []byte
}

func (p *parts) Read(b []byte) (int, error) {
	if p.off >= p.f.Size {
		return 0, io.EOF
	}
	i := int(p.off / runner.PartSize)
	if i != p.loaded {
		data, err := p.jobs.JobFilePart(p.ctx, p.f.Job, p.f.Name, i)
		if err != nil {
			return 0, err
		}
		p.data, p.loaded = data, i
	}
	at := p.off - int64(i)*runner.PartSize
	if at >= int64(len(p.data)) {
		return 0, fmt.Errorf("jobs: part %d of %s of job %s is short", i, p.f.Name, p.f.Job)
	}
	n := copy(b, p.data[at:])
	p.off += int64(n)
	return n, nil
}

func (p *parts) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += p.off
	case io.SeekEnd:
		off += p.f.Size
	}
	if off < 0 {
		return 0, errors.New("jobs: seek before the start")
	}
	p.off = off
	return off, nil
}

// events answers GET /v1/audio/jobs/{id}/events: server-sent events, a
// "progress" event with the job as it moves, then "done" (succeeded) or
// "error" (failed, cancelled, deleted), and the stream ends.
func (d *door) events(w http.ResponseWriter, r *http.Request) error {
	j, err := d.job(r)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(event string, v any) error {
		b, _ := json.Marshal(v)
		if d.WriteTimeout > 0 {
			rc.SetWriteDeadline(time.Now().Add(d.WriteTimeout))
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return err
		}
		return rc.Flush()
	}
	poll := time.NewTicker(d.pollEvery())
	defer poll.Stop()
	last := ""
	for {
		o := objectOf(j)
		if now := fmt.Sprint(j.Status, j.SegmentsDone, j.CharsDone, j.SentencesDone); now != last {
			last = now
			if err := send("progress", o); err != nil {
				return nil // the client is gone
			}
		}
		switch j.Status {
		case store.JobSucceeded:
			return send("done", o)
		case store.JobFailed, store.JobCancelled:
			return send("error", o)
		}
		select {
		case <-r.Context().Done():
			return nil
		case <-poll.C:
		}
		now, err := d.jobs().Job(r.Context(), j.Account, j.ID)
		if errors.Is(err, store.ErrNotFound) {
			return send("error", map[string]any{"id": j.ID, "status": "deleted", "error": Error{Message: "The job was deleted.", Type: fault.TypeInvalidRequest}})
		}
		if err != nil {
			return nil // the client is gone, or the store fails: the stream ends
		}
		j = now
	}
}

func (d *door) pollEvery() time.Duration {
	if d.Poll > 0 {
		return d.Poll
	}
	return runner.DefaultPoll
}
