package engine_test

import (
	"os/exec"
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
