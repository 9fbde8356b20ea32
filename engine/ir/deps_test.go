package ir

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNothingOfTheProject keeps the IR at the bottom of the
// dependency graph: lower, emu and npu depend on it alone.
func TestImportsNothingOfTheProject(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "pldworkbench/") {
				t.Errorf("%s imports %s; package ir must import nothing of the project", f, path)
			}
		}
	}
}
