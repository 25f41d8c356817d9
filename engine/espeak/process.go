//go:build cgo

package espeak

import (
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/voxkit/voxkit/engine"
)

// Crash isolation: libespeak-ng 1.51 corrupts its own memory on some
// ordinary inputs (a run of "a." a hundred long smashes its stack) and
// takes its process down with it. So by default the library runs in
// engine processes of its own: the program's own executable started
// again (/proc/self/exe) with workerEnv set, which package init hands to
// serveWorker before anything else runs. A process serves one call at a
// time, over two pipes, in gob; calls are a sentence or a clause list, so
// a crash costs the call that caused it and nothing else: the caller gets
// an error wrapping engine.ErrCrashed and a new process takes the dead
// one's place.

// backend is where libespeak-ng runs: engine processes (processes) or
// this one (inProcess).
type backend interface {
	synth(ctx context.Context, c synthCall) (synthResult, error)
	phonemes(ctx context.Context, voice, text string, mode int) ([]clause, error)
}

// inProcess calls libespeak-ng in the caller's process: no isolation.
type inProcess struct{}

func (inProcess) synth(ctx context.Context, c synthCall) (synthResult, error) {
	res, err := nativeSynth(c, nil, func() bool { return ctx.Err() != nil })
	if errors.Is(err, errStopped) {
		err = ctx.Err()
	}
	return res, err
}

func (inProcess) phonemes(ctx context.Context, voice, text string, mode int) ([]clause, error) {
	return nativePhonemes(voice, text, mode)
}

// The protocol between an engine and its processes.
const (
	// workerEnv, set to protocolVersion, makes a process an engine
	// process.
	workerEnv       = "VOXKIT_ESPEAK_PROCESS"
	protocolVersion = "1"
	// dataEnv names the directory the sandbox lets the process read;
	// limitsEnv its rlimits ("address-space-bytes cpu-seconds").
	dataEnv   = "VOXKIT_ESPEAK_DATA"
	limitsEnv = "VOXKIT_ESPEAK_LIMITS"
)

// request is a call to an engine process: exactly one of its parts is
// set. A call is cancelled by writing its ID, 8 bytes little-endian, to
// the cancel pipe.
type request struct {
	ID    uint64
	Init  *initCall     // the first request: initialize the library
	Synth *synthCall    // speak
	Phon  *phonemesCall // phonemize
	Probe *probeCall    // tests only: what the sandbox lets through
}

// probeCall asks an engine process to try to read Path and to open a
// socket; it answers in Err. Only a test binary, which sets probe,
// answers it.
type probeCall struct{ Path string }

// probe, set by the tests, carries out a probeCall.
var probe func(probeCall) string

type initCall struct{ DataPath string }

type phonemesCall struct {
	Voice, Text string
	Mode        int
}

// reply answers the request of the same ID.
type reply struct {
	ID      uint64
	Table   *voiceTable
	Synth   *synthResult
	Clauses []clause
	Err     string
	// UnknownVoice says Err is an unknown voice; Stopped that the call was
	// cancelled.
	UnknownVoice, Stopped bool
	// Unsandboxed, in the reply to Init, lists the parts of the sandbox
	// the kernel refused (see sandbox).
	Unsandboxed []string
	// Retire says the process has used half its CPU time limit: the
	// engine replaces it after this call (see sandboxLimits).
	Retire bool
}

// err rebuilds the error a reply carries.
func (r *reply) err() error {
	switch {
	case r.UnknownVoice:
		return &remoteError{r.Err, engine.ErrUnknownVoice}
	case r.Stopped:
		return errStopped
	case r.Err != "":
		return errors.New(r.Err)
	}
	return nil
}

// remoteError is an error an engine process reported, with the sentinel
// it wrapped there.
type remoteError struct {
	msg string
	is  error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.is }

// processes is a pool of engine processes, started as calls need them, up
// to size at a time.
type processes struct {
	// dataDir is the espeak-ng-data directory, the one the sandbox lets
	// a process read.
	dataDir string
	limits  sandboxLimits
	log     *slog.Logger
	// timeout bounds one call, in nanoseconds: a process that takes
	// longer is taken to hang and is killed. (Atomic, for tests that
	// change it while a replacement process starts.)
	timeout atomic.Int64
	idle    chan *process // processes waiting for a call
	slots   chan struct{} // one per live process
	ids     atomic.Uint64
	table   *voiceTable
}

// process is one engine process. Its pipes: requests (gob), cancels (call
// IDs) and replies (gob). The caller of a call reads its reply itself,
// in a blocking read, so that a reply wakes the caller and nothing else.
type process struct {
	cmd     *exec.Cmd
	calls   *os.File // requests
	enc     *gob.Encoder
	cancels *os.File
	replies *os.File
	dec     *gob.Decoder
	exited  chan struct{} // closed once it has exited
	stderr  *stderrHead
}

// callTimeout is how long one call may take. The longest sentence the
// limits allow takes espeak-ng well under a second.
const callTimeout = 30 * time.Second

// cancelGrace is how long a cancelled call may take to stop before its
// process is killed.
const cancelGrace = 2 * time.Second

// startProcesses starts the first engine process, which reads the voice
// table, and returns the pool. It logs the parts of the sandbox the
// kernel refused, once.
func startProcesses(dataPath string, size int, log *slog.Logger) (*processes, error) {
	if log == nil {
		log = slog.Default()
	}
	p := &processes{
		dataDir: nativeDataDir(dataPath),
		limits:  defaultLimits,
		log:     log,
		idle:    make(chan *process, size),
		slots:   make(chan struct{}, size),
	}
	p.timeout.Store(int64(callTimeout))
	p.slots <- struct{}{}
	w, rep, err := p.start()
	if err != nil {
		return nil, err
	}
	if len(rep.Unsandboxed) > 0 {
		log.Warn("espeak: engine processes run without part of their sandbox", "refused", strings.Join(rep.Unsandboxed, "; "))
	}
	p.table = rep.Table
	p.idle <- w
	return p, nil
}

// start starts an engine process and initializes libespeak-ng in it,
// which reports its voice table and sandbox; the caller holds a slot for
// it.
func (p *processes) start() (*process, reply, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, reply{}, fmt.Errorf("espeak: start engine process: %w", err)
	}
	var ends [6]*os.File // read and write ends of requests, cancels, replies
	for i := 0; i < len(ends); i += 2 {
		if ends[i], ends[i+1], err = os.Pipe(); err != nil {
			closeAll(ends[:i])
			return nil, reply{}, fmt.Errorf("espeak: start engine process: %w", err)
		}
	}
	widenPipe(ends[5])
	// /proc/self/exe is this very program even if its file was replaced
	// since it started.
	cmd := exec.Command(selfExe(exe))
	cmd.Args = []string{exe + " [espeak-ng]"}
	cmd.Env = p.env()
	cmd.ExtraFiles = []*os.File{ends[0], ends[2], ends[5]} // fds 3, 4, 5
	w := &process{cmd: cmd, calls: ends[1], enc: gob.NewEncoder(ends[1]), cancels: ends[3], replies: ends[4],
		exited: make(chan struct{}), stderr: &stderrHead{max: 4096}}
	cmd.Stderr = w.stderr
	err = cmd.Start()
	closeAll([]*os.File{ends[0], ends[2], ends[5]})
	if err != nil {
		closeAll([]*os.File{ends[1], ends[3], ends[4]})
		return nil, reply{}, fmt.Errorf("espeak: start engine process: %w", err)
	}
	// Blocking: the caller's read waits in the kernel, not the poller.
	w.replies.Fd()
	w.dec = gob.NewDecoder(w.replies)
	go func() {
		cmd.Wait()
		close(w.exited)
	}()
	rep, err := p.call(context.Background(), w, request{Init: &initCall{DataPath: p.dataDir}})
	if err != nil {
		w.death()
		return nil, reply{}, err
	}
	return w, rep, nil
}

// env is an engine process's whole environment: none of this program's
// (which may hold a server's secrets), only what the process needs.
func (p *processes) env() []string {
	env := []string{
		workerEnv + "=" + protocolVersion,
		// A crash in C code makes the Go runtime print the signal and,
		// with GOTRACEBACK=none, no goroutines: the reason is in the
		// first lines.
		"GOTRACEBACK=none",
		dataEnv + "=" + p.dataDir,
		limitsEnv + "=" + fmt.Sprint(p.limits.AddressSpace, " ", p.limits.CPUSeconds),
	}
	// The library is told its directory (initCall); this is for nothing
	// else it might read.
	if v, ok := os.LookupEnv("ESPEAK_DATA_PATH"); ok {
		env = append(env, "ESPEAK_DATA_PATH="+v)
	}
	return env
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// selfExe is the path to start this program again by.
func selfExe(exe string) string {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe"
	}
	return exe
}

// kill ends the process.
func (w *process) kill() {
	w.cmd.Process.Kill()
}

// alive reports whether the process has not exited.
func (w *process) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

// death describes how the process ended, once it has, and closes its
// pipes.
func (w *process) death() string {
	w.kill()
	<-w.exited
	closeAll([]*os.File{w.calls, w.cancels, w.replies})
	how := "exited"
	if st := w.cmd.ProcessState; st != nil {
		how = st.String() // "exit status 2", "signal: killed"
	}
	if msg := w.stderr.reason(); msg != "" {
		how += ": " + msg
	}
	return "crashed (" + how + ")"
}

// acquire returns an idle process, or starts one if fewer than size are
// alive, or waits for one.
func (p *processes) acquire(ctx context.Context) (*process, error) {
	for {
		var w *process
		select {
		case w = <-p.idle:
		default:
			select {
			case w = <-p.idle:
			case p.slots <- struct{}{}:
				w, _, err := p.start()
				if err != nil {
					<-p.slots
				}
				return w, err
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if w.alive() {
			return w, nil
		}
		// It died while idle (killed from outside): not this call's fault.
		p.discard(w)
	}
}

// discard gives up a dead or hung process's slot and starts another in
// its place, so that the next call need not wait for one.
func (p *processes) discard(w *process) {
	w.death()
	<-p.slots
	go func() {
		select {
		case p.slots <- struct{}{}:
		default:
			return // full again already
		}
		nw, _, err := p.start()
		if err != nil {
			<-p.slots
			return
		}
		p.idle <- nw
	}()
}

// do runs one call on an idle process.
func (p *processes) do(ctx context.Context, req request) (reply, error) {
	w, err := p.acquire(ctx)
	if err != nil {
		return reply{}, err
	}
	rep, err := p.call(ctx, w, req)
	var crash *crashError
	if errors.As(err, &crash) {
		p.discard(w)
		if ctx.Err() != nil {
			return rep, ctx.Err() // killed for not stopping when asked
		}
		return rep, err
	}
	if rep.Retire {
		p.discard(w) // not a crash: a fresh process takes its place
	} else {
		p.idle <- w
	}
	return rep, err
}

// call sends req to w and waits for its reply. A process that dies, or
// does not answer within the timeout, fails the call with a
// *crashError. A cancelled call is stopped in the process, which is
// killed if it has not stopped within cancelGrace.
func (p *processes) call(ctx context.Context, w *process, req request) (reply, error) {
	req.ID = p.ids.Add(1)
	if err := w.enc.Encode(req); err != nil {
		return reply{}, &crashError{how: w.death()}
	}
	// The watchdog and the cancel act only while the call lasts: once it
	// has its answer, the process may serve another.
	var mu sync.Mutex
	finished, hung := false, false
	watchdog := time.AfterFunc(time.Duration(p.timeout.Load()), func() {
		mu.Lock()
		defer mu.Unlock()
		if !finished {
			hung = true
			w.kill()
		}
	})
	stopCancel := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !finished {
			var id [8]byte
			binary.LittleEndian.PutUint64(id[:], req.ID)
			w.cancels.Write(id[:])
			watchdog.Reset(cancelGrace)
		}
	})
	var rep reply
	err := w.dec.Decode(&rep)
	mu.Lock()
	finished = true
	watchdog.Stop()
	mu.Unlock()
	stopCancel()
	if err != nil || hung {
		how := w.death()
		if hung {
			how = "did not answer in time and was killed"
		}
		return reply{}, &crashError{how: how}
	}
	if rep.ID != req.ID {
		return reply{}, &crashError{how: fmt.Sprintf("answered call %d to call %d", rep.ID, req.ID)}
	}
	if rep.Stopped && ctx.Err() != nil {
		return rep, ctx.Err()
	}
	return rep, rep.err()
}

func (p *processes) synth(ctx context.Context, c synthCall) (synthResult, error) {
	rep, err := p.do(ctx, request{Synth: &c})
	if err != nil || rep.Synth == nil {
		return synthResult{}, err
	}
	return *rep.Synth, nil
}

func (p *processes) phonemes(ctx context.Context, voice, text string, mode int) ([]clause, error) {
	rep, err := p.do(ctx, request{Phon: &phonemesCall{Voice: voice, Text: text, Mode: mode}})
	return rep.Clauses, err
}

// crashError is a call whose engine process died or hung.
type crashError struct{ how string }

func (e *crashError) Error() string {
	return "espeak: the engine process " + e.how + " on this input; a new one takes its place"
}

func (e *crashError) Unwrap() error { return engine.ErrCrashed }

// stderrHead keeps the first bytes an engine process writes to stderr,
// which say why it died: glibc's "*** stack smashing detected ***", the
// Go runtime's "SIGSEGV: segmentation violation".
type stderrHead struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (h *stderrHead) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf = append(h.buf, p[:min(len(p), h.max-len(h.buf))]...)
	return len(p), nil
}

// reason returns the first line that names a crash's cause, if any.
func (h *stderrHead) reason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for line := range strings.Lines(string(h.buf)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "***") || strings.HasPrefix(line, "SIG") || strings.HasPrefix(line, "fatal error") {
			return line
		}
	}
	return ""
}

// serveWorker is an engine process's life: it answers requests from fd 3
// on fd 5, taking cancels from fd 4, until fd 3 ends, and exits.
// unsandboxed goes with the reply to Init; after a reply, the process
// retires once it has used retireCPU.
func serveWorker(unsandboxed []string, retireCPU time.Duration) {
	calls, cancels, replies := os.NewFile(3, "espeak-requests"), os.NewFile(4, "espeak-cancels"), os.NewFile(5, "espeak-replies")
	dec, enc := gob.NewDecoder(calls), gob.NewEncoder(replies)
	var cancelled atomic.Uint64 // the ID of the call to stop
	go func() {
		var id [8]byte
		for {
			if _, err := io.ReadFull(cancels, id[:]); err != nil {
				// The engine closed the pipe or died: nothing more to do,
				// even if a call still runs.
				os.Exit(0)
			}
			cancelled.Store(binary.LittleEndian.Uint64(id[:]))
		}
	}()
	var pcm []byte // audio of one call after another
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			os.Exit(0)
		}
		rep := answer(req, pcm[:0], func() bool { return cancelled.Load() == req.ID })
		rep.ID = req.ID
		if req.Init != nil {
			rep.Unsandboxed = unsandboxed
		}
		rep.Retire = retireCPU > 0 && cpuUsed() >= retireCPU
		if enc.Encode(rep) != nil {
			os.Exit(0)
		}
		if rep.Synth != nil {
			pcm = rep.Synth.PCM
		}
	}
}

// answer carries out one request in an engine process, the audio of a
// synthesis appended to pcm.
func answer(req request, pcm []byte, stop func() bool) reply {
	var rep reply
	var err error
	switch {
	case req.Init != nil:
		rep.Table, err = nativeInit(req.Init.DataPath)
	case req.Synth != nil:
		var res synthResult
		res, err = nativeSynth(*req.Synth, pcm, stop)
		rep.Synth = &res
	case req.Phon != nil:
		rep.Clauses, err = nativePhonemes(req.Phon.Voice, req.Phon.Text, req.Phon.Mode)
	case req.Probe != nil && probe != nil:
		rep.Err = probe(*req.Probe)
	}
	if err != nil {
		rep.Err = err.Error()
		rep.UnknownVoice = errors.Is(err, engine.ErrUnknownVoice)
		rep.Stopped = errors.Is(err, errStopped)
	}
	return rep
}

func init() {
	if os.Getenv(workerEnv) == protocolVersion {
		var lim sandboxLimits
		fmt.Sscan(os.Getenv(limitsEnv), &lim.AddressSpace, &lim.CPUSeconds)
		_, refused := sandbox(lim)
		serveWorker(refused, time.Duration(lim.CPUSeconds)*time.Second/2)
		os.Exit(0)
	}
}
