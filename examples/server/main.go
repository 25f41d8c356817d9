// Command server runs voxkit's OpenAI-compatible speech server.
//
//	server [flags]                                  serve (default 127.0.0.1:8080)
//	server [flags] healthcheck [--path /readyz]      exit 0 when the server at -addr answers 200
//	                                                (a container's HEALTHCHECK: the image has no curl)
//	server [flags] init [--account local]           create the first account: print its
//	                                                password and an admin API key, once
//	server [flags] accounts create NAME             add an account, print its password
//	server [flags] accounts passwd NAME             print a new password (ends its sessions)
//	server [flags] accounts list
//	server [flags] keys create --account NAME [--name LABEL] [--scope admin|speech|gateway] [--create-account]
//	                                                print a new API key, once
//	server [flags] keys list [--account NAME]
//	server [flags] keys revoke PREFIX               revoke the key starting with PREFIX
//	server [flags] voices list [--account NAME]     the accounts' voice clones
//	server [flags] voices delete --account NAME ID  delete a clone (a running
//	                                                server serves it until it restarts)
//
// Voice clones (derived voices: a base voice with a stored style) are made
// with POST /v1/voices or in the playground; the server loads them from the
// store at start.
//
// Flags (and their environment variables): -addr (VOXKIT_ADDR), -data
// (VOXKIT_DATA: the directory of the SQLite database), -store
// (VOXKIT_STORE: a postgres:// URL to keep accounts, keys and clones in
// PostgreSQL instead of SQLite), -voices
// (VOXKIT_VOICES: Piper voices, needs ONNX Runtime via $ONNXRUNTIME_LIB),
// -signup (VOXKIT_SIGNUP), -alias NAME=VOICE (repeatable; the OpenAI voice
// names default to espeak-ng English voices), -wyoming-addr
// (VOXKIT_WYOMING_ADDR: a Wyoming listener for Home Assistant, off by
// default) with -wyoming-account (VOXKIT_WYOMING_ACCOUNT, "local"); see
// -help for the rest. On the first start with an
// empty store it creates the account "local" and prints its playground
// password and an API key; init does the same on a store that already has
// accounts (a fleet's database), once. With $VOXKIT_INITIAL_PASSWORD set
// (from a Secret, say) both give "local" that password and print none.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode"
	// Serve mp3 and opus too (they need cgo): the OpenAI SDKs ask for mp3 by default.

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/voxkit/voxkit/encode/mp3"
	_ "github.com/voxkit/voxkit/encode/opus"
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/engine/onnx"
	"github.com/voxkit/voxkit/engine/pocket"
	"github.com/voxkit/voxkit/engine/supertonic"
	"github.com/voxkit/voxkit/server"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/postgres"
	"github.com/voxkit/voxkit/server/store/sqlite"
	"github.com/voxkit/voxkit/server/upstream"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &app{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	err := a.run(ctx, os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return // -h printed the usage: not a failure, as with flag.ExitOnError
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

type app struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// badEnv holds the environment variables whose values did not parse;
	// run fails on them as on a bad flag.
	badEnv []error
	// ready, if set, is called with the listening address.
	ready func(net.Addr)
	// metricsReady, if set, is called with the metrics listener's address.
	metricsReady func(net.Addr)

	addr, data, voices string
	metricsAddr        string
	wyomingAddr        string
	wyomingAccount     string
	wyomingZeroconf    bool
	wyomingMaxConns    int
	wyomingMaxPeer     int
	elevenLabs         bool
	cartesia           bool
	tlsCert, tlsKey    string
	trustedProxies     string
	proxies            []netip.Prefix
	storeURL           string
	upstream           string
	upstreamKey        string
	signup             bool
	strict             bool
	espeakInProcess    bool
	espeakProcesses    int
	crashCooldown      time.Duration
	voiceMemory        string
	supertonicBatch    int
	voiceLoadSeconds   prometheus.Histogram
	aliases            aliasFlag
	defaultFormat      string
	readHeaderTimeout  time.Duration
	readTimeout        time.Duration
	writeTimeout       time.Duration
	keyCheckTimeout    time.Duration
	wsIdleTimeout      time.Duration
	idleTimeout        time.Duration
	shutdownTimeout    time.Duration
	maxAudio           time.Duration
	limits             store.Limits
	maxQueue           int
	maxVoices          int
	lexiconStorage     string
	maxUploads         int
	voiceLoads         int
	logFormat          string
	gcPercent          int
	jobs               jobFlags
	log                *slog.Logger
}

// aliasFlag collects -alias NAME=VOICE.
type aliasFlag map[string]string

func (a aliasFlag) String() string { return fmt.Sprint(map[string]string(a)) }

func (a aliasFlag) Set(s string) error {
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return fmt.Errorf("alias %q: want NAME=VOICE", kv)
		}
		a[k] = v
	}
	return nil
}

func (a *app) env(name, def string) string {
	if v := a.getenv(name); v != "" {
		return v
	}
	return def
}

func (a *app) run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: server [flags] [init | healthcheck | accounts … | keys … | voices …]")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nenvironment without a flag:\n  $VOXKIT_INITIAL_PASSWORD\n    \tthe password init and the first start give the account local (none is printed)")
	}
	fs.SetOutput(a.stderr)
	a.aliases = aliasFlag{}
	a.badEnv = nil
	fs.StringVar(&a.addr, "addr", a.env("VOXKIT_ADDR", "127.0.0.1:8080"), "listen address ($VOXKIT_ADDR)")
	fs.StringVar(&a.upstream, "upstream", a.env("VOXKIT_UPSTREAM", ""),
		"comma-separated worker URLs ($VOXKIT_UPSTREAM): serve as a gateway that sends synthesis to these voxkit servers; "+
			"dns+http://NAME:PORT is every address of NAME (a Kubernetes headless Service), looked up every 2s")
	fs.StringVar(&a.upstreamKey, "upstream-key", a.env("VOXKIT_UPSTREAM_KEY", ""),
		"an API key the -upstream workers accept ($VOXKIT_UPSTREAM_KEY)")
	fs.StringVar(&a.metricsAddr, "metrics-addr", a.env("VOXKIT_METRICS_ADDR", ""),
		"address of a separate listener for Prometheus /metrics, /healthz and /readyz ($VOXKIT_METRICS_ADDR); empty: none")
	fs.StringVar(&a.wyomingAddr, "wyoming-addr", a.env("VOXKIT_WYOMING_ADDR", ""),
		"address of a Wyoming listener for Home Assistant ($VOXKIT_WYOMING_ADDR), e.g. 127.0.0.1:10200; empty: none. Wyoming has no authentication: bind it where only trusted clients reach it")
	fs.StringVar(&a.wyomingAccount, "wyoming-account", a.env("VOXKIT_WYOMING_ACCOUNT", "local"),
		"the account whose voices and limits the Wyoming listener uses ($VOXKIT_WYOMING_ACCOUNT)")
	fs.IntVar(&a.wyomingMaxConns, "wyoming-max-conns", a.envInt("VOXKIT_WYOMING_MAX_CONNS", server.DefaultWyomingMaxConns),
		"Wyoming connections held at once ($VOXKIT_WYOMING_MAX_CONNS); one more gets a server_busy error event; negative: no limit")
	fs.IntVar(&a.wyomingMaxPeer, "wyoming-max-peer-conns", 0,
		"Wyoming connections one peer address may hold at once; 0: a quarter of -wyoming-max-conns; negative: no limit")
	fs.BoolVar(&a.wyomingZeroconf, "wyoming-zeroconf", a.envBool("VOXKIT_WYOMING_ZEROCONF", false),
		"announce the Wyoming listener over mDNS as _wyoming._tcp, for Home Assistant to discover ($VOXKIT_WYOMING_ZEROCONF)")
	fs.BoolVar(&a.elevenLabs, "elevenlabs", a.envBool("VOXKIT_ELEVENLABS", true),
		"serve the ElevenLabs-compatible API under /elevenlabs, for ElevenLabs SDKs and agent plugins ($VOXKIT_ELEVENLABS)")
	fs.BoolVar(&a.cartesia, "cartesia", a.envBool("VOXKIT_CARTESIA", true),
		"serve the Cartesia-compatible API under /cartesia, for Cartesia SDKs and agent plugins ($VOXKIT_CARTESIA)")
	fs.StringVar(&a.data, "data", a.env("VOXKIT_DATA", "data"), "data directory holding "+sqlite.FileName+" ($VOXKIT_DATA)")
	fs.StringVar(&a.storeURL, "store", a.env("VOXKIT_STORE", ""),
		"PostgreSQL URL (postgres://user:password@host/db) of the store ($VOXKIT_STORE); empty: SQLite in -data")
	fs.StringVar(&a.voices, "voices", a.env("VOXKIT_VOICES", ""), "directory of Piper voices (NAME.onnx with NAME.onnx.json), Kokoro models (e.g. kokoro-v1.0.onnx with voices-v1.0.bin) and PocketTTS model directories ($VOXKIT_VOICES); "+
		"needs $ONNXRUNTIME_LIB (make onnxruntime fetches it)")
	fs.BoolVar(&a.signup, "signup", a.envBool("VOXKIT_SIGNUP", false), "let anyone create an account from the playground ($VOXKIT_SIGNUP)")
	fs.StringVar(&a.defaultFormat, "default-format", a.env("VOXKIT_DEFAULT_FORMAT", "wav"),
		"response_format of an OpenAI speech request that names none ($VOXKIT_DEFAULT_FORMAT): wav, as OpenAI specifies; mp3 for Open WebUI, which saves what it gets as .mp3")
	fs.Var(a.aliases, "alias", "voice alias NAME=VOICE, repeatable; VOICE a global voice or a clone id (each account's clone of that id) (default: OpenAI voice names to espeak-ng English voices)")
	fs.DurationVar(&a.readHeaderTimeout, "read-header-timeout", 10*time.Second, "time allowed to read request headers")
	fs.DurationVar(&a.readTimeout, "read-timeout", server.DefaultReadTimeout, "time allowed to read a request body: JSON, or a recording uploaded to clone a voice (10 MB in 30 s is 2.8 Mbit/s); past it 408 request_timeout; negative: no limit")
	fs.DurationVar(&a.writeTimeout, "write-timeout", server.DefaultWriteTimeout, "time allowed for each write of a response (each sentence of a stream, each Wyoming event)")
	fs.DurationVar(&a.keyCheckTimeout, "key-check-timeout", server.DefaultKeyCheckTimeout, "time allowed for the store to check a request's API key; past it the request gets 503")
	fs.DurationVar(&a.wsIdleTimeout, "ws-idle-timeout", server.DefaultWSIdleTimeout, "time an authenticated WebSocket session, or a Wyoming connection between events, may stay idle (negative: no limit)")
	fs.DurationVar(&a.idleTimeout, "idle-timeout", 120*time.Second, "keep-alive idle timeout")
	fs.DurationVar(&a.shutdownTimeout, "shutdown-timeout", 30*time.Second, "time to drain in-flight requests on SIGINT/SIGTERM")
	fs.IntVar(&a.espeakProcesses, "espeak-processes", 0, "engine processes that speak with libespeak-ng at once (0: one per CPU, at most 8)")
	fs.BoolVar(&a.espeakInProcess, "espeak-in-process", false, "run libespeak-ng in the server's own process, not in engine processes: an input that crashes the library then ends the server (for measuring what isolation costs, or where the program cannot start itself again)")
	fs.BoolVar(&a.strict, "strict", false, "load, run and unload every voice of -voices at start, and refuse to start when one cannot load (by default only configs are read; a voice that fails is logged and left out)")
	fs.StringVar(&a.voiceMemory, "voice-memory", a.env("VOXKIT_VOICE_MEMORY", defaultVoiceMemory),
		"memory for loaded voices of -voices ($VOXKIT_VOICE_MEMORY), e.g. 512MB or 2GB, counted as their model files' size: a voice loads on first use, "+
			"and past this the least recently used idle voices are unloaded; 0: no bound")
	fs.IntVar(&a.supertonicBatch, "supertonic-batch", a.envInt("VOXKIT_SUPERTONIC_BATCH", 0),
		fmt.Sprintf("most chunks of text from concurrent requests for one Supertonic model run as one batch ($VOXKIT_SUPERTONIC_BATCH); 0: the default, %d; 1: batching off", supertonic.DefaultMaxBatch))
	fs.IntVar(&a.limits.RequestsPerMinute, "rate-limit", a.envInt("VOXKIT_RATE_LIMIT", 0),
		"speech requests (and voice clones made from recordings) per minute per account ($VOXKIT_RATE_LIMIT); 0: no limit; over it 429 rate_limit_exceeded")
	fs.IntVar(&a.limits.Concurrent, "concurrency-limit", a.envInt("VOXKIT_CONCURRENCY_LIMIT", 0),
		"speech requests (and voice clones made from recordings) at once per account ($VOXKIT_CONCURRENCY_LIMIT); 0: no limit; over it 429 rate_limit_exceeded")
	fs.IntVar(&a.maxUploads, "max-uploads", server.DefaultMaxUploadsPerAccount,
		"uploads of recordings one account may have in hand at once, on all doors together; one more is a 429 rate_limit_exceeded; negative: no limit")
	fs.IntVar(&a.maxVoices, "max-voices", a.envInt("VOXKIT_MAX_VOICES", server.DefaultMaxVoicesPerAccount),
		"voice clones one account may hold ($VOXKIT_MAX_VOICES); 0: no limit; one more is a 400 voice_limit_reached")
	fs.StringVar(&a.lexiconStorage, "lexicon-storage", a.env("VOXKIT_LEXICON_STORAGE", "50MB"),
		"bytes of pronunciation lexicon documents one account may hold, every kept version counted ($VOXKIT_LEXICON_STORAGE), e.g. 50MB; 0: no limit; past it 400 lexicon_storage_limit_reached")
	fs.IntVar(&a.voiceLoads, "voice-loads", a.envInt("VOXKIT_VOICE_LOADS", server.DefaultVoiceLoadsPerMinute),
		"voice loads one account's speech may cause per minute on this server ($VOXKIT_VOICE_LOADS): a voice or clone not in -voice-memory is loaded "+
			"for the request that uses it; past this such a request is a 429 rate_limit_exceeded; 0: no limit")
	fs.IntVar(&a.maxQueue, "max-queue", a.envInt("VOXKIT_MAX_QUEUE", server.DefaultMaxQueue),
		"pieces of text that may wait for a render slot before speech gets 503 server_busy ($VOXKIT_MAX_QUEUE); negative: no bound")
	fs.DurationVar(&a.crashCooldown, "crash-cooldown", server.DefaultCrashCooldown,
		fmt.Sprintf("how long an account whose requests crashed the speech engine %d times within a minute gets 429 for speech; negative: never", server.CrashesPerMinute))
	fs.DurationVar(&a.maxAudio, "max-audio", tts.DefaultMaxAudio, "most audio one request may make; more is a 400 audio_too_long")
	fs.IntVar(&a.gcPercent, "gc-percent", 400, "garbage collector target (debug.SetGCPercent) unless $GOGC is set: synthesis allocates "+
		"megabytes per request on a small heap, and fewer collections cut the gateway overhead under load")
	fs.StringVar(&a.logFormat, "log", a.env("VOXKIT_LOG", "text"), "log format: text, json or off ($VOXKIT_LOG)")
	fs.StringVar(&a.tlsCert, "tls-cert", a.env("VOXKIT_TLS_CERT", ""), "serve HTTPS with this certificate (PEM, chain included; $VOXKIT_TLS_CERT) and -tls-key")
	fs.StringVar(&a.tlsKey, "tls-key", a.env("VOXKIT_TLS_KEY", ""), "the private key (PEM) of -tls-cert ($VOXKIT_TLS_KEY)")
	fs.StringVar(&a.trustedProxies, "trusted-proxies", a.env("VOXKIT_TRUSTED_PROXIES", ""),
		"comma-separated IP addresses or CIDRs (not host names) of the reverse proxies in front, e.g. 127.0.0.1 or 172.18.0.0/16 ($VOXKIT_TRUSTED_PROXIES): their X-Forwarded-For and X-Forwarded-Proto are believed")
	a.jobs.register(fs, a)
	if err := fs.Parse(flagsFirst(fs, args)); err != nil {
		return err
	}
	if err := a.checkFlags(); err != nil {
		return err
	}
	if a.supertonicBatch < 0 {
		return fmt.Errorf("-supertonic-batch %d: want 0 (the default), 1 (off) or more", a.supertonicBatch)
	}
	if (a.tlsCert == "") != (a.tlsKey == "") {
		return errors.New("-tls-cert and -tls-key go together")
	}
	proxies, err := parsePrefixes(a.trustedProxies)
	if err != nil {
		return fmt.Errorf("-trusted-proxies: %w", err)
	}
	a.proxies = proxies
	switch a.logFormat {
	case "json":
		a.log = slog.New(slog.NewJSONHandler(a.stderr, nil))
	case "off":
		a.log = slog.New(slog.DiscardHandler)
	case "text":
		a.log = slog.New(slog.NewTextHandler(a.stderr, nil))
	default:
		return fmt.Errorf("-log %q: want text, json or off", a.logFormat)
	}
	if rest := fs.Args(); len(rest) > 0 && rest[0] == "healthcheck" {
		return a.healthcheck(ctx, rest[1:])
	}
	initAccount := ""
	if rest := fs.Args(); len(rest) > 0 && rest[0] == "init" {
		// before the store is opened: a wrong argument creates nothing
		if initAccount, err = a.parseInit(rest[1:]); err != nil {
			return err
		}
	}
	st, err := a.openStore(ctx)
	var schema *postgres.SchemaError
	if errors.As(err, &schema) && len(fs.Args()) == 0 {
		return a.serveNotReady(ctx, err)
	}
	if err != nil {
		return err
	}
	defer st.Close()

	rest := fs.Args()
	if len(rest) == 0 {
		return a.serve(ctx, st)
	}
	if rest[0] == "init" {
		return a.initAccount(ctx, st, initAccount)
	}
	switch rest[0] + " " + arg(rest, 1) {
	case "accounts create":
		af := flag.NewFlagSet("accounts create", flag.ContinueOnError)
		af.SetOutput(a.stderr)
		af.Usage = func() { fmt.Fprintln(a.stderr, "usage: accounts create NAME (a-z, 0-9, - _ ., at most 64)") }
		if err := af.Parse(rest[2:]); err != nil {
			return err
		}
		if af.NArg() != 1 {
			return errors.New("usage: accounts create NAME")
		}
		if err := store.ValidateAccountName(af.Arg(0)); err != nil {
			return err
		}
		acct, err := st.CreateAccount(ctx, af.Arg(0))
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "created account %s\n", acct.Name)
		return a.newPassword(ctx, st, acct.Name)
	case "accounts passwd":
		if len(rest) != 3 || strings.HasPrefix(rest[2], "-") {
			return errors.New("usage: accounts passwd NAME (prints a new playground password and signs the account out everywhere)")
		}
		return a.newPassword(ctx, st, rest[2])
	case "accounts list":
		list, err := st.Accounts(ctx)
		if err != nil {
			return err
		}
		for _, acct := range list {
			fmt.Fprintf(a.stdout, "%s\t%s\n", safe(acct.Name), acct.Created.UTC().Format(time.RFC3339))
		}
		return nil
	case "keys create":
		kf := flag.NewFlagSet("keys create", flag.ContinueOnError)
		kf.SetOutput(a.stderr)
		account := kf.String("account", "", "account that owns the key (required)")
		name := kf.String("name", "", "label of the key")
		scope := kf.String("scope", string(store.ScopeAdmin), "admin (everything), speech (speech and models only) or gateway (a gateway's key for its workers: speech, and voices cloned from recordings)")
		create := kf.Bool("create-account", false, "create the account first when it does not exist (a gateway's, say)")
		if err := kf.Parse(rest[2:]); err != nil {
			return err
		}
		if *account == "" || kf.NArg() != 0 || !store.Scope(*scope).Valid() {
			return errors.New("usage: keys create --account NAME [--name LABEL] [--scope admin|speech|gateway] [--create-account]")
		}
		if *create {
			if err := store.ValidateAccountName(*account); err != nil {
				return err
			}
			if _, err := st.CreateAccount(ctx, *account); err != nil && !errors.Is(err, store.ErrAccountExists) {
				return err
			}
		}
		_, plain, err := st.CreateKey(ctx, store.NewKey{Account: *account, Name: *name, Scope: store.Scope(*scope)})
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%w (create it with --create-account, or with \"accounts create %s\")", err, *account)
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, plain)
		return nil
	case "keys list":
		kf := flag.NewFlagSet("keys list", flag.ContinueOnError)
		kf.SetOutput(a.stderr)
		account := kf.String("account", "", "only this account's keys")
		if err := kf.Parse(rest[2:]); err != nil {
			return err
		}
		return a.listKeys(ctx, st, *account)
	case "keys revoke":
		if len(rest) != 3 {
			return errors.New("usage: keys revoke PREFIX")
		}
		k, err := st.RevokeKey(ctx, "", rest[2])
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "revoked %s (account %s)\n", k.Prefix, safe(k.Account))
		return nil
	case "voices list":
		vf := flag.NewFlagSet("voices list", flag.ContinueOnError)
		vf.SetOutput(a.stderr)
		account := vf.String("account", "", "only this account's clones")
		if err := vf.Parse(rest[2:]); err != nil {
			return err
		}
		return a.listVoices(ctx, st, *account)
	case "voices delete":
		vf := flag.NewFlagSet("voices delete", flag.ContinueOnError)
		vf.SetOutput(a.stderr)
		account := vf.String("account", "", "account that owns the clone (required)")
		if err := vf.Parse(rest[2:]); err != nil {
			return err
		}
		if *account == "" || vf.NArg() != 1 {
			return errors.New("usage: voices delete --account NAME ID")
		}
		v, err := st.DeleteVoice(ctx, *account, vf.Arg(0))
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "deleted voice %s (account %s)\n", safe(v.ID), safe(v.Account))
		return nil
	}
	return fmt.Errorf("unknown command %q (want init, accounts create|passwd|list, keys create|list|revoke, voices list|delete)", strings.Join(rest, " "))
}

// openStore opens the PostgreSQL store of -store, or the SQLite one in
// -data when -store is empty.
func (a *app) openStore(ctx context.Context) (store.Store, error) {
	switch {
	case strings.HasPrefix(a.storeURL, "postgres://"), strings.HasPrefix(a.storeURL, "postgresql://"):
		return postgres.Open(ctx, a.storeURL)
	case a.storeURL != "":
		return nil, errors.New("-store: want a postgres:// or postgresql:// URL, or nothing for SQLite in -data")
	}
	if err := os.MkdirAll(a.data, 0o700); err != nil {
		return nil, err
	}
	return sqlite.Open(ctx, filepath.Join(a.data, sqlite.FileName))
}

// storeName names the store for the log, without the URL's password.
func (a *app) storeName() string {
	if a.storeURL != "" {
		return "postgres"
	}
	return "sqlite in " + a.data
}

// safe returns a stored string for a terminal: as it is when every
// character is graphic, else quoted with the others escaped, so a name
// holding control or bidirectional formatting characters (stored before
// the server refused them, or written to the database directly) cannot
// forge table rows, move the cursor or retitle the terminal.
func safe(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) || unicode.Is(unicode.Bidi_Control, r) {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}

func arg(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

func (a *app) listKeys(ctx context.Context, st store.Store, account string) error {
	keys, err := st.Keys(ctx, account)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PREFIX\tACCOUNT\tSCOPE\tNAME\tCREATED\tLAST USED\tSTATUS")
	stamp := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	}
	for _, k := range keys {
		status := "active"
		if !k.Revoked.IsZero() {
			status = "revoked " + stamp(k.Revoked)
		}
		fmt.Fprintf(tw, "%s…\t%s\t%s\t%s\t%s\t%s\t%s\n", k.Prefix, safe(k.Account), k.Scope, safe(k.Name), stamp(k.Created), stamp(k.LastUsed), status)
	}
	return tw.Flush()
}

func (a *app) listVoices(ctx context.Context, st store.Store, account string) error {
	list, err := st.Voices(ctx, account)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tACCOUNT\tBASE\tSPEED\tPITCH\tRANGE\tVOLUME\tWHISPER\tCREATED\tNAME")
	for _, v := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%+g\t%g\t%g\t%t\t%s\t%s\n", safe(v.ID), safe(v.Account), safe(v.Base), v.Speed, v.Pitch, v.Range,
			v.Volume, v.Whisper, v.Created.UTC().Format(time.RFC3339), safe(v.Name))
	}
	return tw.Flush()
}

// bootstrap creates the account "local" on an empty store, with a
// playground password (when the store keeps passwords) and an API key,
// and prints them.
func (a *app) bootstrap(ctx context.Context, st store.Store) error {
	accounts, err := st.Accounts(ctx)
	if err != nil || len(accounts) > 0 {
		return err
	}
	fmt.Fprintln(a.stderr, `First start: creating the account "local". Its playground password and an API key are shown only once; keep them:`)
	return a.firstAccount(ctx, st, "local", "first start")
}

// initAccount creates account with a password and an admin key, and
// prints them, unless it exists: then it says so and does nothing, so a
// cluster may run it as a job on every deploy.
func (a *app) initAccount(ctx context.Context, st store.Store, account string) error {
	if err := store.ValidateAccountName(account); err != nil {
		return err
	}
	accounts, err := st.Accounts(ctx)
	if err != nil {
		return err
	}
	for _, acct := range accounts {
		if acct.Name == account {
			fmt.Fprintf(a.stderr, "init: the account %q exists; nothing done (accounts passwd %s prints a new password)\n", account, account)
			return nil
		}
	}
	fmt.Fprintf(a.stderr, "init: creating the account %q. Its playground password and an admin API key are shown only once; keep them:\n", account)
	return a.firstAccount(ctx, st, account, "init")
}

// firstAccount creates account, gives it a password ($VOXKIT_INITIAL_PASSWORD,
// not printed, or a generated one, printed) and an admin key named
// keyName, printed.
func (a *app) firstAccount(ctx context.Context, st store.Store, account, keyName string) error {
	password := a.env("VOXKIT_INITIAL_PASSWORD", "")
	if password != "" && len([]rune(password)) < store.MinPasswordLen { // checked before anything is stored
		return fmt.Errorf("$VOXKIT_INITIAL_PASSWORD has fewer than %d characters", store.MinPasswordLen)
	}
	if _, err := st.CreateAccount(ctx, account); err != nil {
		return err
	}
	_, plain, err := st.CreateKey(ctx, store.NewKey{Account: account, Name: keyName, Scope: store.ScopeAdmin})
	if err != nil {
		return err
	}
	if password != "" {
		if err := a.setPassword(ctx, st, account, password); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, "password: the one in $VOXKIT_INITIAL_PASSWORD")
	} else if err := a.newPassword(ctx, st, account); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "api key:  "+plain)
	return nil
}

// newPassword gives account a new generated password, ending its
// sessions, and prints it. A store that keeps no passwords is left alone.
func (a *app) newPassword(ctx context.Context, st store.Store, account string) error {
	if _, ok := st.(store.Sessions); !ok {
		return nil
	}
	password, err := store.GeneratePassword()
	if err != nil {
		return err
	}
	if err := a.setPassword(ctx, st, account, password); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "password: "+password)
	return nil
}

// setPassword gives account password, ending its sessions. A store that
// keeps no passwords is left alone.
func (a *app) setPassword(ctx context.Context, st store.Store, account, password string) error {
	logins, ok := st.(store.Sessions)
	if !ok {
		return nil
	}
	hash, err := store.HashPassword(password)
	if err != nil {
		return err
	}
	return logins.SetPassword(ctx, account, hash)
}

// envInt returns the integer of environment variable name, def when it
// is unset or not an integer.
// envInt is the whole number in the environment variable name, or def
// when it is unset. A value that does not parse is kept in a.badEnv: a
// typo must not turn a limit off unnoticed.
func (a *app) envInt(name string, def int) int {
	v := a.env(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		a.badEnv = append(a.badEnv, fmt.Errorf("$%s=%q: want a whole number", name, v))
		return def
	}
	return n
}

// envBool is the boolean in the environment variable name (as
// strconv.ParseBool reads it), or def when it is unset; a value that does
// not parse is kept in a.badEnv.
func (a *app) envBool(name string, def bool) bool {
	v := a.env(name, "")
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		a.badEnv = append(a.badEnv, fmt.Errorf("$%s=%q: want true or false", name, v))
		return def
	}
	return b
}

// checkFlags refuses, before anything starts, environment values that did
// not parse, limits below their documented 0 (no limit), and sizes that
// are not sizes (-voice-memory is read only with -voices, the others when
// the server starts: a subcommand or a server without voices would
// otherwise keep a typo for later).
func (a *app) checkFlags() error {
	if err := errors.Join(a.badEnv...); err != nil {
		return err
	}
	for _, l := range []struct {
		flag  string
		value int
	}{
		{"rate-limit", a.limits.RequestsPerMinute},
		{"concurrency-limit", a.limits.Concurrent},
		{"max-voices", a.maxVoices},
		{"voice-loads", a.voiceLoads},
		{"max-jobs", a.jobs.maxJobs},
	} {
		if l.value < 0 {
			return fmt.Errorf("-%s %d: want 0 (no limit) or more", l.flag, l.value)
		}
	}
	for _, s := range []struct{ flag, value string }{
		{"voice-memory", a.voiceMemory},
		{"lexicon-storage", a.lexiconStorage},
		{"job-storage", a.jobs.storage},
	} {
		if _, err := onnx.ParseSize(s.value); err != nil {
			return fmt.Errorf("-%s: %w", s.flag, err)
		}
	}
	return nil
}

// defaultVoiceMemory is -voice-memory's default: about 15 Piper medium
// voices, which with the server's own memory and the work of concurrent
// requests fits the 2 GiB limit of the shipped worker deployment
// (docs/deploy.md has the sizing).
const defaultVoiceMemory = "1GB"

// upstreamEngine is the name of a gateway's one engine, its workers.
const upstreamEngine = "upstream"

// upstreamPool connects to the -upstream workers.
func (a *app) upstreamPool(ctx context.Context) (*upstream.Pool, error) {
	if a.upstreamKey == "" {
		return nil, errors.New("-upstream needs -upstream-key, a key the workers accept")
	}
	var urls []string
	for _, u := range strings.Split(a.upstream, ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	// Workers may be starting with the gateway (compose, a cluster): wait
	// for one, saying so, rather than exit and be restarted.
	for {
		pool, err := upstream.New(ctx, upstream.Options{URLs: urls, Key: a.upstreamKey, Logger: a.log, MaxAudio: a.maxAudio})
		if !errors.Is(err, upstream.ErrNoneReady) {
			return pool, err
		}
		a.log.Warn("gateway: waiting for a worker to be ready", "err", err)
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(2 * time.Second):
		}
	}
}

// serveMetrics serves /metrics (reg), /healthz and /readyz (api's) on
// ln, the -metrics-addr listener apart from the API's, until stop.
func (a *app) serveMetrics(ln net.Listener, reg *prometheus.Registry, api *server.Server) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.Handle("GET /healthz", api)
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		// The operator's listener: unlike the API's /readyz, it says why
		// in full (the store's error names its host and user).
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		status, body := http.StatusOK, map[string]string{"status": "ok"}
		if err := api.Ready(ctx); err != nil {
			status, body = http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": err.Error()}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(body)
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	a.log.Info("metrics listening", "addr", "http://"+ln.Addr().String()+"/metrics")
	if a.metricsReady != nil {
		a.metricsReady(ln.Addr())
	}
	return func() { hs.Close() }
}

// engines starts espeak-ng and, with -voices, the onnx engine on that
// directory (nil without it), the pocket engine on its PocketTTS models
// and the supertonic engine on its Supertonic models.
func (a *app) engines(ctx context.Context) (map[string]engine.Engine, *onnx.Engine, error) {
	esp, err := espeak.New(espeak.Options{InProcess: a.espeakInProcess, Processes: a.espeakProcesses})
	if err != nil {
		return nil, nil, err
	}
	engines := map[string]engine.Engine{"espeak": esp}
	if a.voices == "" {
		return engines, nil, nil
	}
	budget, err := onnx.ParseSize(a.voiceMemory)
	if err != nil {
		esp.Close()
		return nil, nil, fmt.Errorf("-voice-memory: %w", err)
	}
	a.voiceLoadSeconds = newVoiceLoadSeconds()
	// The voices and the clones cloned from recordings share the budget.
	memory := onnx.NewMemory(budget)
	piper, err := onnx.Load(ctx, onnx.Options{LibraryPath: a.getenv("ONNXRUNTIME_LIB"), Phonemizer: esp,
		VoicesDir: a.voices, Strict: a.strict, Memory: memory, OnLoad: observeLoad(a.voiceLoadSeconds), Logger: a.log})
	if err != nil {
		esp.Close()
		return nil, nil, fmt.Errorf("voices in %s: %w", a.voices, err)
	}
	engines["onnx"] = piper
	// The pocket engine is there without models too: a SIGHUP may bring
	// some (rescanOnHangup).
	pk, err := pocket.Load(ctx, pocket.Options{LibraryPath: a.getenv("ONNXRUNTIME_LIB"), VoicesDir: a.voices, Memory: memory, Logger: a.log})
	if err != nil {
		esp.Close()
		piper.Close()
		return nil, nil, fmt.Errorf("PocketTTS models in %s: %w", a.voices, err)
	}
	engines["pocket"] = pk
	st, err := supertonic.Load(ctx, supertonic.Options{LibraryPath: a.getenv("ONNXRUNTIME_LIB"), VoicesDir: a.voices,
		MaxBatch: a.supertonicBatch, Memory: memory, Logger: a.log})
	if err != nil {
		esp.Close()
		piper.Close()
		pk.Close()
		return nil, nil, fmt.Errorf("Supertonic models in %s: %w", a.voices, err)
	}
	engines["supertonic"] = st
	return engines, piper, nil
}

func (a *app) serve(ctx context.Context, st store.Store) error {
	if a.getenv("GOGC") == "" && a.gcPercent > 0 {
		debug.SetGCPercent(a.gcPercent)
	}
	// What can fail at start comes before the first account is made:
	// its password and key are printed once.
	if err := a.checkWyomingAccount(ctx, st); err != nil {
		return err
	}
	ls, err := a.listen()
	if err != nil {
		return err
	}
	defer ls.close()
	var engines map[string]engine.Engine
	var piper *onnx.Engine
	var pool *upstream.Pool
	topts := tts.Options{CloseEngines: true, MaxAudio: a.maxAudio, Logger: a.log}
	if a.upstream != "" {
		if pool, err = a.upstreamPool(ctx); err != nil {
			return err
		}
		engines = map[string]engine.Engine{upstreamEngine: pool}
		// Render slots follow the healthy workers (pool.Follow below).
		topts.MaxParallel = upstream.DefaultSlotsPerWorker
	} else if engines, piper, err = a.engines(ctx); err != nil {
		return err
	}
	topts.Engines = engines
	synth, err := tts.New(topts)
	if err != nil {
		for _, e := range engines {
			e.Close()
		}
		return err
	}
	defer synth.Close()
	if pool != nil {
		// The voices and render slots follow the workers as they come
		// and go.
		go pool.Follow(ctx, synth, upstreamEngine)
	}
	aliases := server.DefaultAliases()
	for k, v := range a.aliases {
		aliases[k] = v
	}
	var reg *prometheus.Registry
	if a.metricsAddr != "" {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	opts := server.Options{
		Synthesizer: synth, Store: st, Aliases: aliases,
		ElevenLabs: a.elevenLabs, Cartesia: a.cartesia, TrustedProxies: a.proxies, AllowSignup: a.signup, Logger: a.log, ReadTimeout: a.readTimeout, WriteTimeout: a.writeTimeout, KeyCheckTimeout: a.keyCheckTimeout, WSIdleTimeout: a.wsIdleTimeout,
		Limits: a.limits, MaxQueue: a.maxQueue, CrashCooldown: a.crashCooldown, WyomingMaxConns: a.wyomingMaxConns, MaxVoicesPerAccount: a.maxVoices,
		MaxUploadsPerAccount: a.maxUploads, WyomingMaxPeerConns: a.wyomingMaxPeer, DefaultFormat: a.defaultFormat,
	}
	if a.maxVoices == 0 {
		opts.MaxVoicesPerAccount = -1 // the flag's 0 is no limit, the Option's is the default
	}
	if opts.LexiconStoragePerAccount, err = onnx.ParseSize(a.lexiconStorage); err != nil {
		return fmt.Errorf("-lexicon-storage: %w", err)
	} else if opts.LexiconStoragePerAccount == 0 {
		opts.LexiconStoragePerAccount = -1
	}
	if opts.Jobs, err = a.jobs.options(); err != nil {
		return err
	}
	if opts.VoiceLoadsPerMinute = a.voiceLoads; a.voiceLoads == 0 {
		opts.VoiceLoadsPerMinute = -1
	}
	if reg != nil {
		opts.Metrics = reg
	}
	if reg != nil && piper != nil {
		reg.MustRegister(voiceCollectors(piper, a.voiceLoadSeconds)...)
	}
	if pool != nil {
		opts.Gateway, opts.Ready = true, pool.Ready
		if reg != nil {
			reg.MustRegister(pool.Collector())
		}
	}
	api, err := server.New(opts)
	if err != nil {
		return err
	}
	// A start that fails from here on, or a listener that fails, stops
	// what server.New started (the jobs' workers among it) before run
	// returns; a stop by ctx shuts it down in turn below.
	shutDown := false
	defer func() {
		if !shutDown {
			sctx, cancel := context.WithTimeout(context.Background(), a.shutdownTimeout)
			defer cancel()
			api.Shutdown(sctx)
		}
	}()
	if ls.wyoming != nil && a.wyomingZeroconf {
		stop, err := announceWyoming(ls.wyoming.Addr().(*net.TCPAddr), a.log)
		if err != nil {
			return fmt.Errorf("announcing the Wyoming listener: %w", err)
		}
		defer stop()
	}
	if err := a.bootstrap(ctx, st); err != nil {
		return err
	}
	if ls.metrics != nil {
		defer a.serveMetrics(ls.metrics, reg, api)()
	}
	dl := &drainListener{Listener: ls.api}
	hs := &http.Server{
		Handler:           api,
		ReadHeaderTimeout: a.readHeaderTimeout,
		IdleTimeout:       a.idleTimeout,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		TLSConfig:         ls.tls,
	}
	if ls.wyoming != nil {
		a.log.Info("Wyoming listening", "addr", ls.wyoming.Addr().String(), "account", a.wyomingAccount)
	}
	scheme := "http://"
	if ls.tls != nil {
		scheme = "https://"
	}
	a.log.Info("voxkit server listening", "addr", scheme+dl.Addr().String(), "voices", len(synth.Voices().List("")),
		"aliases", strings.Join(slices.Sorted(maps.Keys(api.Aliases())), ","), "store", a.storeName(), "signup", a.signup)
	if a.ready != nil {
		a.ready(dl.Addr())
	}
	go a.rescanOnHangup(ctx, synth, engines)
	errc := make(chan error, 2)
	if ls.wyoming != nil {
		go func() {
			if err := api.ServeWyoming(ls.wyoming, a.wyomingAccount); err != nil {
				errc <- err
			}
		}()
	}
	go func() {
		if ls.tls != nil {
			errc <- hs.ServeTLS(dl, "", "") // the certificate of hs.TLSConfig
			return
		}
		errc <- hs.Serve(dl)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down: draining in-flight requests", "timeout", a.shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), a.shutdownTimeout)
	defer cancel()
	dl.draining.Store(true)
	shutDown = true
	// Both at once: api's Shutdown ends what the HTTP drain would wait
	// for, the long-form jobs' event streams among it.
	apiDone := make(chan error, 1)
	go func() { apiDone <- api.Shutdown(sctx) }()
	err = errors.Join(hs.Shutdown(sctx), <-apiDone)
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	a.log.Info("stopped")
	return err
}

// serveNotReady is what a server does whose store it must not use (a
// database migrated by a newer version): it says why in the log, answers
// /healthz (alive, so an orchestrator does not restart it in a loop) and
// every other request, /readyz included, with 503 and the reason, until
// it is stopped; then it exits cleanly.
func (a *app) serveNotReady(ctx context.Context, why error) error {
	a.log.Error("not serving: the store cannot be used by this version; /readyz answers 503 until this server is replaced", "err", why)
	ln, err := net.Listen("tcp", a.addr)
	if err != nil {
		return err
	}
	werr := &wire.Error{Status: http.StatusServiceUnavailable, Type: wire.TypeServer, Code: "schema_too_new", Message: why.Error()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(werr.Status)
		json.NewEncoder(w).Encode(werr)
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: a.readHeaderTimeout}
	a.log.Info("voxkit server listening, not ready", "addr", "http://"+ln.Addr().String())
	if a.ready != nil {
		a.ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}

// healthcheck asks the server listening on -addr (over HTTPS with
// -tls-cert) for a path, /readyz by default, and fails unless it answers
// 200 within 5 s. An unspecified host (0.0.0.0, ::) is asked on loopback.
func (a *app) healthcheck(ctx context.Context, args []string) error {
	hf := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	hf.SetOutput(a.stderr)
	path := hf.String("path", "/readyz", "the path to ask for: /readyz (ready to serve) or /healthz (alive)")
	if err := hf.Parse(args); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(a.addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w", a.addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	scheme, client := "http", &http.Client{Timeout: 5 * time.Second}
	if a.tlsCert != "" {
		// The certificate names the service, not loopback: this is the
		// server's own check of itself.
		scheme = "https"
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+net.JoinHostPort(host, port)+*path, nil)
	if err != nil {
		return err
	}
	req.Header.Set(wire.HeaderProbe, "healthcheck")
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", *path, res.Status)
	}
	return nil
}

// parsePrefixes parses comma-separated addresses (one host each) and
// CIDR prefixes.
func parsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a CIDR prefix", s)
		}
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}
