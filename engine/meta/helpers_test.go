package meta

import (
	"testing"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/syntax"
)

// parse parses src as the file name, failing the test on a syntax error.
func parse(t *testing.T, name, src string) *syntax.File {
	t.Helper()
	f, errs := syntax.ParseFile(name, []byte(src))
	if errs.HasErrors() {
		t.Fatalf("parse %s: %v", name, errs)
	}
	return f
}

// load parses and loads src, failing the test on any diagnostic.
func load(t *testing.T, src string) *Module {
	t.Helper()
	m, errs := Load(parse(t, "prog.py", src), Options{})
	if len(errs) > 0 {
		t.Fatalf("load: %s", diag.RenderAll(errs, []byte(src)))
	}
	return m
}

// loadErr parses and loads src and returns its single diagnostic.
func loadErr(t *testing.T, src string, opts Options) diag.Diagnostic {
	t.Helper()
	_, errs := Load(parse(t, "prog.py", src), opts)
	if len(errs) != 1 {
		t.Fatalf("load: got %d diagnostics, want 1: %v", len(errs), errs)
	}
	return errs[0]
}

// evalOK evaluates an entry expression in m, failing on error.
func evalOK(t *testing.T, m *Module, expr string) Value {
	t.Helper()
	v, errs := m.Eval(expr)
	if len(errs) > 0 {
		t.Fatalf("eval %q: %v", expr, errs)
	}
	return v
}

// evalErr evaluates an entry expression in m and returns its diagnostic.
func evalErr(t *testing.T, m *Module, expr string) diag.Diagnostic {
	t.Helper()
	v, errs := m.Eval(expr)
	if len(errs) != 1 {
		t.Fatalf("eval %q: got value %v and %d diagnostics, want 1 diagnostic", expr, v, len(errs))
	}
	return errs[0]
}
