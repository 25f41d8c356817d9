package respond

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
)

// WriteError sends e as JSON with its status, and e.RetryAfter.
func WriteError(w http.ResponseWriter, e *fault.Error) {
	SetRetryAfter(w.Header(), e.RetryAfter)
	WriteJSON(w, e.Status, e)
}

// SetRetryAfter sets the Retry-After header of an error that has one
// (fault.Error.RetryAfter), in whole seconds rounded up: every door's
// error answers carry it.
func SetRetryAfter(h http.Header, after time.Duration) {
	if after > 0 {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(after.Seconds()))))
	}
}

// WriteJSON sends v as JSON with status, never cached.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("server: " + err.Error()) // our own types always marshal
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
