package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// handleCell is one entry of window.pldWorkbench.cells().
type handleCell struct {
	Index       int    `json:"index"`
	Action      string `json:"action"`
	Kernel      string `json:"kernel"`
	Entry       string `json:"entry"`
	State       string `json:"state"`
	WorkingCopy bool   `json:"working_copy"`
}

// stepRecord is one step of window.pldWorkbench.progress().
type stepRecord struct {
	Done     bool   `json:"done"`
	PassedAt string `json:"passed_at"`
	CodeHash string `json:"code_hash"`
	Started  bool   `json:"started"`
}

// runResult is what window.pldWorkbench.run(i) resolves to.
type runResult struct {
	State   string `json:"state"`
	Summary string `json:"summary"`
}

func handleCells(tb *tab) []handleCell {
	tb.t.Helper()
	return eval[[]handleCell](tb, "pldWorkbench.cells()", `window.pldWorkbench.cells()`)
}

func progressOf(tb *tab, step int) stepRecord {
	tb.t.Helper()
	return eval[stepRecord](tb, "pldWorkbench.progress()", fmt.Sprintf(`window.pldWorkbench.progress()[%q] ?? {}`, fmt.Sprint(step)))
}

// runHandle runs cell i through window.pldWorkbench.run and waits for it.
func runHandle(tb *tab, i int) runResult {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[runResult](fmt.Sprintf(`window.pldWorkbench.run(%d)`, i), chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("pldWorkbench.run(%d): %v", i, err)
	}
	return v
}

// visibleLines returns the text of the lines CodeMirror shows inside the
// scroller of cell i's editor, top to bottom (folded text is not shown).
func visibleLines(tb *tab, i int) []string {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`(async () => {
		// CodeMirror draws the lines of its viewport a frame after a scroll.
		for (let k = 0; k < 3; k++) await new Promise(r => requestAnimationFrame(r));
		const c = document.querySelectorAll('[data-test=cell]')[%d];
		const sc = c.querySelector('.cm-scroller'); if (!sc) return [];
		const box = sc.getBoundingClientRect();
		return [...c.querySelectorAll('.cm-content .cm-line')].filter(l => {
			const r = l.getBoundingClientRect(); return r.bottom > box.top + 1 && r.top < box.bottom - 1;
		}).map(l => l.textContent);
	})()`, i), chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("read the visible lines of cell %d: %v", i, err)
	}
	return v
}

// TestWorkingCopy is the learner's loop on step 8: every cell that acts
// on "your kernel" shares one working copy that starts as the starter;
// Run all on the untouched step leaves it not done; the learner's own
// kernel (here the solution pasted in) passing the check cell's full check
// marks it done, with its time and hash; the output survives a reload.
func TestWorkingCopy(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/8")
	starter := findCell(tb, 8, "starter", meshKernel+"_starter")
	waitFor[bool](tb, "the editors", fmt.Sprintf(`document.querySelectorAll('.cm-editor').length === document.querySelectorAll('[data-test=cell]').length`), summary)

	cells := handleCells(tb)
	var mine []int
	for _, c := range cells {
		want := (c.Action == "run" || c.Action == "check" || c.Action == "starter") && strings.HasPrefix(c.Kernel, meshKernel) && !strings.HasSuffix(c.Kernel, "_bug")
		if c.WorkingCopy != want {
			t.Errorf("cell %d %s %s: working_copy=%v, want %v", c.Index, c.Action, c.Kernel, c.WorkingCopy, want)
		}
		if c.WorkingCopy {
			mine = append(mine, c.Index)
			if c.Entry != "mesh_allreduce" {
				t.Errorf("cell %d: entry %q, want mesh_allreduce", c.Index, c.Entry)
			}
		}
	}
	if len(mine) < 3 {
		t.Fatalf("working-copy cells %v, want the run, check, starter and adversarial run cells; cells %+v", mine, cells)
	}
	// Every one starts as the starter, with its gaps.
	for _, i := range mine {
		if code := (cell{tb, i}).getCode(); !strings.Contains(code, "TODO(you)") {
			t.Errorf("cell %d does not start as the starter: %q", i, firstLines(code, 4))
		}
	}

	// Editors open on code: no `#!` line in view; the starter on its first TODO.
	for i := range cells {
		(cell{tb, i}).scrollTo()
		lines := visibleLines(tb, i)
		if len(lines) == 0 {
			t.Errorf("cell %d shows no lines", i)
		}
		for _, l := range lines[:min(5, len(lines))] {
			if strings.HasPrefix(l, "#!") {
				t.Errorf("cell %d shows a header line %q in its first lines %q", i, l, lines[:min(5, len(lines))])
			}
		}
	}
	todo := false
	starter.scrollTo()
	for _, l := range visibleLines(tb, starter.i) {
		todo = todo || strings.Contains(l, "TODO(you)") && strings.Contains(l, "#")
	}
	if !todo {
		t.Errorf("the starter does not open on a TODO(you): it shows %q", visibleLines(tb, starter.i))
	}

	// Run all on the untouched step: nothing the learner did passed.
	tb.do("click Run all", chromedp.Click(chromedp.JSPath(`document.querySelector("[data-test=run-all]")`)))
	waitFor[bool](tb, "Run all to finish", `(() => { const b = document.querySelector('[data-test=run-all]');
		return !b.disabled && window.pldWorkbench.cells().every(c => c.action === 'show' || c.state === 'done' || c.state === 'failed'); })()`, summary)
	if p := progressOf(tb, 8); p.Done {
		t.Errorf("Run all on the untouched step marked it done: %+v", p)
	}
	check := findCell(tb, 8, "check", meshKernel)
	if st := eval[string](tb, "check state", check.js()+".dataset.state"); st != "failed" {
		t.Errorf("the check cell on the starter ended %q, want failed", st)
	}

	// An edit in one cell is seen by every working-copy cell.
	run := findCell(tb, 8, "run", meshKernel)
	edited := strings.Replace(run.getCode(), "import argparse", "import argparse  # mine", 1)
	if edited == run.getCode() {
		t.Fatalf("the starter has no 'import argparse' to edit")
	}
	run.setCode(edited)
	for _, i := range mine {
		if got := (cell{tb, i}).getCode(); got != edited {
			t.Errorf("cell %d does not see the edit made in cell %d (%d vs %d bytes)", i, run.i, len(got), len(edited))
		}
	}

	// The learner's kernel (the solution pasted into the starter cell) passes.
	starter.pasteKernel(s, meshKernel)
	if got := check.getCode(); !strings.Contains(got, "pld.system.wait") {
		t.Fatalf("the check cell does not hold the pasted kernel: %q", firstLines(got, 4))
	}
	res := runHandle(tb, check.i)
	if res.State != "done" || !strings.Contains(res.Summary, "check passed") {
		t.Fatalf("run(check) = %+v, want done with the step check passed", res)
	}
	p := progressOf(tb, 8)
	if !p.Done || p.PassedAt == "" || p.CodeHash == "" {
		t.Errorf("progress()[8] = %+v, want done with passed_at and code_hash", p)
	}
	t.Logf("run(check) = %+v; progress %+v", res, p)
	tb.navigate(s.base + "/")
	waitFor[bool](tb, "step 8 passed on the index", stepDoneJS(8), summary)
	if got := eval[string](tb, "step 8 progress", `document.querySelector('[data-test=step-link][data-step="8"]').dataset.progress`); got != "passed" {
		t.Errorf("index step 8 data-progress=%q, want passed", got)
	}
	if got := eval[string](tb, "step 9 progress", `document.querySelector('[data-test=step-link][data-step="9"]').dataset.progress`); got != "untouched" {
		t.Errorf("index step 9 data-progress=%q, want untouched", got)
	}

	// Reload: the last output comes back from the run store.
	tb.navigate(s.base + "/step/8")
	check = findCell(tb, 8, "check", meshKernel)
	pass, _ := stepCheck(check)
	if pass != "true" {
		t.Errorf("after reload the check cell's step check data-pass=%q, want true", pass)
	}
	check.showView("lanes")
	waitFor[bool](tb, "restored lanes with events", fmt.Sprintf(`+%s.dataset.events > 0`, check.q("[data-test=lanes]")), check.state())
	if rt := check.attr("[data-test=run-time]", "title"); rt == "" {
		t.Errorf("no run time on the restored cell")
	}
	if got := check.getCode(); !strings.Contains(got, "pld.system.wait") {
		t.Errorf("after reload the working copy is not the learner's: %q", firstLines(got, 4))
	}
	// Clear output empties it, and a reload does not bring it back.
	tb.do("clear the output", chromedp.Click(chromedp.JSPath(check.q("[data-test=clear-output]"))))
	if check.has("[data-test=step-check]") || check.has("[data-test=lanes]") {
		t.Errorf("Clear output left the output in place")
	}
	tb.navigate(s.base + "/step/8")
	check = findCell(tb, 8, "check", meshKernel)
	waitFor[bool](tb, "the editors", "!!"+check.q(".cm-editor"), summary)
	if check.has("[data-test=step-check]") {
		t.Errorf("a cleared output came back after reload")
	}
}

// TestBugCells runs bug cells: each runs under the schedule that shows its
// documented failure, says "bug reproduced" in words and shows it (the race
// in Explain, the wrong data in Outputs), never the header's regexp and
// never a green pass.
func TestBugCells(t *testing.T) {
	s, tb := newSession(t)
	for _, tc := range []struct {
		step             int
		kernel, schedule string
		view, sel        string
	}{
		{4, "04_barrier_bug", "adversarial", "explain", "[data-test=race]"},
		{20, "20_window_reuse_bug", "fair", "explain", "[data-test=race]"},
		{20, "20_in_place_sum_bug", "fair", "outputs", `[data-test=rank-check][data-pass=false]`},
	} {
		tb.navigate(fmt.Sprintf("%s/step/%d", s.base, tc.step))
		c := findCell(tb, tc.step, "bug", tc.kernel)
		waitFor[bool](tb, "the bug's schedule", fmt.Sprintf(`%s.value === %q`, c.q("[data-test=schedule]"), tc.schedule), c.state())
		res := runHandle(tb, c.i)
		if !strings.Contains(res.Summary, "bug reproduced: ") {
			t.Errorf("%s: summary %q, want 'bug reproduced: ...'", tc.kernel, res.Summary)
		}
		if got := eval[string](tb, "data-bug", c.js()+".dataset.bug"); got != "reproduced" {
			t.Errorf("%s: data-bug=%q, want reproduced", tc.kernel, got)
		}
		text := eval[string](tb, "the cell's text", c.js()+".innerText")
		for _, bad := range []string{"#! bug", `\d+`, "check passed", "✓ Fails"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s: the cell shows %q", tc.kernel, bad)
			}
		}
		if badge := eval[string](tb, "badge", c.q("[data-test=state]")+".textContent"); strings.Contains(badge, "✓") {
			t.Errorf("%s: badge %q looks like a pass", tc.kernel, badge)
		}
		c.showView(tc.view)
		if !c.has(tc.sel) {
			t.Errorf("%s: the %s view has no %s", tc.kernel, tc.view, tc.sel)
		}
		t.Logf("%s: %s", tc.kernel, res.Summary)
		if tc.step == 4 {
			c.showView("explain")
			c.scrollTo()
			tb.elementShot(shotDir(t), "bug-reproduced.png", c.q(".cell-out"))
		}
	}
}
