package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestStep08SolutionHidden: on step 08's page no code cell shows the
// solution's barrier (the lines the bug kernel lacks and the starter asks
// for) until the learner presses "Show solution" (issue 14: the show cell
// above the starter used to display the whole answer).
func TestStep08SolutionHidden(t *testing.T) {
	const answer = "pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)"
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/8")
	c := findCell(tb, 8, "show", "08_allreduce_mesh_starter")
	waitFor[bool](tb, "the starter excerpt", "!!"+c.q(".cm-editor"), c.state())
	page := eval[string](tb, "the page text", `[...document.querySelectorAll('.cm-content')].map(e => e.textContent).join('\n')`)
	if !strings.Contains(page, "TODO(you)") {
		t.Fatalf("the page shows no starter: %.200q", page)
	}
	if strings.Contains(page, answer) {
		t.Errorf("step 08 shows the solution's %q before the learner asked", answer)
	}
	eval[bool](tb, "accept the confirm", `(window.confirm = () => true, true)`)
	tb.do("show the solution", chromedp.Click(chromedp.JSPath(`document.querySelector('[data-test=show-solution]')`)))
	text := waitFor[string](tb, "the solution", `document.querySelector('[data-test=solution] .cm-content')?.textContent ?? ''`, summary)
	if !strings.Contains(text, "Step 08 - all-reduce") {
		t.Errorf("after Show solution the solution shows %.200q, want step 08's solution", text)
	}
}
