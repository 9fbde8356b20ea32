package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// allowed lists, for each package of the project, the project packages it
// may import (STYLE.md: syntax ← meta ← check ← lower → ir; ir, trace and
// web import nothing of the project, so any stage may use ir: meta folds
// dimension arithmetic with ir.DimArith, the one floor-division rule). A package of engine/ that imports
// the facade must not be imported by it (Go refuses the cycle; the list
// says which ones do).
var allowed = map[string][]string{
	"pldworkbench/engine/diag":     {},
	"pldworkbench/engine/limits":   {},
	"pldworkbench/engine/header":   {},
	"pldworkbench/engine/platform": {},
	"pldworkbench/engine/ir":       {},
	"pldworkbench/engine/syntax":   {"engine/diag"},
	"pldworkbench/engine/meta":     {"engine/diag", "engine/syntax", "engine/limits", "engine/ir"},
	"pldworkbench/engine/check":    {"engine/diag", "engine/syntax", "engine/meta", "engine/ir", "engine/limits", "engine/platform"},
	"pldworkbench/engine/lower":    {"engine/diag", "engine/syntax", "engine/meta", "engine/check", "engine/ir", "engine/limits"},
	"pldworkbench/engine/trace":    {},
	"pldworkbench/engine/emu":      {"engine/ir", "engine/trace", "engine/limits", "engine/platform"},
	"pldworkbench/engine/npu":      {"engine/ir", "engine/trace", "engine/limits", "engine/platform", "engine/floats"},
	"pldworkbench/engine/floats":   {"engine/ir"},
	// compare and sweep sit above the facade: like the CLI and the server
	// they take its *engine.Program and *engine.Module, and the facade
	// imports neither.
	"pldworkbench/engine/compare": {"engine", "engine/emu", "engine/floats", "engine/ir", "engine/limits", "engine/trace"},
	"pldworkbench/engine/conform": {"engine", "engine/diag", "engine/emu", "engine/floats", "engine/ir", "engine/platform", "engine/syntax"},
	"pldworkbench/engine/sweep":   {"engine", "engine/diag", "engine/emu", "engine/header", "engine/ir", "engine/limits", "engine/lower", "engine/platform"},
	"pldworkbench/kernels":        {"engine/header"},
	"pldworkbench/tutorials":      {},
	"pldworkbench/web":            {},
}

// TestLayers keeps the package graph pointing one way.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "pldworkbench/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		ok, listed := allowed[pkg]
		if !listed {
			continue // engine facade, cmd, server: may import the project freely
		}
		for _, imp := range strings.Fields(imports) {
			if !strings.HasPrefix(imp, "pldworkbench/") {
				continue
			}
			rel := strings.TrimPrefix(imp, "pldworkbench/")
			good := false
			for _, a := range ok {
				if a == rel {
					good = true
				}
			}
			if !good {
				t.Errorf("%s imports %s, which the layering does not allow", pkg, imp)
			}
		}
	}
}

// maxFacadeNames is issue 15's bound on the engine root: the facade hands
// out Load, the *Module and *Program it compiles and runs, and their
// options and results; whatever else a caller needs lives in the package
// that owns the fact (emu's fills and statuses, compare, sweep, floats).
const maxFacadeNames = 15

// TestFacadeSize keeps the engine root at most maxFacadeNames exported
// top-level names (types, functions, constants, variables; methods are
// not counted), the names `go doc -short ./engine` lists.
func TestFacadeSize(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range pkgs["engine"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 || len(names) > maxFacadeNames {
		t.Errorf("the engine root exports %d names, want 1..%d: %s", len(names), maxFacadeNames, strings.Join(names, ", "))
	}
	t.Logf("%d names: %s", len(names), strings.Join(names, ", "))
}
