// Package pgtest starts throwaway PostgreSQL servers for tests, from the
// binaries of Debian's postgresql package (/usr/lib/postgresql/*/bin) or
// from PATH.
//
// Start returns the URL of a new, empty database (Database does too,
// for examples, under Main). A test binary whose TestMain calls Main or
// Run shares one server among its tests, each test getting a database of
// its own (CREATE DATABASE takes milliseconds; starting a server takes
// about a second); without them, each Start starts a server of its own
// and stops it when the test ends.
//
// A server runs as a child of the test binary: initdb into a temporary
// directory (owned by the postgres user when the tests run as root, since
// PostgreSQL refuses to run as root), then postgres on a free loopback
// port with its own socket directory, trust authentication and no fsync.
// It gets SIGQUIT if the test binary dies, so a killed test leaves no
// server behind. When no binaries are found the test is skipped, unless
// the environment variable CI is set: then it fails.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// shared is the server of a test binary whose TestMain calls Main or Run.
var shared struct {
	main bool
	once sync.Once
	srv  *server
	err  error
}

// Main runs the tests of m, stops the server they shared (started by the
// first Start or Database) and exits. Call it from TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// When PostgreSQL is not installed it runs nothing and exits 0 (1 when
// $CI is set): every test of such a package needs it.
func Main(m *testing.M) {
	if _, err := binDir(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if os.Getenv("CI") != "" {
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "pgtest: skipping the tests of this package")
		os.Exit(0)
	}
	os.Exit(Run(m))
}

// Run is Main for a package whose tests do not all need PostgreSQL: it
// runs every test of m, sharing one server among those that call Start
// (each skips, or fails under $CI, when PostgreSQL is not installed),
// stops the server and returns m.Run's code for TestMain to exit with:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
func Run(m *testing.M) int {
	shared.main = true
	code := m.Run()
	if shared.srv != nil {
		shared.srv.stop()
	}
	return code
}

// Database returns the URL of a new, empty database on the server shared
// under Main or Run, for code that has no testing.TB, such as examples.
func Database() (string, error) {
	if !shared.main {
		return "", errors.New("pgtest: Database needs TestMain to call Main or Run")
	}
	shared.once.Do(func() { shared.srv, shared.err = start() })
	if shared.err != nil {
		return "", shared.err
	}
	return shared.srv.createDatabase()
}

// Start returns the URL (postgres://…) of a new, empty database on a
// running server, which the database's owner, postgres, reaches without
// a password. The test is skipped when PostgreSQL is not installed,
// unless $CI is set, and under go test -short (starting a server costs
// seconds; make test runs these tests).
func Start(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("pgtest: starts a PostgreSQL server; skipped by -short (make test runs it)")
	}
	if shared.main {
		dsn, err := Database()
		if err != nil {
			fail(t, err)
		}
		return dsn
	}
	srv, err := start()
	if err != nil {
		fail(t, err)
	}
	t.Cleanup(srv.stop)
	dsn, err := srv.createDatabase()
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// errMissing is the error of start when no PostgreSQL is installed.
var errMissing = errors.New("pgtest: no PostgreSQL binaries in /usr/lib/postgresql/*/bin or PATH (apt-get install postgresql)")

func fail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, errMissing) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	t.Fatal(err)
}

// binDir returns the directory holding initdb and postgres: the newest
// /usr/lib/postgresql/VERSION/bin, else the one on PATH.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(dir string) int {
		v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		return v
	}
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, dir := range dirs {
		if executable(filepath.Join(dir, "initdb")) && executable(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil && executable(filepath.Join(filepath.Dir(p), "initdb")) {
		return filepath.Dir(p), nil
	}
	return "", errMissing
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

type server struct {
	dir  string // data, socket directory and log
	port int
	cmd  *exec.Cmd
	exit chan struct{} // closed when postgres exits
	log  bytes.Buffer  // its output; read only after exit
	dbs  atomic.Int64
}

// start initializes a cluster in a temporary directory and starts a
// server on it.
func start() (*server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	// PostgreSQL refuses to run as root: run it as the postgres user, in
	// a directory of its own.
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: running as root needs a postgres user to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
		return cmd
	}
	out, err := command("initdb", "-D", filepath.Join(dir, "data"), "-A", "trust", "-U", "postgres",
		"-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	// A port found free may be taken before postgres binds it: retry.
	for range 3 {
		var s *server
		if s, err = run(dir, command); err == nil {
			return s, nil
		}
	}
	os.RemoveAll(dir)
	return nil, err
}

// run starts postgres on a free port and waits until it accepts
// connections.
func run(dir string, command func(string, ...string) *exec.Cmd) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir, port: port, exit: make(chan struct{})}
	s.cmd = command("postgres", "-D", filepath.Join(dir, "data"), "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200")
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	go func() { s.cmd.Wait(); close(s.exit) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, s.url("postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return s, nil
		}
		select {
		case <-s.exit:
			return nil, fmt.Errorf("pgtest: postgres exited: %v\n%s", s.cmd.ProcessState, s.log.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.halt()
			return nil, fmt.Errorf("pgtest: postgres did not accept connections in 30 s: %v\n%s", err, s.log.String())
		}
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (s *server) url(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, database)
}

// createDatabase makes a new database and returns its URL.
func (s *server) createDatabase() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("test%d", s.dbs.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	return s.url(name), nil
}

// stop shuts the server down and removes its directory.
func (s *server) stop() {
	s.halt()
	os.RemoveAll(s.dir)
}

// halt shuts the server down (fast shutdown: sessions are ended).
func (s *server) halt() {
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exit:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.exit
	}
}
