package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestReadmeLink: the lessons no longer send learners to the authors'
// format README (issue 14), and the README still opens as a page at
// /lessons/README, not /step/README.md (which was not found).
func TestReadmeLink(t *testing.T) {
	s, tb := newSession(t)
	for _, step := range []int{1, 17} {
		tb.navigate(fmt.Sprintf("%s/step/%d", s.base, step))
		waitFor[bool](tb, "the notebook", fmt.Sprintf(`!!document.querySelector('[data-test=notebook][data-step="%d"]')`, step), summary)
		href := eval[string](tb, "a README link", `[...document.querySelectorAll('.lesson a')].find(a => /README/.test(a.textContent))?.getAttribute('href') ?? ''`)
		if href != "" {
			t.Errorf("step %d links to the authors' README at %q", step, href)
		}
	}
	tb.navigate(s.base + "/lessons/README")
	text := waitFor[string](tb, "the README page", `document.querySelector('[data-test=readme]')?.innerText ?? ''`, `document.body.innerText.slice(0, 300)`)
	if !strings.Contains(text, "cell") {
		t.Errorf("the README page does not describe the cells: %.200q", text)
	}
	// An address no route takes is an HTML page that says so, not JSON.
	tb.navigate(s.base + "/no/such/page")
	msg := waitFor[string](tb, "the not-found page", `document.querySelector('.error-page')?.innerText ?? ''`, `document.body.innerText.slice(0, 300)`)
	if !strings.Contains(msg, "no page at /no/such/page") {
		t.Errorf("not-found page says %q", msg)
	}
}

// TestTrafficAndCompileError: step 15's all-to-all at 8 ranks moves the
// same bytes in the Traffic heatmap as the run's summary counts (a rank's
// put to itself is neither); the entry picker runs the pull entry alone;
// a program that does not compile offers no Swimlanes, Traffic, Share or
// Download.
func TestTrafficAndCompileError(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/15")
	c := findCell(tb, 15, "run", "15_all_to_all_hand")
	waitFor[bool](tb, "the editor", "!!"+c.q(".cm-editor"), c.state())
	c.pasteKernel(s, "15_all_to_all_hand")
	opts := eval[[]string](tb, "the entry options", fmt.Sprintf(`[...(%s?.options ?? [])].map(o => o.value)`, c.q("[data-test=entry]")))
	if strings.Join(opts, ",") != "all_to_all_push,all_to_all_pull" {
		t.Fatalf("entry picker offers %q, want all_to_all_push and all_to_all_pull", opts)
	}
	tb.do("pick the pull entry", chromedp.SetValue(chromedp.JSPath(c.q("[data-test=entry]")), "all_to_all_pull"))
	c.setRanks(8)
	if st := c.run(); st != "done" {
		t.Fatalf("all_to_all_pull at 8 ranks: %s; %s", st, eval[string](tb, "state", c.state()))
	}
	if head := c.attr("[data-test=cell-entry]", "class"); head == "" {
		t.Errorf("no [data-test=cell-entry] in the cell header")
	}
	if head := eval[string](tb, "header", c.q("[data-test=cell-entry]")+".textContent"); head != "entry all_to_all_pull · 8 ranks" {
		t.Errorf("cell header says %q, want entry all_to_all_pull · 8 ranks", head)
	}
	if e := handleCells(tb)[c.i].Entry; e != "all_to_all_pull" {
		t.Errorf("cells()[%d].entry = %q", c.i, e)
	}
	status := eval[string](tb, "the run's status", c.q(".rv-status")+".textContent")
	m := regexp.MustCompile(`([\d.]+ (?:B|KiB|MiB)) remote`).FindStringSubmatch(status)
	if m == nil {
		t.Fatalf("status %q names no remote bytes", status)
	}
	c.showView("traffic")
	total := eval[string](tb, "the traffic total", c.q(".traffic-total")+"?.textContent ?? ''")
	if !strings.HasPrefix(total, m[1]+" moved between ranks") {
		t.Errorf("traffic says %q, the run's summary %s remote", total, m[1])
	}
	t.Logf("summary %s remote; traffic %q", m[1], total[:min(len(total), 40)])

	c.setCode(c.getCode() + "\ndef broken(:\n")
	c.run()
	for _, sel := range []string{"[data-test=tab][data-view=lanes]", "[data-test=tab][data-view=traffic]", "[data-test=share]", "[data-test=download-trace]"} {
		if eval[bool](tb, "visible "+sel, fmt.Sprintf(`(() => { const e = %s; return !!e && !e.hidden && e.getClientRects().length > 0; })()`, c.q(sel))) {
			t.Errorf("after a compile error %s is still offered", sel)
		}
	}
	if sel := c.attr("[data-test=tab][data-view=explain]", "aria-selected"); sel != "true" {
		t.Errorf("after a compile error the explain tab is not shown (aria-selected=%q)", sel)
	}
}

// TestComparePairsByName: step 4 compares the builtin barrier (outputs y
// and tally) with the hand-rolled one (tally only): tally is compared with
// tally, y is only in A, never y with tally.
func TestComparePairsByName(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/4")
	c := findCell(tb, 4, "compare", "04_barrier_builtin")
	if st := c.run(); st != "done" {
		t.Fatalf("compare: %s; %s", st, eval[string](tb, "state", c.state()))
	}
	c.showView("compare")
	rows := eval[[]string](tb, "the compare rows", fmt.Sprintf(`[...%s.querySelectorAll('.cmp-table:not(.stats) tbody tr')].map(r => r.innerText)`, c.js()))
	joined := strings.Join(rows, " | ")
	if strings.Contains(joined, "y / tally") || !strings.Contains(joined, "only in A") || !strings.Contains(joined, "tally") {
		t.Errorf("compare rows %q, want tally with tally and y only in A", rows)
	}
}

// TestShareShowsChanges: a shared edit of the learner's kernel shows what
// changed from the lesson's kernel, and when it was stored in words.
func TestShareShowsChanges(t *testing.T) {
	s, tb := newSession(t)
	c := stepEightRunCell(s, tb)
	c.pasteKernel(s, meshKernel)
	c.setCode(strings.Replace(c.getCode(), "import argparse", "import argparse  # my edit", 1))
	c.run()
	waitFor[bool](tb, "the share url", fmt.Sprintf(`!!(%s?.dataset.url)`, c.q("[data-test=share]")), c.state())
	tb.navigate(c.attr("[data-test=share]", "data-url"))
	waitFor[bool](tb, "the changes", `document.querySelector('[data-test=share-changes]')?.dataset.changed === 'true'`, `document.body.innerText.slice(0, 400)`)
	added := eval[string](tb, "the added lines", `[...document.querySelectorAll('[data-test=share-changes] .d-add')].map(e => e.textContent).join('\n')`)
	if !strings.Contains(added, "# my edit") {
		t.Errorf("the share page's diff adds %q, want the edit", added)
	}
	stored := eval[string](tb, "the stored time", `[...document.querySelectorAll('.facts dt')].find(d => d.textContent === 'stored')?.nextElementSibling?.textContent ?? ''`)
	if stored == "" || regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:`).MatchString(stored) {
		t.Errorf("stored time %q, want it in words, not RFC 3339", stored)
	}
}

// TestOutputsAndLayout: Outputs shows the expected values beside the
// learner's, the wrong ones marked, and expands to every value; the check
// banner does not touch the cell border; at 390 px the tabs scroll inside
// the cell instead of widening the page; the split view puts the active
// cell beside the lesson and is remembered.
func TestOutputsAndLayout(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/8")
	c := findCell(tb, 8, "starter", meshKernel+"_starter")
	c.run() // the starter: y == x, wrong
	c.showView("outputs")
	if !c.has("[data-test=want]") || !c.has("[data-test=bad-val]") {
		t.Errorf("outputs show no expected values or no marked mismatch")
	}
	count := func() int {
		return eval[int](tb, "values in a row", fmt.Sprintf(`%s.querySelectorAll('span').length`, c.q("[data-test=vals]")))
	}
	before := count()
	tb.do("expand the outputs", chromedp.Click(chromedp.JSPath(c.q("[data-test=out-expand]"))))
	if after := count(); after <= before {
		t.Errorf("expanding shows %d values per row, before %d", after, before)
	}
	gap := eval[float64](tb, "banner gap", fmt.Sprintf(`%s.getBoundingClientRect().left - %s.getBoundingClientRect().left`, c.q("[data-test=step-check] .verdict"), c.js()))
	if gap < 6 {
		t.Errorf("the check banner sits %.0f px from the cell border, want some room", gap)
	}

	tb.do("narrow the window", chromedp.EmulateViewport(390, 800))
	tb.navigate(s.base + "/step/8")
	c = findCell(tb, 8, "starter", meshKernel+"_starter")
	waitFor[bool](tb, "the restored output", "!!"+c.q("[data-test=tab]"), c.state())
	if w := eval[int](tb, "page width", `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px the page is %d px wide: %s", w, eval[string](tb, "wide", `[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 392 && !e.closest('.cm-scroller, .tabs, .out-scroll, .heat-wrap, pre')).slice(0, 8).map(e => e.tagName + '.' + e.className + ':' + Math.round(e.getBoundingClientRect().right)).join(' ')`))
	}
	if right := eval[float64](tb, "tabs' right edge", c.q("[data-test=tab]")+".closest('.tabs').getBoundingClientRect().right"); right > 390 {
		t.Errorf("at 390 px the tab bar ends at %.0f px", right)
	}
	c.scrollTo()
	tb.elementShot(shotDir(t), "narrow.png", c.q(".runview"))
	tb.do("widen the window", chromedp.EmulateViewport(1280, 900))

	tb.do("switch to the split view", chromedp.Click(chromedp.JSPath(`document.querySelector('[data-test=layout]')`)))
	waitFor[bool](tb, "a cell in the split pane", `!!document.querySelector('.notebook.split [data-test=split-pane] [data-test=cell]')`, summary)
	tb.navigate(s.base + "/step/8")
	waitFor[bool](tb, "the split view after reload", `!!document.querySelector('.notebook.split [data-test=split-pane] [data-test=cell]')`, summary)
	tb.do("pick the check cell", chromedp.Click(chromedp.JSPath(`[...document.querySelectorAll('[data-test=cell-stub]')].find(b => /check/i.test(b.textContent))`)))
	if a := eval[string](tb, "active cell", `document.querySelector('[data-test=split-pane] [data-test=cell]').dataset.action`); a != "check" {
		t.Errorf("after picking the check stub the pane shows a %s cell", a)
	}
	tb.viewportShot(shotDir(t), "split-view.png")
	tb.do("back to one column", chromedp.Click(chromedp.JSPath(`document.querySelector('[data-test=layout]')`)))
	if eval[bool](tb, "split gone", `!!document.querySelector('.notebook.split')`) {
		t.Errorf("the single-column toggle left the split view")
	}
}

// TestEntriesAndSolution: step 11's kernel has four entries and every
// working-copy cell offers them all; the solution is hidden until the
// learner asks, then shown read-only without its header.
func TestEntriesAndSolution(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/11")
	c := findCell(tb, 11, "run", "11_allreduce_reveal")
	waitFor[bool](tb, "the editor", "!!"+c.q(".cm-editor"), c.state())
	opts := eval[[]string](tb, "the entry options", fmt.Sprintf(`[...(%s?.options ?? [])].map(o => o.value)`, c.q("[data-test=entry]")))
	if len(opts) != 4 {
		t.Errorf("step 11's run cell offers entries %q, want the kernel's four", opts)
	}
	if got := eval[string](tb, "selected entry", c.q("[data-test=entry]")+".value"); got != `build_allreduce_reveal({P}, "ring", "sum").allreduce` {
		t.Errorf("the run cell's entry is %q, want the lesson's ring/sum entry", got)
	}
	if eval[bool](tb, "solution shown", `!!document.querySelector('[data-test=solution] .cm-editor')`) {
		t.Errorf("the solution is shown before the learner asked")
	}
	eval[bool](tb, "accept the confirm", `(window.confirm = () => true, true)`)
	tb.do("show the solution", chromedp.Click(chromedp.JSPath(`document.querySelector('[data-test=show-solution]')`)))
	// CodeMirror draws the lines near the viewport first and the rest as
	// it measures, so the text is read once the lesson's entry is in it
	// (a timeout says what was shown).
	solution := `document.querySelector('[data-test=solution] .cm-content')?.textContent ?? ''`
	text := waitFor[string](tb, "the solution with its entry", `(t => t.includes('allreduce') ? t : '')(`+solution+`)`, solution)
	if strings.Contains(text, "#!") || !strings.Contains(text, "allreduce") {
		t.Errorf("the solution shows %.120q", text)
	}
	if ed := eval[string](tb, "editable", `document.querySelector('[data-test=solution] .cm-content').getAttribute('contenteditable')`); ed != "false" {
		t.Errorf("the solution's editor is editable (contenteditable=%q)", ed)
	}
}
