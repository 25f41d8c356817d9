package catalog

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/vocab"
)

// Uploads: a recording to clone arrives in a multipart body of up to
// vocab.MaxRecording bytes, held in memory until it is whole. So that a
// client sending it slowly, or stopping short, cannot hold a connection
// and its memory, the body must arrive within c.ReadTimeout (a 408
// beyond, in the door's shape); and an account has at most c.MaxUploads
// uploads in hand at once on a server, on all doors together (a 429 with
// Retry-After beyond, before its body is read).

// uploadRetry is the Retry-After of an upload over the account's
// uploads at once: one of them may end at any time.
const uploadRetry = 2 * time.Second

// uploads counts the uploads in hand per account.
type uploads struct {
	mu sync.Mutex
	n  map[string]int
}

// beginUpload takes one of account's c.MaxUploads upload slots, and
// returns the function that gives it back. A caller of the gateway scope
// takes none: a gateway bounds its own accounts' uploads, and sends each
// recording whole, for all of them as one account.
func (c *Catalog) beginUpload(r *http.Request, account string) (end func(), werr *fault.Error) {
	if c.MaxUploads <= 0 || route.GatewayCaller(r.Context()) {
		return func() {}, nil
	}
	u := &c.uploads
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n[account] >= c.MaxUploads {
		return nil, &fault.Error{Status: http.StatusTooManyRequests, Type: fault.TypeRateLimit, Code: fault.CodeRateLimit,
			Message: fmt.Sprintf("Too many uploads at once: at most %d recordings per account may be uploading or cloning at a time; "+
				"retry when one ends.", c.MaxUploads), RetryAfter: uploadRetry}
	}
	if u.n == nil {
		u.n = make(map[string]int)
	}
	u.n[account]++
	var once sync.Once
	return func() {
		once.Do(func() {
			u.mu.Lock()
			defer u.mu.Unlock()
			if u.n[account]--; u.n[account] == 0 {
				delete(u.n, account)
			}
		})
	}, nil
}

// readUpload reads r's multipart body of the form f within the body
// limit and c.ReadTimeout: a read deadline lifted once the body is in.
// When the body is cut short (too large, too slow) the connection is
// closed after the answer, so that the rest of the body holds nothing.
func (c *Catalog) readUpload(w http.ResponseWriter, r *http.Request, f Form) (vocab.Clone, error) {
	limit := int64(vocab.MaxRecording + 1<<20)
	rc := http.NewResponseController(w)
	deadline := c.ReadTimeout > 0 && rc.SetReadDeadline(time.Now().Add(c.ReadTimeout)) == nil
	body := &failedRead{r: http.MaxBytesReader(w, r.Body, limit)}
	r.Body = struct {
		io.Reader
		io.Closer
	}{body, r.Body}
	mr, err := r.MultipartReader()
	if err != nil {
		return vocab.Clone{}, fault.BadRequest(fault.CodeInvalidValue, "", "The body is not well-formed multipart/form-data: %s.", err)
	}
	req, err := f.Parse(mr)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(body.err, &tooBig):
		w.Header().Set("Connection", "close")
		return vocab.Clone{}, fault.BodyTooLarge(tooBig.Limit)
	case errors.Is(body.err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		return vocab.Clone{}, fault.RequestTimeout(c.ReadTimeout)
	case body.err != nil:
		w.Header().Set("Connection", "close")
	case deadline:
		rc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		return vocab.Clone{}, fault.ToError(err, "")
	}
	return req, nil
}

// failedRead notes the first error of its reader other than io.EOF: the
// multipart reader reports a failed read in words only.
type failedRead struct {
	r   io.Reader
	err error
}

func (b *failedRead) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

// Form reads a door's multipart body that clones a voice from a
// recording (server/wire's CloneForm, in each door's field names).
type Form interface {
	Parse(*multipart.Reader) (vocab.Clone, error)
}
