package e2e

import (
	"fmt"
	"strings"
	"testing"
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
}
