package jobs_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/textproto"
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
	t.Parallel()
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
		{"book.epub", []byte("PK\x03\x04"), "invalid_value"},
		{"book.txt", []byte{0xff, 0xfe, 0x00}, "invalid_value"},
		{"book.md", []byte("# Only a title\n"), "string_below_min_length"},
	} {
		testserver.APIError(t, upload(t, e, map[string]string{"voice": "en-us"}, c.name, c.data), http.StatusBadRequest, c.code)
	}
	testserver.APIError(t, upload(t, e, map[string]string{"voice": "en-us", "speed": "fast"}, "a.txt", []byte("Hello.")), http.StatusBadRequest, "invalid_type")
	// timestamps as a form field takes what the JSON field does: a
	// boolean's words, "word" or "none".
	for _, v := range []string{"true", "false", "word", "none"} {
		res := upload(t, e, map[string]string{"voice": "en-us", "timestamps": v}, "a.txt", []byte("Hello."))
		res.Body.Close()
		if res.StatusCode != http.StatusAccepted {
			t.Errorf("timestamps=%s: %d", v, res.StatusCode)
		}
	}
	testserver.APIError(t, upload(t, e, map[string]string{"voice": "en-us", "timestamps": "yes please"}, "a.txt", []byte("Hello.")), http.StatusBadRequest, "invalid_value")
}

// The queue's depth is a metric, and so are the renderings begun. Under
// -short the job is 3 segments of the slow voice, not 8.
func TestJobMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	e := testserver.New(t, testserver.Options{Metrics: reg, Jobs: server.JobOptions{Enabled: true, MaxSegment: 120, Poll: 50 * time.Millisecond}})
	value := func(name string) float64 {
		m := testserver.Gathered(t, reg, name).GetMetric()[0]
		if g := m.GetGauge(); g != nil {
			return g.GetValue()
		}
		return m.GetCounter().GetValue()
	}
	j := submit(t, e, e.Key, map[string]any{"voice": "slow", "input": strings.Repeat("The slow voice says this. ", shortBook(30, 12))})
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

// epub is a small EPUB 3: two documents, the first holding two chapters
// its table of contents points into.
func epub(t *testing.T) []byte {
	t.Helper()
	page := func(body string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body>` + body + `</body></html>`
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range [][2]string{
		{"mimetype", "application/epub+zip"},
		{"META-INF/container.xml", `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
		{"OEBPS/book.opf", `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Lamps</dc:title></metadata><manifest>` +
			`<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="b.xhtml" media-type="application/xhtml+xml"/>` +
			`</manifest><spine><itemref idref="a"/><itemref idref="b"/></spine></package>`},
		{"OEBPS/nav.xhtml", `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head><body><nav epub:type="toc"><ol>` +
			`<li><a href="a.xhtml#one">The Keeper</a></li><li><a href="a.xhtml#two">The River</a></li><li><a href="b.xhtml">The End</a></li></ol></nav></body></html>`},
		{"OEBPS/a.xhtml", page(`<section id="one"><p>The keeper counted forty lamps.</p></section><section id="two"><p>By noon the river had risen.</p></section>`)},
		{"OEBPS/b.xhtml", page(`<p>"Is that all?" asked Mira.</p>`)},
	} {
		method := zip.Deflate
		if f[0] == "mimetype" {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f[0], Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// An EPUB uploaded: its table of contents names the job's chapters; a
// broken one is a 400.
func TestJobUploadEPUB(t *testing.T) {
	t.Parallel()
	e := jobEnv(t, "", server.JobOptions{})
	res := upload(t, e, map[string]string{"voice": "en-us"}, "lamps.epub", epub(t))
	var j jobs.Job
	json.NewDecoder(res.Body).Decode(&j)
	res.Body.Close()
	var titles []string
	for _, c := range j.Chapters {
		titles = append(titles, c.Title)
	}
	if res.StatusCode != http.StatusAccepted || strings.Join(titles, "|") != "The Keeper|The River|The End" {
		t.Fatalf("upload: %d, chapters %q (%+v)", res.StatusCode, titles, j)
	}
	waitStatus(t, e, j.ID, store.JobSucceeded)
	broken := epub(t)
	broken = broken[:len(broken)/2]
	testserver.APIError(t, upload(t, e, map[string]string{"voice": "en-us"}, "lamps.epub", broken), http.StatusBadRequest, "invalid_value")
	// A file of a kind no book is: unsupported.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("voice", "en-us")
	fw, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Disposition": {`form-data; name="file"; filename="a.pdf"`}, "Content-Type": {"application/pdf"}})
	fw.Write([]byte("%PDF-1.7"))
	mw.Close()
	testserver.APIError(t, e.Do("POST", "/v1/audio/jobs", e.Key, mw.FormDataContentType(), &body), http.StatusBadRequest, "unsupported_media_type")
}
