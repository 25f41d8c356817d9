package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameFilesThatExist: a file of the repository that README.md or
// docs/ names in backquotes (`server/internal/admin/playground.html`)
// exists, so a file that moves takes its mentions along. A path is taken
// as the repository's when its first element is a directory at the root.
func TestDocsNameFilesThatExist(t *testing.T) {
	const root = "../.."
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	path := regexp.MustCompile("`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*/[A-Za-z0-9_-]+\\.(?:html|go|md|sh|json|js|ya?ml|toml|txt))`")
	checked := 0
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range path.FindAllStringSubmatch(string(text), -1) {
			top, _, _ := strings.Cut(m[1], "/")
			if st, err := os.Stat(filepath.Join(root, top)); err != nil || !st.IsDir() {
				continue // not a path of the repository's (examples/deploy's own k8s/, say)
			}
			checked++
			if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
				t.Errorf("%s names %s, which does not exist", filepath.Base(doc), m[1])
			}
		}
	}
	if checked == 0 {
		t.Error("no path checked")
	}
}
