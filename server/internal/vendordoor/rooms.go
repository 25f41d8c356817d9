// Package vendordoor holds what the doors of other vendors' protocols
// (ElevenLabs', Cartesia's) ask of the core, the socket runtime and the
// rooms beside them: one set of narrow interfaces, since both doors do the
// same things (speak over HTTP and sockets, admit by a vendor's key, look
// up and clone voices, keep the account's lexicons as the vendor's
// pronunciation dictionaries). A door takes a Rooms, never the core.
package vendordoor

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/server/internal/catalog"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/sockets"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/normalize"
	"github.com/voxkit/voxkit/voices"
)

// Rooms are what a vendor's door uses of the core, the socket runtime and
// the rooms beside them, each as narrow an interface as its routes need.
type Rooms struct {
	Speech   Speech
	Sockets  *sockets.Runtime
	Auth     Auth
	Voices   Voices
	Lexicons Lexicons
	// Store is the server's store, nil for none: the routes of clones
	// and dictionaries are mounted only over one that keeps them.
	Store store.Store
	Log   *slog.Logger
	Body  route.Body
}

// Speech is what a vendor's door asks of the core.
type Speech interface {
	SpeakHTTP(r *http.Request, job core.Job, late func(*fault.Error), speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) *fault.Error
	Lazy(w http.ResponseWriter, start func()) *respond.Lazy
	Normalizer(req tts.Request) func(string) (normalize.Text, bool)
}

// Auth is what a vendor's door asks of the credentials room: admission
// by the vendor's key header, and whether a host application signs its
// users in (ElevenLabs' user route answers by it).
type Auth interface {
	AdmitVendor(r *http.Request, key string, need store.Scope) (string, *fault.Error)
	HasHost() bool
}

// Voices is what a vendor's door asks of the catalog room.
type Voices interface {
	Voice(account, name string) (voices.Voice, *fault.Error)
	Resolve(account, name string) string
	List(account string) []voices.Voice
	CloneUpload(w http.ResponseWriter, r *http.Request, account string, f catalog.Form) (store.Voice, error)
	DropVoice(ctx context.Context, account, id string) (store.Voice, error)
}

// Lexicons is what a vendor's door asks of the lexicons room: the
// account's lexicons, which both vendors call pronunciation dictionaries.
type Lexicons interface {
	CreateLexicon(ctx context.Context, account, name string, l *lexicon.Lexicon, pls []byte) (store.Lexicon, *fault.Error)
	ReviseLexicon(ctx context.Context, account, id string, revise func(*lexicon.Lexicon) (*lexicon.Lexicon, *fault.Error)) (store.Lexicon, *fault.Error)
	StoredLexicon(ctx context.Context, account, id, version string) (store.Lexicon, *lexicon.Lexicon, *fault.Error)
	ListLexicons(ctx context.Context, account string) ([]store.Lexicon, *fault.Error)
	DeleteLexicon(ctx context.Context, account, id string) (store.Lexicon, *fault.Error)
}
