package layers

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/voxkit/voxkit"

// forbidden maps a package pattern (a path, or a path ending in "/..."
// for it and its subpackages) to the patterns of the packages it must not
// depend on, even indirectly.
var forbidden = map[string][]string{
	// Engines are below tts: tts drives them, they never import it.
	"engine/...": {"tts/...", "voices/...", "server/..."},
	// The stores keep accounts, keys and voice settings; tags, engines and
	// synthesis are not theirs to know.
	"server/store/...": {"tags/...", "tts/...", "engine/...", "voices/..."},
	// The protocol's words and codecs know nothing of servers.
	"tags/...":   {"tts/...", "server/..."},
	"encode/...": {"tts/...", "server/...", "engine/..."},
	"voices/...": {"tts/...", "server/..."},
	"tts/...":    {"server/..."},
	// The speech core is below every door: it knows none of them, nor
	// the package that assembles them.
	"server/internal/core": append([]string{"server", "server/internal/sockets", "server/wire"}, doors...),
	// The socket runtime is below the doors whose sockets it runs, above
	// the core.
	"server/internal/sockets": append([]string{"server", "server/wire"}, doors...),
	// The HTTP writers are under the core and the rooms: they speak no
	// door's shapes.
	"server/internal/respond": append([]string{"server", "server/wire", "server/internal/core"}, doors...),
	// The tests' harness, which starts servers, is for tests only: no
	// package of the server depends on it (outside server/ Go's internal
	// rule keeps it out).
	"server/...": {"server/internal/testserver"},
}

// neutral are the leaves of voxkit's own words (issue 41 point 3): its
// error (fault) and the values every door shares (vocab). The core, the
// socket runtime and the rooms speak them, and no door's shapes: the
// OpenAI shapes (server/wire) are one door's, which converts.
var neutral = []string{
	"server/internal/fault",
	"server/internal/vocab",
}

// doors are the server's front doors: each imports the core, never
// package server (which mounts them) nor another door.
var doors = []string{
	"server/internal/openai",
	"server/internal/socket",
	"server/internal/elevenlabs",
	"server/internal/cartesia",
	"server/internal/wyoming",
	"server/internal/admin",
	"server/internal/jobs",
}

// rooms are the packages beside the core that own one thing each
// (issue 41): the core and the doors call them, and they call neither,
// nor each other. route is the HTTP plumbing under all of them.
var rooms = []string{
	"server/internal/catalog",
	"server/internal/lexicons",
	"server/internal/credentials",
	"server/internal/route",
}

// protocolShapes are packages of a door's protocol shapes (as server/wire
// is the OpenAI door's): pure data and translation, below the core and
// every door.
var protocolShapes = []string{
	"server/internal/elevenlabs/api",
	"server/internal/cartesia/api",
}

func init() {
	for _, room := range rooms {
		banned := append([]string{"server", "server/internal/core", "server/wire"}, doors...)
		for _, other := range rooms {
			if other != room && other != "server/internal/route" {
				banned = append(banned, other)
			}
		}
		forbidden[room] = banned
	}
	// The jobs' runner is below the jobs door, which hands it the
	// translation of a job's request: it speaks no door's shapes.
	forbidden["server/internal/jobs/runner"] = append([]string{"server", "server/wire"}, doors...)
	// What the vendors' doors ask of the core and the rooms sits below
	// those doors.
	forbidden["server/internal/vendordoor"] = append([]string{"server"}, doors...)
	for _, p := range protocolShapes {
		forbidden[p] = append([]string{"server", "server/internal/core"}, doors...)
	}
	for _, p := range neutral {
		banned := append([]string{"server", "server/wire", "server/internal/core", "server/internal/sockets", "server/internal/respond"}, doors...)
		forbidden[p] = append(banned, rooms...)
	}
	for _, door := range doors {
		others := []string{"server"}
		for _, d := range doors {
			if d != door {
				others = append(others, d)
			}
		}
		forbidden[door] = others
	}
}

func TestImportGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}} {{join .Deps " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		deps[strings.TrimPrefix(fields[0], module+"/")] = fields[1:]
	}
	if len(deps) < 10 {
		t.Fatalf("go list found %d packages", len(deps))
	}
	for pattern, banned := range forbidden {
		matched := false
		for pkg, ds := range deps {
			if !matches(pattern, pkg) {
				continue
			}
			matched = true
			for _, d := range ds {
				rel, ok := strings.CutPrefix(d, module+"/")
				if ok && slices.ContainsFunc(banned, func(b string) bool { return matches(b, rel) }) {
					t.Errorf("%s depends on %s", pkg, rel)
				}
			}
		}
		if !matched {
			t.Errorf("no package matches %s", pattern)
		}
	}
}

// matches reports whether pkg is pattern, or under it when pattern ends
// in "/...".
func matches(pattern, pkg string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return pkg == pattern
}
