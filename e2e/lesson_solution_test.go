package e2e

import (
	"fmt"
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

// TestDocPages: the index links step 0; every code cell of a lesson links
// the operation reference, which opens as a page with put's signature in
// argument order; the glossary opens from there.
func TestDocPages(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/")
	waitFor[bool](tb, "the docs links", `!!document.querySelector('[data-test=docs] a[href="/lessons/intro"]')`, summary)
	tb.do("open step 0", chromedp.Click(chromedp.JSPath(`document.querySelector('[data-test=docs] a[href="/lessons/intro"]')`)))
	intro := waitFor[string](tb, "step 0", `document.querySelector('[data-test=doc-intro]')?.innerText ?? ''`, summary)
	if !strings.Contains(intro, "The race detector") || !strings.Contains(intro, "18.6 GB/s") {
		t.Errorf("step 0 shows %.200q, want the race detector and the cost table", intro)
	}
	tb.navigate(s.base + "/step/8")
	waitFor[bool](tb, "the notebook", `!!document.querySelector('[data-test=notebook][data-step="8"]')`, summary)
	cells := eval[int](tb, "cells", `document.querySelectorAll('[data-test=cell]').length`)
	refs := eval[int](tb, "reference links", `document.querySelectorAll('.lesson .cell-ref a[href="/lessons/reference"]').length`)
	if cells == 0 || refs < cells {
		t.Errorf("step 08 has %d cells and %d links to the reference, want one per cell", cells, refs)
	}
	tb.do("open the reference", chromedp.Click(chromedp.JSPath(`document.querySelector('.lesson .cell-ref a[href="/lessons/reference"]')`)))
	ref := waitFor[string](tb, "the reference", `document.querySelector('[data-test=doc-reference]')?.innerText ?? ''`, summary)
	if !strings.Contains(ref, "pld.tensor.put(dst, peer, src, dst_offsets=None, src_offsets=None, shape=None") {
		t.Errorf("the reference shows %.300q, want put's signature", ref)
	}
	tb.do("open the glossary", chromedp.Click(chromedp.JSPath(`document.querySelector('[data-test=doc-reference] a[href="/lessons/glossary"]')`)))
	g := waitFor[string](tb, "the glossary", `document.querySelector('[data-test=doc-glossary]')?.innerText ?? ''`, summary)
	if !strings.Contains(g, "happens-before") {
		t.Errorf("the glossary shows %.200q", g)
	}
}

// TestPredictCell: step 08's predict cell hides its answer until the
// learner runs the cell, then shows it.
func TestPredictCell(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/8")
	waitFor[bool](tb, "the notebook", `!!document.querySelector('[data-test=notebook][data-step="8"]')`, summary)
	i := waitFor[int](tb, "the predict cell", `[...document.querySelectorAll('[data-test=cell]')].findIndex(c => c.dataset.predict === 'true') + 1`, summary)
	c := cell{tb: tb, i: i - 1}
	const answer = `document.querySelector('[data-test=predict-answer]')`
	if !eval[bool](tb, "the answer is hidden", answer+`.hidden && !`+answer+`.checkVisibility()`) {
		t.Fatalf("the predict answer is visible before the run: %q", eval[string](tb, "answer", answer+`.innerText`))
	}
	if st := c.run(); st != "done" && st != "failed" {
		t.Fatalf("the predict cell ended %q", st)
	}
	text := waitFor[string](tb, "the answer shown", `(`+answer+`.checkVisibility() ? `+answer+`.innerText : '')`, c.state())
	if !strings.Contains(text, "first elements are") {
		t.Errorf("the answer reads %.200q", text)
	}

	// Reload: the run's output comes back from the run store, and with it
	// the answer to the prediction the learner made.
	tb.navigate(s.base + "/step/8")
	waitFor[bool](tb, "the notebook again", `!!document.querySelector('[data-test=notebook][data-step="8"]')`, summary)
	waitFor[bool](tb, "the restored output", "!!"+c.q("[data-test=tab]"), c.state())
	text = waitFor[string](tb, "the answer after reload", `(`+answer+`.checkVisibility() ? `+answer+`.innerText : '')`, c.state())
	if !strings.Contains(text, "first elements are") {
		t.Errorf("after reload the answer reads %.200q", text)
	}
	// Clearing the output takes the answer away with it.
	tb.do("clear the output", chromedp.Click(chromedp.JSPath(c.q("[data-test=clear-output]"))))
	waitFor[bool](tb, "the answer hidden again", answer+`.hidden && !`+answer+`.checkVisibility()`, c.state())
}

// TestPredictCellsEverywhere: steps 04, 09, 12, 16 and 19 each have a
// predict cell whose answer is hidden until that cell runs, and shown
// after; the answers quote figures the engine computed.
func TestPredictCellsEverywhere(t *testing.T) {
	s, tb := newSession(t)
	for _, step := range []int{4, 9, 12, 16, 19} {
		tb.navigate(fmt.Sprintf("%s/step/%d", s.base, step))
		waitFor[bool](tb, "the notebook", fmt.Sprintf(`!!document.querySelector('[data-test=notebook][data-step="%d"]')`, step), summary)
		i := waitFor[int](tb, "the predict cell", `[...document.querySelectorAll('[data-test=cell]')].findIndex(c => c.dataset.predict === 'true') + 1`, summary)
		c := cell{tb: tb, i: i - 1}
		answer := c.js() + `.nextElementSibling`
		if !eval[bool](tb, "the answer is hidden", answer+`.classList.contains('predict-answer') && !`+answer+`.checkVisibility()`) {
			t.Fatalf("step %d: the predict answer is visible (or missing) before the run", step)
		}
		c.scrollTo()
		if st := c.run(); st != "done" && st != "failed" {
			t.Fatalf("step %d: the predict cell ended %q", step, st)
		}
		text := waitFor[string](tb, "the answer shown", `(`+answer+`.checkVisibility() ? `+answer+`.innerText : '')`, c.state())
		if !eval[bool](tb, "a computed figure in the answer", answer+`.querySelector('.fig') !== null`) {
			t.Errorf("step %d: the answer quotes no computed figure: %.200q", step, text)
		}
	}
}
