package engine

import (
	"strings"
	"testing"
)

func panicky() (ie *InternalError) {
	defer func() {
		if p := recover(); p != nil {
			ie = recovered(p)
		}
	}()
	var m map[string]int
	m["x"] = 1 // assignment to entry in nil map
	return nil
}

// TestRecovered: a recovered panic keeps its value, names where it
// happened and keeps the stack for the caller's log; as a diagnostic and
// a run error it carries E0599 and the hint that it is the workbench's bug.
func TestRecovered(t *testing.T) {
	ie := panicky()
	if ie == nil {
		t.Fatal("no panic recovered")
	}
	if !strings.Contains(ie.Where, "panicky") || !strings.Contains(ie.Where, "internal_test.go") {
		t.Errorf("Where = %q, want the panicking function and file", ie.Where)
	}
	if !strings.Contains(string(ie.Stack), "engine.panicky") {
		t.Errorf("stack lacks the panicking frame:\n%s", ie.Stack)
	}
	d := ie.Diagnostic("p.py")
	if d.Code != "E0599" || !strings.Contains(d.Msg, "internal error in the workbench: assignment to entry in nil map") || !strings.Contains(d.Hint, "bug in the workbench") || d.Span.File != "p.py" {
		t.Errorf("diagnostic %+v", d)
	}
	if re := ie.RunError(); re.Code != "E0599" || re.Rank != -1 || re.Message != ie.Error() {
		t.Errorf("run error %+v", re)
	}
}
