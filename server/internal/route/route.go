// Package route is the HTTP plumbing under every door: routing with a
// JSON 405 (Mux), the middleware every request goes through (Handle:
// request id, CORS, clean paths, panic recovery, access log, metrics
// hooks), the request info a door fills in (Info), errors returned by
// handlers and answered in one place (Fail), and request bodies read
// within their limits (ReadBody). It knows no door and no core: the core,
// the rooms beside it and the doors all call it.
package route

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/vocab"
	"github.com/voxkit/voxkit/server/store"
)

// Handler serves a route: it writes the answer, or returns the error to
// answer with — a *fault.Error as it is, any other error as a logged 500 —
// so that one place (fail) turns errors into responses.
type Handler func(http.ResponseWriter, *http.Request) error

// Methods maps HTTP methods to handlers for one path.
type Methods map[string]Handler

// Route registers path with its own method dispatch, so that a wrong
// method gets a JSON 405 with Allow rather than falling through to 404.
// Handler errors other than *fault.Error are logged to log.
func Route(mux *http.ServeMux, log *slog.Logger, path string, m Methods) {
	DoorRoute(mux, log, path, m, func(w http.ResponseWriter, _ *http.Request, e *fault.Error) { respond.WriteError(w, e) })
}

// DoorRoute is Route for a door that answers errors in a shape of its
// own (a vendor's): answer writes its 405.
func DoorRoute(mux *http.ServeMux, log *slog.Logger, path string, m Methods, answer func(http.ResponseWriter, *http.Request, *fault.Error)) {
	if get, ok := m[http.MethodGet]; ok {
		m[http.MethodHead] = get // net/http discards the body of a HEAD answer
	}
	allow := make([]string, 0, len(m))
	for k := range m {
		allow = append(allow, k)
	}
	slices.Sort(allow)
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		h, ok := m[r.Method]
		if !ok && r.Method == http.MethodOptions {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if !ok {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			answer(w, r, fault.MethodNotAllowed(r.Method, r.URL.Path, allow))
			return
		}
		Info(r.Context()).Route = path
		if err := h(w, r); err != nil {
			Fail(log, w, r, err)
		}
	})
}

// Request is what the middleware knows about a request, and what its
// door tells the access log and the metrics.
type Request struct {
	ID      string
	Start   time.Time
	Account string      // the admitted caller's
	Scope   store.Scope // what the caller's credentials allow
	Route   string      // the pattern it was routed by, "" for none
	Format  string      // the audio format of a speech request
	// Abort, if set, is why a response already under way (a socket
	// session) was cut: the access log reports it aborted.
	Abort error
}

type ctxKey struct{}

// GatewayCaller reports whether ctx's request comes from a gateway (a
// key of the gateway scope), whose one account speaks for all of the
// gateway's users: the limits a gateway counts itself for each of them
// (uploads, voice loads, engine crashes) do not count it.
func GatewayCaller(ctx context.Context) bool { return Info(ctx).Scope == store.ScopeGateway }

// Info is the Request of ctx (a fresh one outside the middleware).
func Info(ctx context.Context) *Request {
	if ri, ok := ctx.Value(ctxKey{}).(*Request); ok {
		return ri
	}
	return &Request{Start: time.Now()}
}

// With is ctx carrying ri as its request info (what Handle does for
// every request; tests call it too).
func With(ctx context.Context, ri *Request) context.Context {
	return context.WithValue(ctx, ctxKey{}, ri)
}

// RequestID returns the id of the request being served by ctx, "" outside
// a request. It is also sent as the x-request-id header.
func RequestID(ctx context.Context) string { return Info(ctx).ID }

// Observer is told of each request the middleware serves (the core's
// metrics): Begin as it starts, End and Served as it ends.
type Observer interface {
	Begin()
	End()
	Served(r *http.Request, ri *Request, status int, firstByte time.Time)
}

// Handle serves r with next inside the middleware: request id, CORS,
// clean paths, panic recovery, the access log (to log) and the request
// metrics (obs, nil for none).
func Handle(w http.ResponseWriter, r *http.Request, next http.Handler, log *slog.Logger, obs Observer) {
	ri := &Request{ID: requestID(r), Start: time.Now()}
	w.Header().Set("x-request-id", ri.ID)
	if cors(w, r) {
		return
	}
	r, clean := cleanPath(r)
	rec := &recorder{ResponseWriter: w}
	r = r.WithContext(With(r.Context(), ri))
	if obs != nil {
		obs.Begin()
	}
	defer func() {
		p := recover()
		abort := p == http.ErrAbortHandler
		if p != nil && !abort {
			log.Error("server: panic", "request_id", ri.ID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if rec.status == 0 {
				respond.WriteError(rec, fault.Internal(ri.ID))
			} else {
				abort = true // too late for a status: cut the response
			}
		}
		status := rec.status
		if abort && status == 0 {
			status = http.StatusInternalServerError
		}
		// A response the client did not get whole: a write failed (the
		// write deadline passed, the connection broke) or the client went
		// away before the handler finished.
		cut := rec.writeErr != nil || r.Context().Err() != nil || ri.Abort != nil
		if cut && status == 0 {
			status = statusClientClosed
		}
		attrs := []any{"request_id", ri.ID, "method", r.Method, "path", r.URL.Path, "status", status,
			"bytes", rec.bytes, "ms", MS(time.Since(ri.Start)), "account", ri.Account, "aborted", abort || cut}
		if cut {
			cause := context.Cause(r.Context())
			switch {
			case rec.writeErr != nil:
				cause = rec.writeErr
			case ri.Abort != nil:
				cause = ri.Abort
			}
			attrs = append(attrs, "abort_reason", cause.Error())
		}
		level := slog.LevelInfo
		if probe(r) {
			level = slog.LevelDebug
		}
		log.Log(context.Background(), level, "request", attrs...)
		if obs != nil {
			obs.End()
			obs.Served(r, ri, status, rec.firstByte)
		}
		if abort {
			panic(http.ErrAbortHandler)
		}
	}()
	if !clean {
		respond.WriteError(rec, fault.NotFound(r.Method, r.URL.EscapedPath()))
		return
	}
	next.ServeHTTP(rec, r)
}

// cors lets pages on other origins call the API, as OpenAI's does: the
// credential is a bearer key, never a cookie, so any origin is safe. It
// answers a preflight request itself and reports whether it did.
func cors(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Origin") == "" {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "x-request-id, x-upstream-ms, x-engine-ms, x-gateway-ms, x-voice-load-ms, x-ignored-tags, x-clamped-tags")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE")
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		h.Set("Access-Control-Allow-Headers", req)
	}
	h.Set("Access-Control-Max-Age", "86400")
	h.Add("Vary", "Access-Control-Request-Headers")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// cleanPath serves "//v1/audio/speech" as its clean form instead of
// letting ServeMux answer it with a bodiless redirect. ok is false for a
// path with a dot segment ("/v1/audio/speech/../../keys", "/v1/./models")
// or an encoded slash, backslash or dot ("%2F", "%5C", "%2E"): resolved,
// those would name another route than the one a proxy in front, which
// routes on the path as sent, allowed ("/v1/audio/speech/../../keys" is
// not /v1/keys). Such a path names no route: 404.
func cleanPath(r *http.Request) (_ *http.Request, ok bool) {
	if raw := strings.ToLower(r.URL.EscapedPath()); strings.Contains(raw, "%2f") ||
		strings.Contains(raw, "%5c") || strings.Contains(raw, "%2e") {
		return r, false
	}
	p := r.URL.Path
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "." || seg == ".." {
			return r, false
		}
	}
	c := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	if c == p {
		return r, true
	}
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = c, ""
	r2.URL = &u
	return r2, true
}

// requestID takes the client's X-Request-Id when it is short and plain,
// else makes one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 128 && strings.Trim(id,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") == "" {
		return id
	}
	var b [12]byte
	rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}

// statusClientClosed is logged for a request whose client went away
// before any response was sent (nginx's 499); it is never sent.
const statusClientClosed = 499

// recorder notes the status and size of a response, and the first write
// that failed. Unwrap lets http.ResponseController and the WebSocket
// upgrade reach the connection.
type recorder struct {
	http.ResponseWriter
	status    int
	bytes     int64
	writeErr  error
	firstByte time.Time // of the body
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.firstByte.IsZero() && len(p) > 0 {
		r.firstByte = time.Now()
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	return n, err
}

func (r *recorder) Flush() { r.FlushError() }

// FlushError flushes, noting a failure like a failed write; the
// ResponseController of a handler calls it.
func (r *recorder) FlushError() error {
	err := http.NewResponseController(r.ResponseWriter).Flush()
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	return err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// MS formats a duration as milliseconds with microsecond precision, the
// form of x-upstream-ms and x-gateway-ms.
func MS(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}

// probe reports whether r is a health check: GET /healthz or /readyz, or
// a request marked with vocab.HeaderProbe (a gateway's).
func probe(r *http.Request) bool {
	return r.Method == http.MethodGet && (r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || r.Header.Get(vocab.HeaderProbe) != "")
}

// Fail answers err: a *fault.Error as it is, anything else as a 500 whose
// cause is logged with the request id.
func Fail(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	respond.WriteError(w, ErrorOf(log, r, err))
}

// ErrorOf is err as a *fault.Error for a door to shape: the server's own
// errors are logged and become a 500.
func ErrorOf(log *slog.Logger, r *http.Request, err error) *fault.Error {
	var we *fault.Error
	if errors.As(err, &we) {
		return we
	}
	log.Error("server: internal error", "request_id", RequestID(r.Context()), "err", err)
	return fault.Internal(RequestID(r.Context()))
}

// Body is the bounds of a request body: the server's Options.MaxBody
// and Options.ReadTimeout.
type Body struct {
	Max     int64         // bytes of a JSON body
	Timeout time.Duration // for a body to arrive; 0 or less: none
}

// ReadBody reads a JSON request body within b.
func (b Body) ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, *fault.Error) {
	return ReadBody(w, r, b.Max, b.Timeout, "application/json")
}

// ReadBodyOf reads a request body of one of the media types (or of none
// named) within max bytes and b's timeout.
func (b Body) ReadBodyOf(w http.ResponseWriter, r *http.Request, max int64, mediaTypes ...string) ([]byte, *fault.Error) {
	return ReadBody(w, r, max, b.Timeout, mediaTypes...)
}

// ReadBody reads a request body of one of the media types (or of none
// named) within max bytes and timeout (0 or less: none).
func ReadBody(w http.ResponseWriter, r *http.Request, max int64, timeout time.Duration, mediaTypes ...string) ([]byte, *fault.Error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || !slices.Contains(mediaTypes, mt) {
			return nil, fault.UnsupportedMediaTypeOf(ct, mediaTypes[0])
		}
	}
	// A per-request deadline, lifted once the body is in: an http.Server
	// ReadTimeout would also cut long streamed responses (its background
	// read cancels the request context). After a failed read it stays, so
	// the connection is not held open by the rest of a slow body.
	rc := http.NewResponseController(w)
	deadline := timeout > 0 && rc.SetReadDeadline(time.Now().Add(timeout)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		w.Header().Set("Connection", "close")
	} else if deadline {
		rc.SetReadDeadline(time.Time{})
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, fault.BodyTooLarge(max)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, fault.RequestTimeout(timeout)
	case err != nil:
		return nil, fault.BadRequest(fault.CodeInvalidJSON, "", "The request body could not be read: %v.", err)
	}
	return body, nil
}
