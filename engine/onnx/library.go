package onnx

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ErrLibraryNotFound is returned (wrapped) when no ONNX Runtime shared
// library can be found.
var ErrLibraryNotFound = errors.New("onnx: ONNX Runtime library not found")

// InstallHint tells a user how to get the ONNX Runtime library.
const InstallHint = "ONNX Runtime >= 1.24 is needed (libonnxruntime.so.1): " +
	"in a voxkit checkout run .ci/install-onnxruntime.sh (make does it for you), " +
	"which puts it in .cache/onnxruntime; elsewhere install an ONNX Runtime " +
	"release and pass its path as Options.LibraryPath (the example binaries " +
	"read ONNXRUNTIME_LIB)"

// libraryNames are the file names tried in each well-known directory.
var libraryNames = []string{"libonnxruntime.so.1", "libonnxruntime.so"}

// FindLibrary returns the absolute path of the ONNX Runtime shared library
// to load. An explicit path is used as given (it must exist). Otherwise
// FindLibrary looks, in order, in:
//
//   - $XDG_CACHE_HOME/voxkit/onnxruntime, then the user cache directory's
//     voxkit/onnxruntime (~/.cache/voxkit/onnxruntime);
//   - .cache/onnxruntime in the working directory and in each of its
//     parents (where .ci/install-onnxruntime.sh puts it in a checkout);
//   - /usr/local/lib, /usr/lib, /usr/lib/<arch>-linux-gnu and
//     /opt/onnxruntime/lib.
//
// FindLibrary does not read ONNXRUNTIME_LIB: programs that honour that
// variable pass it as explicit. The error wraps ErrLibraryNotFound and
// says how to install the library.
func FindLibrary(explicit string) (string, error) {
	if explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return "", fmt.Errorf("%w: %w; %s", ErrLibraryNotFound, err, InstallHint)
		}
		return abs, nil
	}
	dirs := libraryDirs()
	for _, dir := range dirs {
		for _, name := range libraryNames {
			p := filepath.Join(dir, name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%w (looked for %s in the voxkit cache, .cache/onnxruntime here and above, and the system library directories); %s",
		ErrLibraryNotFound, strings.Join(libraryNames, " and "), InstallHint)
}

// libraryDirs lists the directories FindLibrary searches, in order.
func libraryDirs() []string {
	var dirs []string
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" && filepath.IsAbs(x) {
		dirs = append(dirs, filepath.Join(x, "voxkit", "onnxruntime"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".cache", "voxkit", "onnxruntime"))
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			dirs = append(dirs, filepath.Join(dir, ".cache", "onnxruntime"))
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	dirs = append(dirs, "/usr/local/lib", "/usr/lib")
	if arch != "" {
		dirs = append(dirs, "/usr/lib/"+arch+"-linux-gnu")
	}
	return append(dirs, "/opt/onnxruntime/lib")
}

// InitRuntime finds the ONNX Runtime library (FindLibrary(libraryPath))
// and initializes its environment, once per process, for packages that run
// models of their own beside this one's, such as engine/pocket; Load does
// the same. log receives a warning when the environment is already up from
// another library; nil means slog.Default().
func InitRuntime(libraryPath string, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	lib, err := FindLibrary(libraryPath)
	if err != nil {
		return err
	}
	return initRuntime(lib, log)
}

// runtimeEnv guards ONNX Runtime's environment, which is global to the
// process: the first successful Load initializes it from its library and
// it stays up until the process exits (it is small; tearing it down while
// another Engine may still use it would be unsafe). A Load that fails to
// initialize it leaves it uninitialized, so a later Load may try another
// library.
var runtimeEnv struct {
	mu   sync.Mutex
	path string // library the environment was initialized from
	// sharedArena says an arena allocator is registered on the
	// environment for sessions to share (ArenaShared).
	sharedArena bool
}

// initRuntime initializes the ONNX Runtime environment from the library at
// path, once per process.
func initRuntime(path string, log *slog.Logger) error {
	runtimeEnv.mu.Lock()
	defer runtimeEnv.mu.Unlock()
	if runtimeEnv.path != "" || ort.IsInitialized() {
		if runtimeEnv.path == "" {
			runtimeEnv.path = "(initialized outside engine/onnx)"
		}
		if !sameFile(runtimeEnv.path, path) {
			log.Warn("onnx: ONNX Runtime is already loaded from another library; using it", "loaded", runtimeEnv.path, "requested", path)
		}
		return nil
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("onnx: cannot load ONNX Runtime from %s: %w; %s", path, err, InstallHint)
	}
	runtimeEnv.path = path
	if err := registerSharedArena(); err != nil {
		log.Warn("onnx: no shared arena allocator; sessions use their own allocators", "err", err)
	} else {
		runtimeEnv.sharedArena = true
	}
	log.Debug("onnx: ONNX Runtime loaded", "library", path, "version", ort.GetVersion())
	return nil
}

// registerSharedArena registers one arena-backed CPU allocator on the
// environment, which sessions opened with ArenaShared use instead
// of an arena each.
func registerSharedArena() error {
	mem, err := ort.GetMemoryInfo()
	if err != nil {
		return err
	}
	cfg, err := ort.NewArenaCfg(0, -1, -1, -1) // ORT's defaults
	if err != nil {
		return err
	}
	defer cfg.Destroy()
	return ort.CreateAndRegisterAllocator(mem, cfg)
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return os.SameFile(sa, sb)
}
