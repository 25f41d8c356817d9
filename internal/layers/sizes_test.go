package layers

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

// Below the doors too, nothing grows back into a god object: no type
// under server/ has more than maxMethods methods, and no file of its
// code more than maxFile lines (the core split into rooms, issue 41).
const (
	maxMethods = 30
	maxFile    = 500 // lines of a non-test file
)

// serverFiles calls f with each non-test Go file under server/, its
// path relative to the module.
func serverFiles(t *testing.T, f func(rel, path string)) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(root, "server"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		f(filepath.ToSlash(rel), path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTypeMethods(t *testing.T) {
	methods := map[string]int{} // by package directory and type: "server/internal/core.Core"
	fset := token.NewFileSet()
	serverFiles(t, func(rel, path string) {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			if name := receiver(fd.Recv.List[0].Type); name != "" {
				methods[filepath.ToSlash(filepath.Dir(rel))+"."+name]++
			}
		}
	})
	if methods["server/internal/core.Core"] == 0 {
		t.Fatal("no methods of core.Core found: the walk is broken")
	}
	for typ, n := range methods {
		if n > maxMethods {
			t.Errorf("%s has %d methods, more than %d: split it by what it owns", typ, n, maxMethods)
		}
	}
}

// receiver is the type name of a method's receiver.
func receiver(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr: // T[P]
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func TestFileLines(t *testing.T) {
	serverFiles(t, func(rel, path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > maxFile {
			t.Errorf("%s has %d lines, more than %d", rel, n, maxFile)
		}
	})
}
