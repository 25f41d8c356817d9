package jobs_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/wait"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/jobs"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
)

// jobEnv is a server with jobs on, small segments and a quick poll.
func jobEnv(t *testing.T, dbPath string, o server.JobOptions) *testserver.Env {
	o.Enabled = true
	if o.MaxSegment == 0 {
		o.MaxSegment = 300
	}
	if o.Poll == 0 {
		o.Poll = 50 * time.Millisecond
	}
	return testserver.New(t, testserver.Options{DBPath: dbPath, Jobs: o})
}

// submit posts a job and decodes the answer; it fails unless 202.
func submit(t *testing.T, e *testserver.Env, key string, body any) jobs.Job {
	t.Helper()
	b, _ := json.Marshal(body)
	var j jobs.Job
	if code := e.Call("POST", "/v1/audio/jobs", key, string(b), &j); code != http.StatusAccepted {
		t.Fatalf("submit: %d %+v", code, j)
	}
	return j
}

// getJob reads a job of key's.
func getJob(t *testing.T, e *testserver.Env, key, id string) jobs.Job {
	t.Helper()
	var j jobs.Job
	if code := e.Call("GET", "/v1/audio/jobs/"+id, key, "", &j); code != http.StatusOK {
		t.Fatalf("get %s: %d", id, code)
	}
	return j
}

// jobTimeout is how long a test waits for a job: a hang, not a measure
// (under the race detector at load 20, a six-segment job took over 20 s).
const jobTimeout = 3 * time.Minute

// waitStatus waits until the job's status is one of want.
func waitStatus(t *testing.T, e *testserver.Env, id string, want ...string) jobs.Job {
	t.Helper()
	var j jobs.Job
	if !wait.For(jobTimeout, func() bool {
		j = getJob(t, e, e.Key, id)
		for _, w := range want {
			if j.Status == w {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("job %s still %s (%+v)", id, j.Status, j.Progress)
	}
	return j
}

// event is one server-sent event.
type event struct {
	name string
	job  jobs.Job
}

// follow reads the job's events to their end.
func follow(t *testing.T, e *testserver.Env, id string) []event {
	t.Helper()
	res := e.Do("GET", "/v1/audio/jobs/"+id+"/events", e.Key, "", nil)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("events: %d %s", res.StatusCode, b)
	}
	var out []event
	var name string
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			name = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			ev := event{name: name}
			if err := json.Unmarshal([]byte(v), &ev.job); err != nil {
				t.Fatalf("event %s: %v", v, err)
			}
			out = append(out, ev)
		}
	}
	return out
}

// fetch GETs path with key and returns the answer and its body.
func fetch(t *testing.T, e *testserver.Env, key, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", e.TS.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// wavSamples is the number of 16-bit mono samples a WAV file says it
// holds, and its rate; it checks that the header's sizes are the file's.
func wavSamples(t *testing.T, b []byte) (int, int) {
	t.Helper()
	if len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		t.Fatalf("not a WAV file (%d bytes)", len(b))
	}
	if riff := binary.LittleEndian.Uint32(b[4:]); int(riff) != len(b)-8 {
		t.Errorf("RIFF size %d, file %d", riff, len(b))
	}
	rate := int(binary.LittleEndian.Uint32(b[24:]))
	data := int(binary.LittleEndian.Uint32(b[40:]))
	if string(b[36:40]) != "data" || data != len(b)-44 {
		t.Errorf("data chunk %q of %d bytes, file %d", b[36:40], data, len(b))
	}
	return data / 2, rate
}

// segments is the store's segments of a job.
func segments(t *testing.T, e *testserver.Env, id string) []store.JobSegment {
	t.Helper()
	segs, err := e.Store.JobSegments(t.Context(), id, false)
	if err != nil {
		t.Fatal(err)
	}
	return segs
}

// shortBook is size under go test -short, else full: a test whose point is
// not the length of its book (or of its slow voice's text) speaks about
// half as much there (encoding and checking the audio, and waiting on the
// slow voice, were most of the package's time); make test speaks it whole.
func shortBook(full, size int) int {
	if testing.Short() {
		return size
	}
	return full
}

// book is n chapters of espeak-friendly prose with numbers, dates and
// dialogue, each of about size characters.
func book(n, size int) []map[string]string {
	var out []map[string]string
	for c := range n {
		var b strings.Builder
		for s := 0; b.Len() < size; s++ {
			fmt.Fprintf(&b, "On March %d, 1999, the keeper counted %d lamps. \"Is that all?\" asked Mira. ", s%28+1, 40+s*7)
			if s%4 == 3 {
				b.WriteString("\n\n")
			}
		}
		out = append(out, map[string]string{"title": fmt.Sprintf("Chapter %d", c+1), "input": b.String()})
	}
	return out
}

// dumpQueue logs River's rows, for a test that failed.
func dumpQueue(t *testing.T, e *testserver.Env) {
	rows, err := e.Store.QueueDB().QueryContext(context.Background(), "SELECT id, kind, state, attempt, scheduled_at, coalesce(errors, '') FROM river_job")
	if err != nil {
		t.Log(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id, attempt int
		var kind, state, sched, errs string
		rows.Scan(&id, &kind, &state, &attempt, &sched, &errs)
		t.Log(id, kind, state, attempt, sched, errs)
	}
}
