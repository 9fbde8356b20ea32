package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// checkInPage clicks a run cell's "Check with PyPTO" and returns the box's
// final state and text once the server has answered.
// With paste set, the cell first holds that shipped kernel.
func checkInPage(t *testing.T, tb *tab, s *site, step int, kernel, paste, shot string) (string, string) {
	t.Helper()
	tb.navigate(fmt.Sprintf("%s/step/%d", s.base, step))
	c := findCell(tb, step, "run", kernel)
	if paste != "" {
		c.pasteKernel(s, paste)
	}
	c.scrollTo()
	tb.do("check with PyPTO", chromedp.Click(chromedp.JSPath(c.q("[data-test=pypto-check-btn]"))))
	box := c.q("[data-test=pypto-check]")
	st := waitFor[string](tb, "PyPTO's verdict", `(() => { const s = `+box+`?.dataset.state ?? ''; return s === 'running' ? '' : s; })()`, c.state())
	text := eval[string](tb, "the verdicts", box+".innerText")
	tb.elementShot(shotDir(t), shot, c.q(".export"))
	return st, text
}

// TestPyPTOCheckInPage: with the stand-in PyPTO on PYTHONPATH, a run
// cell's "Check with PyPTO" shows the workbench's verdict beside the
// compiler's: compiled, then (the stand-in refusing on request) the error
// it raised, with its messages.
func TestPyPTOCheckInPage(t *testing.T) {
	standin, _ := filepath.Abs("../engine/npu/testdata/standin")
	t.Setenv("PYTHONPATH", standin)
	s, tb := newSession(t)
	st, text := checkInPage(t, tb, s, 8, "08_allreduce_mesh", "", "pypto-check-standin.png")
	if st != "compiled" || !strings.Contains(text, "workbench: ✓ ok") || !strings.Contains(text, "PyPTO 0.0.0+standin: ✓ compiled for 4 ranks (a2a3sim") {
		t.Errorf("the check ended %s and says %q", st, text)
	}
	t.Setenv("PLD_STANDIN_COMPILE_ERROR", "refused by the stand-in")
	st, text = checkInPage(t, tb, s, 8, "08_allreduce_mesh", "", "pypto-check-standin-refused.png")
	if st != "error" || !strings.Contains(text, "✗ refused the program: ValueError: refused by the stand-in") || strings.Contains(text, "pld-pypto-") {
		t.Errorf("a refusal ended %s and says %q", st, text)
	}
}

// TestRealPyPTOCheckInPage: with the real PyPTO that PLD_PYPTO names (an
// interpreter importing pypto built from upstream sources, and torch) as
// the server's python3, step 01's cell compiles, and so does step 17's
// solution pasted over the learner's copy of the starter.
func TestRealPyPTOCheckInPage(t *testing.T) {
	py := os.Getenv("PLD_PYPTO")
	if py == "" {
		t.Skip("set PLD_PYPTO to a Python interpreter that can import pypto (built from upstream sources) and torch: the page's check with PyPTO was not tried on real PyPTO")
	}
	// The server finds PyPTO as `python3` on PATH.
	bin := t.TempDir()
	if err := os.Symlink(py, filepath.Join(bin, "python3")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	s, tb := newSession(t)
	st, text := checkInPage(t, tb, s, 1, "01_hello_rank", "", "pypto-check-real-01.png")
	if st != "compiled" || !strings.Contains(text, "✓ compiled for 2 ranks (a2a3sim") || strings.Contains(text, " D | ") {
		t.Errorf("step 01 ended %s and says %q", st, text)
	}
	st, text = checkInPage(t, tb, s, 17, "17_many_cores", "17_many_cores", "pypto-check-real-17.png")
	if st != "compiled" || !strings.Contains(text, "✓ compiled for") || strings.Contains(text, "pld-pypto-") {
		t.Errorf("step 17 ended %s and says %q", st, text)
	}
	t.Logf("step 17's check with PyPTO says:\n%s", text)
}
