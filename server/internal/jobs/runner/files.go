package runner

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/voxkit/voxkit/server/store"
)

// OpenFile reads a result file f from jobs part by part, seeking
// (http.ServeContent's Range).
func OpenFile(ctx context.Context, jobs store.Jobs, f store.JobFile) io.ReadSeeker {
	return &parts{ctx: ctx, jobs: jobs, f: f, loaded: -1}
}

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
	i := int(p.off / PartSize)
	if i != p.loaded {
		data, err := p.jobs.JobFilePart(p.ctx, p.f.Job, p.f.Name, i)
		if err != nil {
			return 0, err
		}
		p.data, p.loaded = data, i
	}
	at := p.off - int64(i)*PartSize
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
