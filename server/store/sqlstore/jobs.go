package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

// JobStore keeps long-form jobs, their segments and their result files.
type JobStore struct{ db *db }

var _ store.Jobs = (*JobStore)(nil)

const jobColumns = `id, account, status, spec, segments, segments_done, chars, chars_done, audio_ms, bytes, error, created, started, finished,
	sentences, sentences_done, error_code`

// when is t as the database keeps an optional time: zero is 0 or NULL.
func (s *JobStore) when(t time.Time) any {
	if t.IsZero() && !s.db.d.UnixMillis {
		return nil
	}
	return s.db.d.time(t)
}

func scanJob(r scanner) (store.Job, error) {
	var j store.Job
	var ms int64
	err := r.Scan(&j.ID, &j.Account, &j.Status, &j.Spec, &j.Segments, &j.SegmentsDone, &j.Chars, &j.CharsDone, &ms, &j.Bytes, &j.Error,
		timeDest{&j.Created}, timeDest{&j.Started}, timeDest{&j.Finished}, &j.Sentences, &j.SentencesDone, &j.ErrorCode)
	j.Audio = time.Duration(ms) * time.Millisecond
	return j, err
}

// CreateJob implements store.Jobs.
func (s *JobStore) CreateJob(ctx context.Context, j store.Job, segs []store.JobSegment, lim store.JobLimits) error {
	return s.db.inTx(ctx, "create job", func(tx q) error {
		if err := lockAccount(ctx, tx, j.Account); err != nil {
			return err
		}
		ok, err := below(ctx, tx, lim.Active, "SELECT count(*) FROM jobs WHERE account = ? AND status IN ('queued', 'running')", j.Account)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %d jobs queued or running", store.ErrLimit, lim.Active)
		}
		if lim.Bytes > 0 {
			held, err := jobBytes(ctx, tx, j.Account)
			if err != nil {
				return err
			}
			if held >= lim.Bytes {
				return fmt.Errorf("%w: jobs hold %d bytes of audio", store.ErrLimit, held)
			}
		}
		sentences := 0
		for _, sg := range segs {
			sentences += sg.Sentences
		}
		if _, err := tx.exec(ctx, `INSERT INTO jobs(id, account, status, spec, segments, segments_done, chars, chars_done, audio_ms, bytes, error, created, started, finished,
			sentences, sentences_done, error_code)
			VALUES(?, ?, ?, ?, ?, 0, ?, 0, 0, 0, '', ?, ?, ?, ?, 0, '')`, j.ID, j.Account, store.JobQueued, j.Spec, len(segs), j.Chars,
			tx.d.time(j.Created), s.when(time.Time{}), s.when(time.Time{}), sentences); err != nil {
			return err
		}
		for _, sg := range segs {
			if _, err := tx.exec(ctx, `INSERT INTO job_segments(job, seq, chapter, text, done, rate, samples, renders, sentences, sentences_done, chars_done)
				VALUES(?, ?, ?, ?, ?, 0, 0, 0, ?, 0, 0)`, j.ID, sg.Seq, sg.Chapter, sg.Text, false, sg.Sentences); err != nil {
				return err
			}
		}
		return nil
	})
}

// Job implements store.Jobs.
func (s *JobStore) Job(ctx context.Context, account, id string) (store.Job, error) {
	if !s.db.d.storable(account, id) {
		return store.Job{}, fmt.Errorf("%w: job %q", store.ErrNotFound, id)
	}
	query, args := "SELECT "+jobColumns+" FROM jobs WHERE id = ?", []any{id}
	if account != "" {
		query, args = query+" AND account = ?", append(args, account)
	}
	j, err := scanJob(s.db.q().row(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Job{}, fmt.Errorf("%w: job %q", store.ErrNotFound, id)
	}
	if err != nil {
		return store.Job{}, fmt.Errorf("store: job: %w", err)
	}
	return j, nil
}

// ListJobs implements store.Jobs.
func (s *JobStore) ListJobs(ctx context.Context, account, after string, limit int) ([]store.Job, error) {
	if !s.db.d.storable(account, after) {
		return nil, nil
	}
	query, args := "SELECT "+jobColumns+" FROM jobs WHERE account = ?", []any{account}
	if after != "" {
		query += " AND (created, id) < (SELECT created, id FROM jobs WHERE id = ? AND account = ?)"
		args = append(args, after, account)
	}
	rows, err := s.db.q().rows(ctx, query+" ORDER BY created DESC, id DESC LIMIT ?", append(args, limit)...)
	jobs, err := collect(rows, err, scanJob)
	if err != nil {
		return nil, fmt.Errorf("store: list jobs: %w", err)
	}
	return jobs, nil
}

// JobSegments implements store.Jobs.
func (s *JobStore) JobSegments(ctx context.Context, job string, audio bool) ([]store.JobSegment, error) {
	cols := "seq, chapter, text, done, rate, samples, renders"
	if audio {
		cols += ", pcm, words"
	}
	rows, err := s.db.q().rows(ctx, "SELECT "+cols+" FROM job_segments WHERE job = ? ORDER BY seq", job)
	segs, err := collect(rows, err, func(r scanner) (store.JobSegment, error) {
		sg := store.JobSegment{Job: job}
		dest := []any{&sg.Seq, &sg.Chapter, &sg.Text, &sg.Done, &sg.Rate, &sg.Samples, &sg.Renders}
		if audio {
			dest = append(dest, &sg.PCM, &sg.Words)
		}
		return sg, r.Scan(dest...)
	})
	if err != nil {
		return nil, fmt.Errorf("store: job segments: %w", err)
	}
	return segs, nil
}

// StartSegment implements store.Jobs.
func (s *JobStore) StartSegment(ctx context.Context, job string, seq int) (store.JobSegment, error) {
	sg := store.JobSegment{Job: job, Seq: seq}
	err := s.db.inTx(ctx, "start segment", func(tx q) error {
		now := s.when(s.db.stamp())
		if _, err := tx.exec(ctx, "UPDATE jobs SET status = 'running', started = ? WHERE id = ? AND status = 'queued'", now, job); err != nil {
			return err
		}
		res, err := tx.exec(ctx, "UPDATE job_segments SET renders = renders + 1 WHERE job = ? AND seq = ? AND done = ?", job, seq, false)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			sg.Done = true // or gone: either way, nothing to render
		}
		err = tx.row(ctx, "SELECT chapter, text, done, renders, sentences FROM job_segments WHERE job = ? AND seq = ?", job, seq).
			Scan(&sg.Chapter, &sg.Text, &sg.Done, &sg.Renders, &sg.Sentences)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: segment %d of job %q", store.ErrNotFound, seq, job)
		}
		return err
	})
	return sg, err
}

// FinishSegment implements store.Jobs.
func (s *JobStore) FinishSegment(ctx context.Context, sg store.JobSegment, audio time.Duration) (int, error) {
	var left int
	err := s.db.inTx(ctx, "finish segment", func(tx q) error {
		// What SegmentProgress counted of it already is in the job's: the
		// update returns it as it was, the row locked. A job that ended
		// (cancelled, failed and its audio removed) keeps no more.
		var sentences, sentencesDone, charsDone int
		err := tx.row(ctx, `UPDATE job_segments SET done = ?, rate = ?, samples = ?, pcm = ?, words = ? WHERE job = ? AND seq = ? AND done = ?
			AND EXISTS (SELECT 1 FROM jobs WHERE id = ? AND status IN ('queued', 'running'))
			RETURNING sentences, sentences_done, chars_done`, true, sg.Rate, sg.Samples, sg.PCM, sg.Words, sg.Job, sg.Seq, false, sg.Job).
			Scan(&sentences, &sentencesDone, &charsDone)
		switch {
		case errors.Is(err, sql.ErrNoRows): // done already, its job ended, or gone
		case err != nil:
			return err
		default:
			chars := len([]rune(sg.Text))
			if _, err := tx.exec(ctx, "UPDATE job_segments SET sentences_done = ?, chars_done = ? WHERE job = ? AND seq = ?", sentences, chars, sg.Job, sg.Seq); err != nil {
				return err
			}
			if _, err := tx.exec(ctx, `UPDATE jobs SET segments_done = segments_done + 1, chars_done = chars_done + ?,
				sentences_done = sentences_done + ?, audio_ms = audio_ms + ?, bytes = bytes + ? WHERE id = ?`,
				chars-charsDone, sentences-sentencesDone, audio.Milliseconds(), len(sg.PCM)+len(sg.Words), sg.Job); err != nil {
				return err
			}
		}
		return tx.row(ctx, "SELECT count(*) FROM job_segments WHERE job = ? AND done = ?", sg.Job, false).Scan(&left)
	})
	return left, err
}

// SegmentProgress implements store.Jobs.
func (s *JobStore) SegmentProgress(ctx context.Context, job string, seq, sentences, chars int) error {
	return s.db.inTx(ctx, "segment progress", func(tx q) error {
		// The no-op update locks the row (FinishSegment's may not slip in).
		var total, text, sentencesDone, charsDone int
		err := tx.row(ctx, `UPDATE job_segments SET renders = renders WHERE job = ? AND seq = ? AND done = ?
			RETURNING sentences, length(text), sentences_done, chars_done`, job, seq, false).
			Scan(&total, &text, &sentencesDone, &charsDone)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // done, or gone
		}
		if err != nil {
			return err
		}
		sentences, chars = max(sentencesDone, min(sentences, total)), max(charsDone, min(chars, text))
		if sentences == sentencesDone && chars == charsDone {
			return nil
		}
		if _, err := tx.exec(ctx, "UPDATE job_segments SET sentences_done = ?, chars_done = ? WHERE job = ? AND seq = ?", sentences, chars, job, seq); err != nil {
			return err
		}
		_, err = tx.exec(ctx, "UPDATE jobs SET sentences_done = sentences_done + ?, chars_done = chars_done + ? WHERE id = ?",
			sentences-sentencesDone, chars-charsDone, job)
		return err
	})
}

// SetJobStatus implements store.Jobs.
func (s *JobStore) SetJobStatus(ctx context.Context, id string, from []string, status, msg string) (bool, error) {
	finished := time.Time{}
	if store.JobFinished(status) {
		finished = s.db.stamp()
	}
	args := []any{status, msg, s.when(finished), id}
	for _, f := range from {
		args = append(args, f)
	}
	in := strings.TrimSuffix(strings.Repeat("?, ", len(from)), ", ")
	res, err := s.db.q().exec(ctx, "UPDATE jobs SET status = ?, error = ?, finished = ? WHERE id = ? AND status IN ("+in+")", args...)
	if err != nil {
		return false, fmt.Errorf("store: job status: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// FailJob implements store.Jobs.
func (s *JobStore) FailJob(ctx context.Context, id, code, msg string) (bool, error) {
	var ok bool
	err := s.db.inTx(ctx, "fail job", func(tx q) error {
		res, err := tx.exec(ctx, "UPDATE jobs SET status = ?, error = ?, error_code = ?, finished = ?, bytes = 0 WHERE id = ? AND status IN ('queued', 'running')",
			store.JobFailed, msg, code, s.when(s.db.stamp()), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		ok = true
		for _, stmt := range []string{"UPDATE job_segments SET pcm = NULL, words = NULL WHERE job = ?",
			"DELETE FROM job_file_parts WHERE job = ?", "DELETE FROM job_files WHERE job = ?"} {
			if _, err := tx.exec(ctx, stmt, id); err != nil {
				return err
			}
		}
		return nil
	})
	return ok, err
}

// JobBytes implements store.Jobs.
func (s *JobStore) JobBytes(ctx context.Context, account string) (int64, error) {
	n, err := jobBytes(ctx, s.db.q(), account)
	if err != nil {
		return 0, fmt.Errorf("store: job bytes: %w", err)
	}
	return n, nil
}

// jobBytes is the audio account's jobs hold.
func jobBytes(ctx context.Context, tx q, account string) (int64, error) {
	var n int64
	err := tx.row(ctx, "SELECT coalesce(sum(bytes), 0) FROM jobs WHERE account = ?", account).Scan(&n)
	return n, err
}

// JobSegment implements store.Jobs.
func (s *JobStore) JobSegment(ctx context.Context, job string, seq int) (store.JobSegment, error) {
	sg := store.JobSegment{Job: job, Seq: seq}
	err := s.db.q().row(ctx, "SELECT chapter, text, done, rate, samples, renders, pcm, words FROM job_segments WHERE job = ? AND seq = ?", job, seq).
		Scan(&sg.Chapter, &sg.Text, &sg.Done, &sg.Rate, &sg.Samples, &sg.Renders, &sg.PCM, &sg.Words)
	if errors.Is(err, sql.ErrNoRows) {
		return sg, fmt.Errorf("%w: segment %d of job %q", store.ErrNotFound, seq, job)
	}
	if err != nil {
		return sg, fmt.Errorf("store: job segment: %w", err)
	}
	return sg, nil
}

// PutJobFilePart implements store.Jobs.
func (s *JobStore) PutJobFilePart(ctx context.Context, job, name string, part int, data []byte) error {
	_, err := s.db.q().exec(ctx, `INSERT INTO job_file_parts(job, name, part, data) VALUES(?, ?, ?, ?)
		ON CONFLICT (job, name, part) DO UPDATE SET data = excluded.data`, job, name, part, data)
	if err != nil {
		return fmt.Errorf("store: put job file part: %w", err)
	}
	return nil
}

// PutJobFile implements store.Jobs.
func (s *JobStore) PutJobFile(ctx context.Context, f store.JobFile) error {
	return s.db.inTx(ctx, "put job file", func(tx q) error {
		var old int64
		err := tx.row(ctx, "SELECT size FROM job_files WHERE job = ? AND name = ?", f.Job, f.Name).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if _, err := tx.exec(ctx, "DELETE FROM job_file_parts WHERE job = ? AND name = ? AND part >= ?", f.Job, f.Name, f.Parts); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `INSERT INTO job_files(job, name, content_type, size, parts) VALUES(?, ?, ?, ?, ?)
			ON CONFLICT (job, name) DO UPDATE SET content_type = excluded.content_type, size = excluded.size, parts = excluded.parts`,
			f.Job, f.Name, f.ContentType, f.Size, f.Parts); err != nil {
			return err
		}
		_, err = tx.exec(ctx, "UPDATE jobs SET bytes = bytes + ? WHERE id = ?", f.Size-old, f.Job)
		return err
	})
}

// JobFile implements store.Jobs.
func (s *JobStore) JobFile(ctx context.Context, job, name string) (store.JobFile, error) {
	f := store.JobFile{Job: job, Name: name}
	err := s.db.q().row(ctx, "SELECT content_type, size, parts FROM job_files WHERE job = ? AND name = ?", job, name).
		Scan(&f.ContentType, &f.Size, &f.Parts)
	if errors.Is(err, sql.ErrNoRows) {
		return f, fmt.Errorf("%w: file %q of job %q", store.ErrNotFound, name, job)
	}
	if err != nil {
		return f, fmt.Errorf("store: job file: %w", err)
	}
	return f, nil
}

// JobFilePart implements store.Jobs.
func (s *JobStore) JobFilePart(ctx context.Context, job, name string, part int) ([]byte, error) {
	var data []byte
	err := s.db.q().row(ctx, "SELECT data FROM job_file_parts WHERE job = ? AND name = ? AND part = ?", job, name, part).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: part %d of file %q of job %q", store.ErrNotFound, part, name, job)
	}
	if err != nil {
		return nil, fmt.Errorf("store: job file part: %w", err)
	}
	return data, nil
}

// DropSegmentAudio implements store.Jobs.
func (s *JobStore) DropSegmentAudio(ctx context.Context, job string) error {
	return s.db.inTx(ctx, "drop segment audio", func(tx q) error {
		var held int64
		if err := tx.row(ctx, "SELECT coalesce(sum(coalesce(length(pcm), 0) + coalesce(length(words), 0)), 0) FROM job_segments WHERE job = ?", job).Scan(&held); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, "UPDATE job_segments SET pcm = NULL, words = NULL WHERE job = ?", job); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, "UPDATE jobs SET bytes = bytes - ? WHERE id = ?", held, job); err != nil {
			return err
		}
		// A job that ended without results keeps none of the files a
		// finishing caught by its end wrote.
		var status string
		switch err := tx.row(ctx, "SELECT status FROM jobs WHERE id = ?", job).Scan(&status); {
		case errors.Is(err, sql.ErrNoRows):
			return nil
		case err != nil:
			return err
		case status != store.JobCancelled && status != store.JobFailed:
			return nil
		}
		for _, stmt := range []string{"DELETE FROM job_file_parts WHERE job = ?", "DELETE FROM job_files WHERE job = ?", "UPDATE jobs SET bytes = 0 WHERE id = ?"} {
			if _, err := tx.exec(ctx, stmt, job); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteJob implements store.Jobs.
func (s *JobStore) DeleteJob(ctx context.Context, account, id string) error {
	if !s.db.d.storable(account, id) {
		return fmt.Errorf("%w: job %q", store.ErrNotFound, id)
	}
	res, err := s.db.q().exec(ctx, "DELETE FROM jobs WHERE id = ? AND account = ?", id, account)
	if err != nil {
		return fmt.Errorf("store: delete job: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: job %q", store.ErrNotFound, id)
	}
	return nil
}

// PendingSegments implements store.Jobs.
func (s *JobStore) PendingSegments(ctx context.Context) (int, error) {
	var n int
	err := s.db.q().row(ctx, `SELECT count(*) FROM job_segments s JOIN jobs j ON j.id = s.job
		WHERE j.status IN ('queued', 'running') AND s.done = ?`, false).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: pending segments: %w", err)
	}
	return n, nil
}

// DeleteJobsBefore implements store.Jobs.
func (s *JobStore) DeleteJobsBefore(ctx context.Context, t time.Time) (int, error) {
	d := s.db.d
	res, err := s.db.q().exec(ctx, "DELETE FROM jobs WHERE NOT ("+d.none("finished")+") AND finished < ?", d.time(t))
	if err != nil {
		return 0, fmt.Errorf("store: delete jobs: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
