package core

import (
	"context"
	"time"

	"github.com/voxkit/voxkit/server/internal/lexicons"
	"github.com/voxkit/voxkit/server/internal/route"
)

// The names of package route the socket runtime (socket.go,
// internal/socket) still calls by the core's name; the doors and the
// rooms call route's own. They go once that runtime is rewritten (issue
// 41 point 2).
type (
	Request = route.Request
	Handler = route.Handler
	Methods = route.Methods
)

// Info is route.Info.
func Info(ctx context.Context) *Request { return route.Info(ctx) }

// RequestID is route.RequestID.
func RequestID(ctx context.Context) string { return route.RequestID(ctx) }

// LexiconRef is the type of Job.Lexicons.
type LexiconRef = lexicons.LexiconRef

// RefsOf is lexicons.RefsOf.
func RefsOf(ids []string) []LexiconRef { return lexicons.RefsOf(ids) }

// MS is route.MS.
func MS(d time.Duration) string { return route.MS(d) }
