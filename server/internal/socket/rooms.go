package socket

import (
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/sockets"
	"github.com/voxkit/voxkit/tts"
)

// Rooms are what the door uses of the core, the socket runtime and the
// rooms beside them, each as narrow an interface as the socket needs.
type Rooms struct {
	Speech  Speech
	Sockets *sockets.Runtime
	Auth    Auth
	Voices  Voices
	Log     *slog.Logger
}

// Speech is what the door asks of the core.
type Speech interface {
	Speak(ctx context.Context, job core.Job, speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) (tts.Result, error)
	Open(ctx context.Context, job core.StreamJob, w io.Writer) (*core.Input, error)
}

// Auth is what the door asks of the credentials room.
type Auth interface {
	Admit(r *http.Request) (credentials.Caller, *fault.Error)
	HasHost() bool
	SessionToken(r *http.Request) string
}

// Voices is what the door asks of the catalog room.
type Voices interface {
	Resolve(account, name string) string
}
