//go:build cgo

package espeak

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
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
)

// request is a call to an engine process: exactly one of its parts is
// set, or Cancel.
type request struct {
	ID     uint64
	Init   *initCall     // the first request: initialize the library
	Synth  *synthCall    // speak
	Phon   *phonemesCall // phonemize
	Cancel bool          // stop the call ID if it is still running
}

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
	dataPath string
	// timeout bounds one call: a process that takes longer is taken to
	// hang and is killed.
	timeout time.Duration
	idle    chan *process // processes waiting for a call
	slots   chan struct{} // one per live process
	ids     atomic.Uint64
	table   *voiceTable
}

// process is one engine process.
type process struct {
	cmd     *exec.Cmd
	calls   *os.File // its requests pipe
	enc     *gob.Encoder
	replies chan reply    // closed when its output ends
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
// table, and returns the pool.
func startProcesses(dataPath string, size int) (*processes, error) {
	p := &processes{
		dataPath: dataPath,
		timeout:  callTimeout,
		idle:     make(chan *process, size),
		slots:    make(chan struct{}, size),
	}
	p.slots <- struct{}{}
	w, table, err := p.start()
	if err != nil {
		return nil, err
	}
	p.table = table
	p.idle <- w
	return p, nil
}

// start starts an engine process and initializes libespeak-ng in it,
// which reports its voice table; the caller holds a slot for it.
func (p *processes) start() (*process, *voiceTable, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("espeak: start engine process: %w", err)
	}
	callsR, callsW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("espeak: start engine process: %w", err)
	}
	repliesR, repliesW, err := os.Pipe()
	if err != nil {
		callsR.Close()
		callsW.Close()
		return nil, nil, fmt.Errorf("espeak: start engine process: %w", err)
	}
	widenPipe(repliesW)
	// /proc/self/exe is this very program even if its file was replaced
	// since it started.
	cmd := exec.Command(selfExe(exe))
	cmd.Args = []string{exe + " [espeak-ng]"}
	// A crash in C code makes the Go runtime print the signal and, with
	// GOTRACEBACK=none, no goroutines: the reason is in the first lines.
	cmd.Env = append(os.Environ(), workerEnv+"="+protocolVersion, "GOTRACEBACK=none")
	cmd.ExtraFiles = []*os.File{callsR, repliesW} // fds 3 and 4
	w := &process{cmd: cmd, calls: callsW, enc: gob.NewEncoder(callsW), replies: make(chan reply, 1),
		exited: make(chan struct{}), stderr: &stderrHead{max: 4096}}
	cmd.Stderr = w.stderr
	err = cmd.Start()
	callsR.Close()
	repliesW.Close()
	if err != nil {
		callsW.Close()
		repliesR.Close()
		return nil, nil, fmt.Errorf("espeak: start engine process: %w", err)
	}
	go w.read(repliesR)
	rep, err := p.call(context.Background(), w, request{Init: &initCall{DataPath: p.dataPath}})
	if err != nil {
		w.kill()
		return nil, nil, err
	}
	return w, rep.Table, nil
}

// selfExe is the path to start this program again by.
func selfExe(exe string) string {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe"
	}
	return exe
}

// read passes the process's replies on until its output ends, then waits
// for it to exit.
func (w *process) read(r *os.File) {
	dec := gob.NewDecoder(r)
	for {
		var rep reply
		if err := dec.Decode(&rep); err != nil {
			break
		}
		w.replies <- rep
	}
	close(w.replies)
	r.Close()
	w.cmd.Wait()
	close(w.exited)
}

// kill ends the process.
func (w *process) kill() {
	w.cmd.Process.Kill()
	w.calls.Close()
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

// death describes how the process ended, once it has.
func (w *process) death() string {
	w.kill()
	<-w.exited
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
	w.kill()
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
	p.idle <- w
	return rep, err
}

// call sends req to w and waits for its reply. A process that dies, or
// does not answer within the timeout, fails the call with a
// *crashError.
func (p *processes) call(ctx context.Context, w *process, req request) (reply, error) {
	req.ID = p.ids.Add(1)
	if err := w.enc.Encode(req); err != nil {
		return reply{}, &crashError{how: w.death()}
	}
	timeout := time.NewTimer(p.timeout)
	defer timeout.Stop()
	done := ctx.Done()
	for {
		select {
		case rep, ok := <-w.replies:
			if !ok {
				return reply{}, &crashError{how: w.death()}
			}
			if rep.ID != req.ID {
				continue // the answer to an earlier, abandoned call
			}
			if rep.Stopped && ctx.Err() != nil {
				return rep, ctx.Err()
			}
			return rep, rep.err()
		case <-done:
			done = nil
			if w.enc.Encode(request{ID: req.ID, Cancel: true}) != nil {
				return reply{}, &crashError{how: w.death()}
			}
			timeout.Reset(cancelGrace)
		case <-timeout.C:
			w.kill()
			<-w.exited
			return reply{}, &crashError{how: fmt.Sprintf("did not answer within %v and was killed", p.timeout)}
		}
	}
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
// on fd 4 until fd 3 ends, and exits.
func serveWorker() {
	in, out := os.NewFile(3, "espeak-requests"), os.NewFile(4, "espeak-replies")
	dec, enc := gob.NewDecoder(in), gob.NewEncoder(out)
	var cancelled atomic.Uint64 // the ID of the call to stop
	calls := make(chan request, 16)
	go func() {
		for {
			var req request
			if err := dec.Decode(&req); err != nil {
				// The engine closed the pipe or died: nothing more to do,
				// even if a call still runs.
				os.Exit(0)
			}
			if req.Cancel {
				cancelled.Store(req.ID)
				continue
			}
			calls <- req
		}
	}()
	var pcm []byte // audio of one call after another
	for req := range calls {
		rep := answer(req, pcm[:0], func() bool { return cancelled.Load() == req.ID })
		rep.ID = req.ID
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
		serveWorker()
		os.Exit(0)
	}
}
