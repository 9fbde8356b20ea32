package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestResetUndoHistory: Reset returns an edited working copy to its text
// before the edit, Undo reset brings the edit back, and History then lists
// the snapshot Reset took.
func TestResetUndoHistory(t *testing.T) {
	chromePath(t)
	s := startSite(t, t.TempDir())
	tb := startBrowser(t, testContext(t))
	a := stepEightRunCell(s, tb)
	orig := a.getCode()
	a.setCode(orig + "\n# edited\n")
	eval[bool](tb, "confirm", "(window.confirm = () => true, true)")
	tb.do("reset", chromedp.Click(chromedp.JSPath(a.q("[data-test=reset]"))))
	if got := a.getCode(); got != orig {
		t.Fatalf("after reset: %q", got[len(got)-40:])
	}
	tb.do("undo", chromedp.Click(chromedp.JSPath(a.q("[data-test=undo-reset]"))))
	if got := a.getCode(); got != orig+"\n# edited\n" {
		t.Fatalf("after undo: %q", got[len(got)-40:])
	}
	n := eval[int](tb, "history options", "("+a.q("[data-test=history]")+".dispatchEvent(new Event('mousedown')), "+a.q("[data-test=history]")+".options.length)")
	t.Logf("history options %d", n)
	if n < 2 {
		t.Fatalf("history has %d options", n)
	}
}
