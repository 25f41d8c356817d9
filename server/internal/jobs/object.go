package jobs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/jobs/runner"
	"github.com/voxkit/voxkit/server/store"
)

// Job is a job as the API shows it.
type Job struct {
	ID             string    `json:"id"`
	Object         string    `json:"object"` // "audio.job"
	Status         string    `json:"status"`
	ResponseFormat string    `json:"response_format"`
	Progress       Progress  `json:"progress"`
	Chapters       []Chapter `json:"chapters"`
	CreatedAt      int64     `json:"created_at"`
	StartedAt      *int64    `json:"started_at"`
	FinishedAt     *int64    `json:"finished_at"`
	Error          *Error    `json:"error"`
	// Results are the paths of the results, once the job succeeded.
	Results *Results `json:"results,omitempty"`
}

// Progress is how far a job is.
type Progress struct {
	Percent         float64  `json:"percent"`
	CharactersDone  int      `json:"characters_done"`
	CharactersTotal int      `json:"characters_total"`
	SentencesDone   int      `json:"sentences_done"`
	SentencesTotal  int      `json:"sentences_total"`
	SegmentsDone    int      `json:"segments_done"`
	SegmentsTotal   int      `json:"segments_total"`
	AudioSeconds    float64  `json:"audio_seconds"`
	ETASeconds      *float64 `json:"eta_seconds"` // null until something is done
}

// Chapter is a chapter of a job.
type Chapter struct {
	Index int    `json:"index"` // from 1
	Title string `json:"title"`
	Audio string `json:"audio,omitempty"` // its audio's path, once the job succeeded
}

// Error is why a job failed, in the shape of OpenAI's error object.
type Error struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// errorOf is a failed job's error: one over its account's storage is
// the account's limit (runner.CodeStorageExceeded), any other a
// failure of the server's or its engine's.
func errorOf(j store.Job) *Error {
	if j.Error == "" {
		return nil
	}
	e := &Error{Message: j.Error, Type: fault.TypeServer}
	if j.ErrorCode != "" {
		e.Code = &j.ErrorCode
	}
	if j.ErrorCode == runner.CodeStorageExceeded {
		e.Type = fault.TypeRateLimit
	}
	return e
}

// Results are a finished job's files.
type Results struct {
	Audio       string `json:"audio"`
	CaptionsSRT string `json:"captions_srt"`
	CaptionsVTT string `json:"captions_vtt"`
	Timestamps  string `json:"timestamps"`
}

// List is a page of jobs.
type List struct {
	Object  string `json:"object"` // "list"
	Data    []Job  `json:"data"`
	FirstID string `json:"first_id,omitempty"`
	LastID  string `json:"last_id,omitempty"`
	HasMore bool   `json:"has_more"`
}

// Deleted answers the deletion of a finished job.
type Deleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

func unix(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	s := t.Unix()
	return &s
}

// objectOf is j as the API shows it.
func objectOf(j store.Job) Job {
	var spec runner.Spec
	_ = json.Unmarshal(j.Spec, &spec) // the runner wrote it
	o := Job{ID: j.ID, Object: "audio.job", Status: j.Status, ResponseFormat: spec.Format, CreatedAt: j.Created.Unix(),
		StartedAt: unix(j.Started), FinishedAt: unix(j.Finished), Chapters: []Chapter{},
		Progress: Progress{CharactersDone: j.CharsDone, CharactersTotal: j.Chars, SentencesDone: j.SentencesDone, SentencesTotal: j.Sentences,
			SegmentsDone: j.SegmentsDone, SegmentsTotal: j.Segments, AudioSeconds: j.Audio.Seconds()}, Error: errorOf(j)}
	if j.Chars > 0 {
		o.Progress.Percent = float64(j.CharsDone) * 100 / float64(j.Chars)
	}
	if j.Status == store.JobSucceeded {
		o.Progress.Percent = 100
	}
	if !j.Started.IsZero() && j.CharsDone > 0 && !store.JobFinished(j.Status) {
		eta := time.Since(j.Started).Seconds() * float64(j.Chars-j.CharsDone) / float64(j.CharsDone)
		o.Progress.ETASeconds = &eta
	}
	base := "/v1/audio/jobs/" + j.ID
	for i, t := range spec.Chapters {
		ch := Chapter{Index: i + 1, Title: t}
		if j.Status == store.JobSucceeded {
			ch.Audio = fmt.Sprintf("%s/chapters/%d/audio", base, i+1)
		}
		o.Chapters = append(o.Chapters, ch)
	}
	if j.Status == store.JobSucceeded {
		o.Results = &Results{Audio: base + "/audio", CaptionsSRT: base + "/captions.srt", CaptionsVTT: base + "/captions.vtt",
			Timestamps: base + "/timestamps.json"}
	}
	return o
}
