package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The doors stay translators over the core: the type that assembles them
// keeps few methods, and no door grows back into a server of its own.
const (
	maxServerMethods = 30
	maxDoorFile      = 400 // lines
	maxDoor          = 900 // lines of a door's non-test files
)

// root is the module's directory, from this package's.
const root = "../.."

func TestServerMethods(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, filepath.Join(root, "server"), func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil {
					continue
				}
				typ := fd.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok && id.Name == "Server" {
					methods = append(methods, fd.Name.Name)
				}
			}
		}
	}
	if len(methods) == 0 || len(methods) > maxServerMethods {
		t.Errorf("server.Server has %d methods, want 1 to %d: %v", len(methods), maxServerMethods, methods)
	}
}

func TestDoorSizes(t *testing.T) {
	for _, door := range doors {
		files, err := filepath.Glob(filepath.Join(root, door, "*.go"))
		if err != nil || len(files) == 0 {
			t.Errorf("%s: no Go files (%v)", door, err)
			continue
		}
		total := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n := strings.Count(string(b), "\n")
			total += n
			if n > maxDoorFile {
				t.Errorf("%s has %d lines, more than %d", filepath.Base(f), n, maxDoorFile)
			}
		}
		if total > maxDoor {
			t.Errorf("%s has %d lines, more than %d", door, total, maxDoor)
		}
	}
}
