package store

import (
	"context"
	"time"
)

// The statuses of a long-form job (Job.Status).
const (
	JobQueued    = "queued"
	JobRunning   = "running"
	JobSucceeded = "succeeded"
	JobFailed    = "failed"
	JobCancelled = "cancelled"
)

// JobFinished reports whether status is one a job ends in.
func JobFinished(status string) bool {
	return status == JobSucceeded || status == JobFailed || status == JobCancelled
}

// Job is a long-form speech job (POST /v1/audio/jobs): its text cut into
// segments, each rendered and kept as it finishes, then its results'
// files. The store keeps Spec as given, without reading it.
type Job struct {
	ID      string
	Account string
	Status  string
	// Spec is what the job asks for (its speech options, its chapters'
	// titles), as the runner wrote it.
	Spec []byte
	// Segments, Chars and Sentences are the job's totals; SegmentsDone,
	// CharsDone, SentencesDone and Audio how far it is. CharsDone and
	// SentencesDone count the segments done and, of those rendering, what
	// SegmentProgress reported.
	Segments, SegmentsDone   int
	Chars, CharsDone         int
	Sentences, SentencesDone int
	Audio                    time.Duration
	// Bytes is the audio the job holds in the store: its segments' and
	// its files'.
	Bytes int64
	Error string
	// ErrorCode is the failure's machine-readable code (FailJob), or "".
	ErrorCode string
	Created   time.Time
	// Started is when its first segment began rendering, Finished when
	// it ended; zero for not yet.
	Started, Finished time.Time
}

// JobSegment is one piece of a job's text, rendered on its own.
type JobSegment struct {
	Job     string
	Seq     int // from 0, in the text's order
	Chapter int // from 0
	Text    string
	// Sentences is how many sentences its text has (CreateJob sums them
	// into the job's).
	Sentences int
	// Done says its audio is kept: PCM, 16-bit little-endian mono at
	// Rate, and Words, its word timings as the runner wrote them.
	Done    bool
	Rate    int
	Samples int
	PCM     []byte
	Words   []byte
	// Renders counts the renderings begun (StartSegment).
	Renders int
}

// JobFile describes a result file of a job, kept in parts.
type JobFile struct {
	Job, Name, ContentType string
	Size                   int64
	Parts                  int
}

// JobLimits bound an account's jobs at their creation: Active, the most
// jobs queued or running, and Bytes, the most audio held by its jobs
// (0: none).
type JobLimits struct {
	Active int
	Bytes  int64
}

// Jobs keeps long-form jobs, their segments and their files (optional;
// the SQL stores have it). ErrNotFound for a job that does not exist, or
// that is not the account's when an account is given.
type Jobs interface {
	// CreateJob adds j (queued) and its segments in one transaction;
	// ErrLimit when the account is over lim.
	CreateJob(ctx context.Context, j Job, segs []JobSegment, lim JobLimits) error
	// Job returns the job id; account "" finds any account's.
	Job(ctx context.Context, account, id string) (Job, error)
	// ListJobs returns account's jobs, newest first, at most limit, those
	// created before the job after when it is not "".
	ListJobs(ctx context.Context, account, after string, limit int) ([]Job, error)
	// JobSegments returns a job's segments in order, their audio left
	// out unless audio is set.
	JobSegments(ctx context.Context, job string, audio bool) ([]JobSegment, error)
	// StartSegment counts a rendering of the segment begun and returns
	// it without its audio; it marks the job running.
	StartSegment(ctx context.Context, job string, seq int) (JobSegment, error)
	// FinishSegment keeps the segment's audio (once: a segment done
	// already is left as it is, and a job that ended keeps none) and adds
	// it to the job's progress. It returns the job's segments not done
	// yet.
	FinishSegment(ctx context.Context, s JobSegment, audio time.Duration) (left int, err error)
	// SegmentProgress counts what a segment rendering has done so far
	// (sentences and characters of its text) in its job's progress. The
	// counts only rise and stop at the segment's own; a done segment is
	// left as it is, and FinishSegment counts the rest.
	SegmentProgress(ctx context.Context, job string, seq, sentences, chars int) error
	// SetJobStatus moves a job whose status is one of from to status,
	// with msg as its error; it reports whether it did.
	SetJobStatus(ctx context.Context, id string, from []string, status, msg string) (bool, error)
	// FailJob ends a queued or running job as failed with code and msg
	// and removes all the audio it holds (its segments' and its files');
	// it reports whether it did.
	FailJob(ctx context.Context, id, code, msg string) (bool, error)
	// JobBytes is the audio all of account's jobs hold (Job.Bytes).
	JobBytes(ctx context.Context, account string) (int64, error)
	// JobSegment returns one segment with its audio.
	JobSegment(ctx context.Context, job string, seq int) (JobSegment, error)
	// PutJobFilePart keeps (or replaces) one part of a result file;
	// PutJobFile then describes the file, its parts from 0 to f.Parts-1
	// (others are dropped), and counts its size in the job's Bytes.
	PutJobFilePart(ctx context.Context, job, name string, part int, data []byte) error
	PutJobFile(ctx context.Context, f JobFile) error
	// JobFile describes a result file; JobFilePart reads one part.
	JobFile(ctx context.Context, job, name string) (JobFile, error)
	JobFilePart(ctx context.Context, job, name string, part int) ([]byte, error)
	// DropSegmentAudio frees the segments' audio of a finished job, and
	// for one cancelled or failed its result files too (a finishing
	// caught by its end wrote them).
	DropSegmentAudio(ctx context.Context, job string) error
	// DeleteJob deletes the account's job and all it holds.
	DeleteJob(ctx context.Context, account, id string) error
	// PendingSegments counts the segments not done of the jobs queued or
	// running, of every account: the queue's depth.
	PendingSegments(ctx context.Context) (int, error)
	// DeleteJobsBefore deletes the jobs that finished before t; it
	// returns how many.
	DeleteJobsBefore(ctx context.Context, t time.Time) (int, error)
}
