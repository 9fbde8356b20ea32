package e2e

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/chromedp/chromedp"
)

// cell is one notebook cell, addressed by its index among the page's
// [data-test=cell] elements, which is also the index getCode and setCode
// take.
type cell struct {
	tb *tab
	i  int
}

// findCell waits for notebook step to render and returns its first cell with
// data-action=action whose data-kernel names kernel. API.md says
// data-kernel=NAME while the lesson's Markdown writes kernels/NAME.py, so both
// spellings match; a longer name (NAME_bug) does not.
func findCell(tb *tab, step int, action, kernel string) cell {
	tb.t.Helper()
	waitFor[bool](tb, fmt.Sprintf("the notebook of step %d", step),
		fmt.Sprintf(`!!document.querySelector('[data-test=notebook][data-step="%d"]')`, step), summary)
	expr := fmt.Sprintf(`(() => {
		const re = new RegExp('(^|/)' + %s + '(\\.py)?$');
		const cells = [...document.querySelectorAll('[data-test=cell]')];
		return cells.findIndex(c => c.dataset.action === %s && re.test(c.dataset.kernel || '')) + 1;
	})()`, jsString(kernel), jsString(action))
	n := waitFor[int](tb, fmt.Sprintf("a cell with data-action=%s data-kernel=%s", action, kernel), expr, summary)
	return cell{tb: tb, i: n - 1}
}

// js is the JavaScript expression for the cell element.
func (c cell) js() string {
	return fmt.Sprintf(`document.querySelectorAll('[data-test=cell]')[%d]`, c.i)
}

// q is the JavaScript expression for the first element matching sel inside
// the cell.
func (c cell) q(sel string) string {
	return c.js() + ".querySelector(" + jsString(sel) + ")"
}

// has reports whether the cell holds an element matching sel.
func (c cell) has(sel string) bool {
	c.tb.t.Helper()
	return eval[bool](c.tb, "look for "+sel, "!!"+c.q(sel))
}

// attr returns attribute name of the first element matching sel in the
// cell, or "" when the element or the attribute is missing.
func (c cell) attr(sel, name string) string {
	c.tb.t.Helper()
	return eval[string](c.tb, "read "+sel+" "+name,
		fmt.Sprintf(`(%s?.getAttribute(%s)) ?? ''`, c.q(sel), jsString(name)))
}

// intAttr is attr parsed as an integer; a missing or malformed value fails
// the test.
func (c cell) intAttr(sel, name string) int {
	c.tb.t.Helper()
	s := c.attr(sel, name)
	n, err := strconv.Atoi(s)
	if err != nil {
		c.tb.t.Fatalf("cell %d: %s %s = %q, want an integer", c.i, sel, name, s)
	}
	return n
}

// state describes the cell, for failure messages.
func (c cell) state() string {
	return fmt.Sprintf(`(() => { const c = %s; if (!c) return 'no cell %d';
		return 'state=' + c.dataset.state + ' run-count=' + (c.querySelector('[data-test=run-count]')?.textContent ?? '-') +
		' text: ' + c.innerText.slice(0, 400); })()`, c.js(), c.i)
}

// getCode returns the cell's editor text through window.pldWorkbench.
func (c cell) getCode() string {
	c.tb.t.Helper()
	return eval[string](c.tb, "getCode", fmt.Sprintf(`window.pldWorkbench.getCode(%d)`, c.i))
}

// setCode replaces the cell's editor text through window.pldWorkbench.
func (c cell) setCode(code string) {
	c.tb.t.Helper()
	expr := fmt.Sprintf(`(window.pldWorkbench.setCode(%d, %s), true)`, c.i, jsString(code))
	eval[bool](c.tb, "setCode", expr)
}

// rankOptions returns the values the cell's [data-test=ranks] select offers.
func (c cell) rankOptions() []string {
	c.tb.t.Helper()
	return eval[[]string](c.tb, "read the ranks options",
		fmt.Sprintf(`[...(%s?.options ?? [])].map(o => o.value)`, c.q("[data-test=ranks]")))
}

// setRanks chooses n in the cell's ranks select (firing input and change).
func (c cell) setRanks(n int) {
	c.tb.t.Helper()
	want := strconv.Itoa(n)
	if opts := c.rankOptions(); !slices.Contains(opts, want) {
		c.tb.t.Fatalf("cell %d: [data-test=ranks] offers %q, want an option %s", c.i, opts, want)
	}
	c.tb.do("choose "+want+" ranks", chromedp.SetValue(chromedp.JSPath(c.q("[data-test=ranks]")), want))
}

// run clicks the cell's [data-test=run] button and waits until this run
// ends: data-state changed after the click (or the run count moved) and is
// now done or failed. It returns the final data-state.
func (c cell) run() string {
	c.tb.t.Helper()
	// A MutationObserver notes every data-state change from here on, so that
	// a rerun that goes done -> running -> done faster than the poll is seen.
	arm := fmt.Sprintf(`(() => {
		const c = %s;
		const w = (window.__e2eRuns = window.__e2eRuns || {});
		w[%d] = {changes: 0, count: c.querySelector('[data-test=run-count]')?.textContent ?? ''};
		new MutationObserver(ms => { w[%d].changes += ms.length; }).observe(c, {attributes: true, attributeFilter: ['data-state']});
		return true;
	})()`, c.js(), c.i, c.i)
	eval[bool](c.tb, "watch the cell state", arm)
	c.tb.do("click run", chromedp.Click(chromedp.JSPath(c.q("[data-test=run]"))))
	done := fmt.Sprintf(`(() => {
		const c = %s, w = window.__e2eRuns[%d];
		const moved = w.changes > 0 || (c.querySelector('[data-test=run-count]')?.textContent ?? '') !== w.count;
		const s = c.dataset.state;
		return moved && (s === 'done' || s === 'failed') ? s : '';
	})()`, c.js(), c.i)
	// Should the run not end, the failure says whether the click could
	// have started it: the button's state, what is at its centre (a click
	// that landed on something else started nothing), and the changes
	// seen since.
	clickState := fmt.Sprintf(`(() => {
		const b = %s, w = (window.__e2eRuns || {})[%d] || {};
		if (!b) return 'no run button';
		const r = b.getBoundingClientRect(), at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
		return 'run button disabled=' + b.disabled + ', at its centre: ' + (at === b || b.contains(at) ? 'the button' : (at ? at.outerHTML.slice(0, 80) : 'nothing')) +
			', data-state changes seen: ' + w.changes + '; ';
	})() + %s`, c.q("[data-test=run]"), c.i, c.state())
	return waitFor[string](c.tb, fmt.Sprintf("cell %d to finish its run", c.i), done, clickState)
}

// showView clicks the cell's tab for view (lanes, outputs, explain, compare,
// traffic) when the cell has such a tab, and waits for the view's element
// [data-test=view] to be present.
func (c cell) showView(view string) {
	c.tb.t.Helper()
	tabSel := fmt.Sprintf("[data-test=tab][data-view=%s]", view)
	if c.has(tabSel) {
		c.tb.do("click the "+view+" tab", chromedp.Click(chromedp.JSPath(c.q(tabSel))))
	}
	waitFor[bool](c.tb, fmt.Sprintf("cell %d's [data-test=%s] view", c.i, view),
		fmt.Sprintf(`(() => { const e = %s; return !!e && e.getClientRects().length > 0; })()`, c.q("[data-test="+view+"]")),
		c.state())
}

// scrollTo scrolls the cell to the top of the viewport, below the page's
// sticky header (about 45 px high).
func (c cell) scrollTo() {
	c.tb.t.Helper()
	eval[bool](c.tb, "scroll to the cell", fmt.Sprintf(`(%s.scrollIntoView({block: 'start'}), window.scrollBy(0, -60), true)`, c.js()))
}

// pasteKernel puts the shipped source of kernel name into the cell, as a
// learner who copies a file in would: on a working-copy cell it becomes the
// working copy every such cell shares.
func (c cell) pasteKernel(s *site, name string) {
	c.tb.t.Helper()
	var k struct {
		Source string `json:"source"`
	}
	if err := s.getJSON("/api/kernels/"+name, &k); err != nil || k.Source == "" {
		c.tb.t.Fatalf("GET /api/kernels/%s: %v (source %d bytes)", name, err, len(k.Source))
	}
	c.setCode(k.Source)
}
