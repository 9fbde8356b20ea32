package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestCompareView runs step 12's compare cell (the hand-rolled broadcast
// against the builtin one) and checks the compare view: the verdict says
// the outputs are equal and the IR diff is shown.
func TestCompareView(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/12")
	c := findCell(tb, 12, "compare", "12_broadcast_hand")
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
	// The view from its tab bar down: verdict, outputs, stats and the start
	// of the IR diff.
	eval[bool](tb, "scroll to the compare view",
		fmt.Sprintf(`(%s.scrollIntoView({block: 'start'}), window.scrollBy(0, -150), true)`, c.q("[data-test=compare]")))
	tb.viewportShot(shotDir(t), "compare.png")
}
