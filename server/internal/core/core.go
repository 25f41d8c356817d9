// Package core is the speech core under every door of the server: the
// lifecycle a request goes through between the door that speaks its
// client's protocol and the synthesizer, written once.
//
//   - admission: the account's limits, the render queue, the crash
//     cooldown and voice loads (AdmitSpeech), and an open socket's
//     credentials checked again (Guard, asking the credentials room);
//   - speech: a whole input (Speak) or an input stream (Open, Input.Run),
//     with the buffer delay, chunk schedule, flushes, idle time and word
//     alignment (Aligner);
//   - the way out: HTTP writers with a write deadline per write (Lazy),
//     timing headers and trailers (SetTiming), the contexts of a socket
//     (ContextSet; the socket runtime is server/internal/sockets) and the
//     metrics.
//
// Beside it are rooms of their own, which the core makes (New) and the
// doors are handed: the voices and clones (package catalog, Core.Catalog),
// the lexicons (package lexicons, Core.Lexicons), the credentials
// (package credentials, Core.Auth); HTTP plumbing is package route.
//
// A door (OpenAI's, ElevenLabs', Cartesia's, Wyoming's, the socket, the
// administration) translates its requests into core calls and the core's
// results and *fault.Error values into its own shapes. It never imports
// another door, nor package server, which assembles them.
package core

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/voxkit/voxkit/server/internal/catalog"
	"github.com/voxkit/voxkit/server/internal/credentials"
	"github.com/voxkit/voxkit/server/internal/lexicons"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/internal/throttle"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/tts"
)

// Config is what the core is made of: package server resolves its
// Options, defaults applied, into it.
type Config struct {
	Synth *tts.Synthesizer
	// Store holds accounts, keys and clones; nil: there are none.
	Store store.Store
	// Host is the host application's own sign-in (server's
	// Options.Authenticate); nil if none.
	Host func(*http.Request) (string, error)
	// Aliases maps extra voice names to catalog voice ids.
	Aliases map[string]string
	// DefaultFormat is the response_format of an OpenAI speech request
	// naming none; empty: the OpenAI door's own default (wav).
	DefaultFormat string
	Log           *slog.Logger

	MaxBody      int64
	ReadTimeout  time.Duration // 0 or less: none
	WriteTimeout time.Duration // 0 or less: none
	KeyCheck     time.Duration
	// SocketIdle ends a socket that has had no message and no work for
	// that long.
	SocketIdle time.Duration
	SocketAuth time.Duration // for a socket opened without credentials to send them
	RecheckGap time.Duration // between checks of an open socket's credentials
	MaxVoices  int           // clones per account
	Origins    []string      // other origins that may open a socket
	Limits     store.Limits
	MaxQueue   int
	// MaxLexicons is the most pronunciation lexicons an account may
	// hold (ElevenLabs' dictionaries are lexicons too).
	MaxLexicons int
	// LexiconStorage is the most bytes of lexicon documents an account
	// may hold, every kept version counted; 0: no bound.
	LexiconStorage int64
	// CrashCooldown is how long an account whose requests crashed an
	// engine CrashesPerMinute times within a minute is refused speech;
	// 0: never.
	CrashCooldown time.Duration
	// Gateway: the engines are other servers, and x-upstream-ms reports
	// their time.
	Gateway bool
	Metrics prometheus.Registerer // nil: none

	// MaxUploads is the uploads of recordings one account has in hand
	// at once (their bodies read within ReadTimeout); 0 or less: none.
	MaxUploads int
	// VoiceLoadsPerMinute is the most voice loads an account's speech
	// may cause on this server in a minute (loadGate); 0: no limit.
	VoiceLoadsPerMinute int
}

// Core is the speech core of one server. Its methods are safe for
// concurrent use.
type Core struct {
	Config
	Body route.Body // Config.MaxBody and ReadTimeout
	// Catalog is the voices and the clones (the catalog room).
	Catalog *catalog.Catalog
	// Auth admits callers (the credentials room).
	Auth *credentials.Auth
	// Lexicons keeps the accounts' lexicons (the lexicons room).
	Lexicons *lexicons.Library
	metrics  *metrics // nil: none
	limiter  store.Limiter
	loads    *throttle.Throttle // voice loads per account (loadGate)

	crashes crashes // engine crashes by account (crashes.go)

	// closing is cancelled by Shutdown; sockets watch it.
	closing  context.Context
	shutdown context.CancelFunc
	// Sessions counts the open WebSockets, which Shutdown waits for
	// (Wyoming connections end with Closing, and ServeWyoming waits for
	// its own).
	Sessions sync.WaitGroup
	watching sync.WaitGroup
}

// New returns the core of cfg, with the store's clones in its catalog.
func New(cfg Config) (*Core, error) {
	c := &Core{Config: cfg, loads: throttle.New(), Body: route.Body{Max: cfg.MaxBody, Timeout: cfg.ReadTimeout}}
	c.Lexicons = lexicons.New(lexicons.Config{Store: cfg.Store, Log: cfg.Log, MaxLexicons: cfg.MaxLexicons, LexiconStorage: cfg.LexiconStorage})
	c.Auth = credentials.New(credentials.Config{Store: cfg.Store, Host: cfg.Host, KeyCheck: cfg.KeyCheck, Log: cfg.Log})
	if l, ok := cfg.Store.(store.Limiter); ok {
		c.limiter = l
	} else {
		c.limiter = throttle.NewLimiter()
	}
	if cfg.Metrics != nil {
		m, err := newMetrics(cfg.Metrics, cfg.Synth)
		if err != nil {
			return nil, fmt.Errorf("server: registering metrics: %w", err)
		}
		c.metrics = m
	}
	cat, err := catalog.New(context.Background(), catalog.Config{Synth: cfg.Synth, Store: cfg.Store, Log: cfg.Log, Aliases: cfg.Aliases,
		MaxVoices: cfg.MaxVoices, MaxUploads: cfg.MaxUploads, ReadTimeout: cfg.ReadTimeout, Admit: c.AdmitSpeech})
	if err != nil {
		return nil, fmt.Errorf("server: loading voice clones: %w", err)
	}
	c.Catalog = cat
	c.closing, c.shutdown = context.WithCancel(context.Background())
	c.watching.Go(func() { cat.Watch(c.closing) })
	return c, nil
}

// Closing is done once Shutdown has begun.
func (c *Core) Closing() context.Context { return c.closing }

// Shutdown stops following the store's clone changes and ends the open
// sockets and connections (each finishes what it is saying), and waits
// for both or for ctx.
func (c *Core) Shutdown(ctx context.Context) error {
	c.shutdown()
	done := make(chan struct{})
	go func() { c.Sessions.Wait(); c.watching.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
