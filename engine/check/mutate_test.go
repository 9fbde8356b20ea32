package check

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// TestMutationsDoNotPanic deletes, one at a time, each line of every
// program in testdata/ok and checks the result: whatever the diagnostics,
// the checker must not panic, an error must come with a code and a
// position, and a program it accepts must pass ir.VerifyWith. Deleting a
// line exercises the paths a learner's half-edited program takes: missing
// definitions, missing arguments, calls to functions that lost their body.
func TestMutationsDoNotPanic(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "ok", "*.py"))
	runs, accepted := 0, 0
	for _, path := range files {
		for _, c := range readChunks(t, path) {
			lines := strings.Split(string(c.src), "\n")
			for i := range lines {
				if strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(strings.TrimSpace(lines[i]), "#") {
					continue
				}
				mutated := strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "\n")
				runs++
				if mutateOnce(t, c, []byte(mutated), i+1) {
					accepted++
				}
			}
		}
	}
	t.Logf("%d mutants checked, %d accepted", runs, accepted)
}

// mutateOnce checks one mutant; it reports whether the checker accepted it.
func mutateOnce(t *testing.T, c chunk, src []byte, line int) (accepted bool) {
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s without line %d: panic: %v", c.name(), line, r)
		}
	}()
	f, errs := syntax.ParseFile(c.file, src)
	if errs.HasErrors() {
		return false
	}
	mod, errs := meta.Load(f, meta.Options{})
	if errs.HasErrors() {
		return false
	}
	expr := c.headers["entry"]
	if expr == "" {
		expr = c.headers["func"]
	}
	v, errs := mod.Eval(expr)
	if errs.HasErrors() {
		return false
	}
	fn, ok := v.(*meta.DSLFunc)
	if !ok {
		return false
	}
	opts := c.options(t)
	if c.headers["entry"] == "" || fn.Kind != meta.Host {
		_, diags := CheckFunc(mod, fn, opts)
		for _, d := range diags {
			if d.Code == "" || !d.Span.IsValid() {
				t.Errorf("%s without line %d: diagnostic without code or position: %v", c.name(), line, d)
			}
		}
		return !diags.HasErrors()
	}
	prog, diags := Check(mod, fn, opts)
	for _, d := range diags {
		if d.Code == "" || !d.Span.IsValid() {
			t.Errorf("%s without line %d: diagnostic without code or position: %v", c.name(), line, d)
		}
	}
	if diags.HasErrors() {
		return false
	}
	if err := ir.VerifyWith(prog, LegalAt); err != nil {
		t.Errorf("%s without line %d: accepted program fails verification: %v\n%s", c.name(), line, err, fmt.Sprint(ir.Print(prog)))
	}
	return true
}
