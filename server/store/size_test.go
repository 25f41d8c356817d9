package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The stores stay in rooms: no type under server/store declares more
// than maxMethods methods (a backend's Store embeds sqlstore's rooms
// rather than growing), and no file but a test holds more than maxLines
// lines.
const (
	maxMethods = 30
	maxLines   = 500
)

func TestSizes(t *testing.T) {
	methods := map[string][]string{} // "dir.Type" → its methods
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := strings.Count(string(src), "\n"); n > maxLines {
			t.Errorf("%s has %d lines, more than %d", path, n, maxLines)
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			typ := fd.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				key := filepath.Dir(path) + "." + id.Name
				methods[key] = append(methods[key], fd.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(methods) == 0 {
		t.Fatal("no methods found")
	}
	for typ, ms := range methods {
		if len(ms) > maxMethods {
			t.Errorf("%s has %d methods, more than %d: %v", typ, len(ms), maxMethods, ms)
		}
	}
}
