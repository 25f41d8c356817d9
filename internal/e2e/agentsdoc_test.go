package e2e

import (
	"bufio"
	"context"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// snippet is a fenced code block of a document, named by its first line
// ("// livekit.ts: …").
type snippet struct {
	lang, name, code string
	line             int // of the opening fence
}

var snippetNameRE = regexp.MustCompile(`^// ([\w.-]+\.(mjs|cjs|ts)):`)

// snippets returns the fenced code blocks of a Markdown file. Every block
// must be JavaScript or TypeScript and say its file name on its first
// line, so that a test can run it: a block the tests cannot run fails.
func snippets(t *testing.T, doc string) []snippet {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []snippet
	var cur *snippet
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &snippet{lang: strings.TrimPrefix(line, "```"), line: n}
		case cur != nil && line == "```":
			m := snippetNameRE.FindStringSubmatch(cur.code)
			if m == nil || cur.lang != "js" && cur.lang != "ts" || (m[2] == "ts") != (cur.lang == "ts") {
				t.Errorf("%s:%d: a ```%s block that is not a runnable snippet (```js or ```ts, first line \"// NAME.mjs|cjs|ts: …\")", doc, cur.line, cur.lang)
			} else {
				cur.name = m[1]
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil:
			cur.code += line + "\n"
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: unclosed code block", doc, cur.line)
	}
	return out
}

// TestAgentsDocSnippets runs every code snippet of docs/agents.md, as a
// reader would save and run it, with the real npm packages (the ElevenLabs
// and Cartesia SDKs, LiveKit's agents and its ElevenLabs plugin), against
// a voxkit server: each must exit 0 and leave audio behind. TypeScript is
// type-checked by tsc first and its output run. The Cartesia snippet is
// also pointed at a plain-HTTP server, where it must fail with the "wrong
// version number" error the document quotes.
func TestAgentsDocSnippets(t *testing.T) {
	node, modules := nodeSDK(t)
	for _, pkg := range []string{"@elevenlabs/elevenlabs-js", "@cartesia/cartesia-js", "@livekit/agents",
		"@livekit/agents-plugin-elevenlabs", "typescript", "@types/node"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			t.Fatalf("%s is not in %s (run .ci/install-node-sdk.sh)", pkg, modules)
		}
	}
	audiotest.Require(t, "ffprobe")
	doc := filepath.Join("..", "..", "docs", "agents.md")
	snips := snippets(t, doc)
	names := map[string]bool{}
	for _, s := range snips {
		names[s.name] = true
	}
	for _, want := range []string{"elevenlabs.mjs", "cartesia.cjs", "livekit.ts"} {
		if !names[want] {
			t.Errorf("docs/agents.md has no %s snippet", want)
		}
	}
	docText, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}

	e := newEnv(t, envOptions{espeak: true, tls: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"VOXKIT_URL=" + e.ts.URL, "VOXKIT_API_KEY=" + e.key, "NODE_EXTRA_CA_CERTS=" + ca}

	for _, s := range snips {
		t.Run(s.name, func(t *testing.T) {
			dir := snippetDir(t, modules, s)
			out, err := runSnippet(t, node, modules, dir, s, env)
			if err != nil {
				t.Fatalf("%s (docs/agents.md:%d): %v\n%s", s.name, s.line, err, out)
			}
			checkSnippetAudio(t, dir)
		})
	}

	t.Run("cartesia.cjs over http", func(t *testing.T) {
		var cartesia *snippet
		for i := range snips {
			if snips[i].name == "cartesia.cjs" {
				cartesia = &snips[i]
			}
		}
		if cartesia == nil {
			t.Skip("no cartesia.cjs snippet")
		}
		plain := newEnv(t, envOptions{})
		dir := snippetDir(t, modules, *cartesia)
		out, err := runSnippet(t, node, modules, dir, *cartesia, []string{"VOXKIT_URL=" + plain.ts.URL, "VOXKIT_API_KEY=" + plain.key})
		const quoted = "wrong version number"
		if err == nil || !strings.Contains(out, quoted) {
			t.Fatalf("over http://: err %v, want a failure saying %q:\n%.2000s", err, quoted, out)
		}
		if !strings.Contains(string(docText), quoted) {
			t.Errorf("docs/agents.md does not quote %q", quoted)
		}
	})
}

// snippetDir makes a directory holding the snippet as its file, with the
// packages in node_modules beside it, as a reader's project has them.
func snippetDir(t *testing.T, modules string, s snippet) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{s.name: s.code}
	if s.lang == "ts" {
		files["package.json"] = `{"type": "module"}`
		files["tsconfig.json"] = `{"compilerOptions": {"target": "es2022", "module": "nodenext", "moduleResolution": "nodenext",
  "strict": true, "skipLibCheck": true, "types": ["node"], "outDir": "out"}, "files": ["` + s.name + `"]}`
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runSnippet runs a snippet in its directory (TypeScript: tsc, then the
// JavaScript it wrote) and returns what it printed.
func runSnippet(t *testing.T, node, modules, dir string, s snippet, env []string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, node, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	script := s.name
	if s.lang == "ts" {
		if out, err := run(filepath.Join(modules, "typescript", "bin", "tsc"), "-p", "."); err != nil {
			return "tsc: " + out, err
		}
		script = filepath.Join("out", strings.TrimSuffix(s.name, ".ts")+".js")
	}
	return run(script)
}

// checkSnippetAudio checks the audio files a snippet left in dir: raw
// s16le (.pcm) has at least half a second at 16 kHz and is not silent;
// others are probed.
func checkSnippetAudio(t *testing.T, dir string) {
	t.Helper()
	found := 0
	for _, ext := range []string{"pcm", "mp3", "wav", "ogg"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*."+ext))
		for _, f := range files {
			found++
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if ext == "pcm" {
				if len(b)%2 != 0 || len(b) < 16000 || rms(b) < 100 {
					t.Errorf("%s: %d bytes of pcm, rms %.0f", filepath.Base(f), len(b), rms(b))
				}
				continue
			}
			if p := audiotest.ProbeFile(t, f); p.Duration < 0.5 {
				t.Errorf("%s: %+v", filepath.Base(f), p)
			}
		}
	}
	if found == 0 {
		t.Error("the snippet wrote no audio file")
	}
}
