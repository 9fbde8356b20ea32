package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestCompareView runs step 12's compare cell (the hand-rolled broadcast
// against the builtin one) and checks the compare view: the verdict says
// the outputs are equal, both sides' timelines are replayed one above the
// other, and the IR diff is shown.
func TestCompareView(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/12")
	c := findCell(tb, 12, "compare", "12_broadcast_hand")
	// Side A is the learner's working copy (the starter until filled in).
	waitFor[bool](tb, "the compare cell's editor", "!!"+c.q(".cm-editor"), c.state())
	c.pasteKernel(s, "12_broadcast_hand")
	if st := c.run(); st != "done" {
		t.Fatalf("compare cell: data-state=%s, want done; %s", st, eval[string](tb, "state", c.state()))
	}
	c.showView("compare")
	verdict := waitFor[string](tb, "the compare verdict", c.q("[data-test=compare] [data-test=verdict]")+"?.textContent.trim()",
		c.q("[data-test=compare]")+"?.innerText")
	t.Logf("verdict: %q", verdict)
	if v := strings.ToLower(verdict); !strings.Contains(v, "equal") || strings.Contains(v, "not equal") || strings.Contains(v, "different") {
		t.Errorf("compare verdict %q, want it to say equal", verdict)
	}
	diff := eval[string](tb, "read the IR diff", "("+c.q("[data-test=compare] [data-test=ir-diff]")+"?.textContent ?? '').trim()")
	if diff == "" {
		t.Errorf("[data-test=ir-diff] is empty or missing")
	} else {
		t.Logf("IR diff: %d characters, begins %q", len(diff), firstLines(diff, 2))
	}
	// The diff side by side, lines aligned: a context row holds the same
	// text on both sides, and each side's line numbers count up by one
	// within a hunk (no line lost or repeated).
	type sbsRow struct {
		Kind, LText, RText string
		L, R               int
	}
	sbs := eval[[]sbsRow](tb, "read the side-by-side diff", fmt.Sprintf(`[...%s.querySelectorAll('tr')].map(r => r.classList.contains('sbs-hunk') ? {Kind: 'hunk'} :
		{Kind: r.dataset.kind, L: +r.children[0].textContent || 0, LText: r.children[1].textContent, R: +r.children[2].textContent || 0, RText: r.children[3].textContent})`,
		c.q("[data-test=compare] [data-test=ir-diff-sbs]")))
	if len(sbs) < 2 {
		t.Errorf("side-by-side diff has %d rows", len(sbs))
	}
	lastL, lastR, changed := 0, 0, 0
	for i, r := range sbs {
		if r.Kind == "hunk" {
			lastL, lastR = 0, 0
			continue
		}
		if r.Kind == "same" && r.LText != r.RText {
			t.Errorf("row %d is context but differs: %q | %q", i, r.LText, r.RText)
		}
		if r.Kind != "same" {
			changed++
		}
		if r.L != 0 {
			if lastL != 0 && r.L != lastL+1 {
				t.Errorf("row %d: left line %d after %d", i, r.L, lastL)
			}
			lastL = r.L
		}
		if r.R != 0 {
			if lastR != 0 && r.R != lastR+1 {
				t.Errorf("row %d: right line %d after %d", i, r.R, lastR)
			}
			lastR = r.R
		}
	}
	if changed == 0 {
		t.Errorf("side-by-side diff shows no changed row, but the kernels differ")
	}
	t.Logf("side-by-side diff: %d rows, %d changed", len(sbs), changed)
	// Both sides' timelines, replayed from their stored runs, stacked on
	// one time axis.
	ranks := 0
	for _, side := range []string{"a", "b"} {
		sel := "[data-test=compare-lanes-" + side + "]"
		waitFor[bool](tb, "events in "+sel,
			fmt.Sprintf(`(() => { const l = %s; return !!l && +l.dataset.events > 0; })()`, c.q(sel)),
			c.q("[data-test=compare]")+"?.innerText.slice(0, 600)")
		events := c.intAttr(sel, "data-events")
		p := c.intAttr(sel, "data-ranks")
		if p <= 0 {
			t.Errorf("%s data-ranks=%d, want the run's rank count", sel, p)
		}
		if ranks != 0 && p != ranks {
			t.Errorf("%s data-ranks=%d, side a has %d: both sides run at the same rank count", sel, p, ranks)
		}
		ranks = p
		t.Logf("%s: %d ranks, %d events", sel, p, events)
	}
	if !eval[bool](tb, "lane a above lane b", fmt.Sprintf(`%s.getBoundingClientRect().bottom <= %s.getBoundingClientRect().top`,
		c.q("[data-test=compare-lanes-a]"), c.q("[data-test=compare-lanes-b]"))) {
		t.Errorf("[data-test=compare-lanes-a] is not stacked above [data-test=compare-lanes-b]")
	}
	// The view from its top: the verdict and the two timelines (outputs,
	// stats and the IR diff follow below the fold).
	eval[bool](tb, "scroll to the compare view",
		fmt.Sprintf(`(%s.scrollIntoView({block: 'start'}), window.scrollBy(0, -56), true)`, c.q("[data-test=compare]")))
	tb.viewportShot(shotDir(t), "compare.png")
	tb.do("scroll to the diff", chromedp.ScrollIntoView(chromedp.JSPath(c.q("[data-test=compare] [data-test=ir-diff-sbs]"))))
	tb.elementShot(shotDir(t), "compare-diff.png", c.q("[data-test=compare] [data-test=ir-diff-sbs]"))
}
