package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestEntryDiagnostic: a diagnostic in the entry expression (the learner
// gave the step's factory another parameter, so the entry's call no
// longer fits it) is shown on the def the entry calls, naming the entry,
// in the run's list and as the editor's error mark, not on the kernel's
// first line.
func TestEntryDiagnostic(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/9")
	c := findCell(tb, 9, "run", "09_allreduce_two_phase")
	var k struct {
		Source string `json:"source"`
	}
	if err := s.getJSON("/api/kernels/09_allreduce_two_phase", &k); err != nil {
		t.Fatal(err)
	}
	const def = "def build_two_phase_allreduce(nr: int):"
	i := strings.Index(k.Source, def)
	if i < 0 {
		t.Fatalf("the kernel has no %q", def)
	}
	want := strings.Count(k.Source[:i], "\n") + 1
	c.setCode(strings.Replace(k.Source, def, "def build_two_phase_allreduce(nr: int, extra: int):", 1))
	c.setRanks(4)
	c.run()
	c.showView("explain")
	diag := c.q("[data-test=diagnostic]")
	line := waitFor[string](tb, "the entry's diagnostic", diag+"?.dataset.line ?? ''", c.state())
	if line != fmt.Sprint(want) {
		t.Errorf("the entry's diagnostic is on line %s, want %d (the factory's def)", line, want)
	}
	if text := eval[string](tb, "its text", diag+".textContent"); !strings.Contains(text, "in the entry build_two_phase_allreduce(4)") || !strings.Contains(text, "missing 1 required argument") {
		t.Errorf("the entry's diagnostic says %q", text)
	}
	if mark := eval[string](tb, "the error mark", c.q(".cm-pld-error-line")+"?.textContent ?? ''"); !strings.Contains(mark, "def build_two_phase_allreduce(") {
		t.Errorf("the editor's error mark is on %q, want the factory's def", mark)
	}
}
