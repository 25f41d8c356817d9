package jobs_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/internal/jobs"
	"github.com/voxkit/voxkit/server/internal/testserver"
	"github.com/voxkit/voxkit/server/store"
)

// upload posts a job as a multipart form with the file name and data.
func upload(t *testing.T, e *testserver.Env, fields map[string]string, name string, data []byte) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.Close()
	return e.Do("POST", "/v1/audio/jobs", e.Key, mw.FormDataContentType(), &body)
}

// A Markdown file uploaded: its headings are the job's chapters; files
// the job cannot read are 400s.
func TestJobUpload(t *testing.T) {
	e := jobEnv(t, "", server.JobOptions{})
	md := "# The Keeper\n\nThe keeper counted forty lamps.\n\n## The River\n\nBy noon the river had risen.\n\n# The End\n\n\"Is that all?\" asked Mira.\n"
	res := upload(t, e, map[string]string{"voice": "en-us", "speed": "1.2", "captions": "srt,vtt"}, "book.md", []byte(md))
	var j jobs.Job
	json.NewDecoder(res.Body).Decode(&j)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted || len(j.Chapters) != 3 || j.Chapters[1].Title != "The River" {
		t.Fatalf("upload: %d %+v", res.StatusCode, j)
	}
	waitStatus(t, e, j.ID, store.JobSucceeded)
	for _, c := range []struct {
		name string
		data []byte
		code string
	}{
		{"book.epub", []byte("PK\x03\x04"), "unsupported_media_type"},
		{"book.txt", []byte{0xff, 0xfe, 0x00}, "invalid_value"},
		{"book.md", []byte("# Only a title\n"), "string_below_min_length"},
	} {
		testserver.APIError(t, upload(t, e, map[string]string{"voice": "en-us"}, c.name, c.data), http.StatusBadRequest, c.code)
	}
	testserver.APIError(t, upload(t, e, map[string]string{"voice": "en-us", "speed": "fast"}, "a.txt", []byte("Hello.")), http.StatusBadRequest, "invalid_type")
}

// The queue's depth is a metric, and so are the renderings begun.
func TestJobMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := testserver.New(t, testserver.Options{Metrics: reg, Jobs: server.JobOptions{Enabled: true, MaxSegment: 120, Poll: 50 * time.Millisecond}})
	value := func(name string) float64 {
		m := testserver.Gathered(t, reg, name).GetMetric()[0]
		if g := m.GetGauge(); g != nil {
			return g.GetValue()
		}
		return m.GetCounter().GetValue()
	}
	j := submit(t, e, e.Key, map[string]any{"voice": "slow", "input": strings.Repeat("The slow voice says this. ", 30)})
	if n := value("voxkit_job_segments_pending"); n < float64(j.Progress.SegmentsTotal-1) {
		t.Errorf("pending segments after the submission: %v of %d", n, j.Progress.SegmentsTotal)
	}
	end := waitStatus(t, e, j.ID, store.JobSucceeded)
	if n := value("voxkit_job_segments_pending"); n != 0 {
		t.Errorf("pending segments once done: %v", n)
	}
	if n := value("voxkit_job_segment_renders_total"); n != float64(end.Progress.SegmentsTotal) {
		t.Errorf("renders: %v, segments %d", n, end.Progress.SegmentsTotal)
	}
}
