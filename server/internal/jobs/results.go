package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/internal/respond"
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
		http.ServeContent(&jsonErrors{ResponseWriter: w}, r, "", j.Finished, runner.OpenFile(r.Context(), d.jobs(), f))
		return nil
	}
}

// CodeNotReady is the error code of a result asked for before its job
// succeeded.
const CodeNotReady = "job_not_ready"

// jsonErrors answers http.ServeContent's errors (416 for a range past
// the file's end, 412 for a failed precondition), which it writes as
// plain text, in OpenAI's error shape as the other errors are.
type jsonErrors struct {
	http.ResponseWriter
	failed bool
}

func (w *jsonErrors) WriteHeader(code int) {
	if code < 400 {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.failed = true
	w.Header().Del("Content-Disposition")
	msg := "The request's preconditions do not hold for this file."
	if code == http.StatusRequestedRangeNotSatisfiable {
		msg = "The range is not within the file (its size is in Content-Range)."
	}
	respond.WriteError(w.ResponseWriter, &fault.Error{Status: code, Type: fault.TypeInvalidRequest, Code: fault.CodeInvalidValue, Param: "Range", Message: msg})
}

func (w *jsonErrors) Write(b []byte) (int, error) {
	if w.failed {
		return len(b), nil // the plain text of the error written above
	}
	return w.ResponseWriter.Write(b)
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
		case <-d.run.Stopping():
			return nil // the server stops: the client follows the job again elsewhere, or after the restart
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
