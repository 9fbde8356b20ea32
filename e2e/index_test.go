package e2e

import (
	"fmt"
	"slices"
	"testing"
)

// stepDoneJS is true when the index marks step n done: a
// [data-test=step-done] inside step n's link, on it, or carrying its
// data-step.
func stepDoneJS(n int) string {
	return fmt.Sprintf(`[...document.querySelectorAll('[data-test=step-done]')].some(e =>
		e.dataset.step === '%[1]d' || e.closest('[data-test=step-link]')?.dataset.step === '%[1]d' ||
		!!e.querySelector('[data-test=step-link][data-step="%[1]d"]'))`, n)
}

// TestIndex checks the lesson index: 20 step links, and step 8 marked done
// after its run passes its check in the same browser profile (and not
// before).
func TestIndex(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/")
	n := waitFor[int](tb, "the step links", `document.querySelectorAll('[data-test=step-link]').length`, summary)
	if n != 20 {
		t.Errorf("%d [data-test=step-link] elements, want 20", n)
	}
	steps := eval[[]string](tb, "read the links' data-step",
		`[...document.querySelectorAll('[data-test=step-link]')].map(e => e.dataset.step ?? '')`)
	for i := 1; i <= 20; i++ {
		if !slices.Contains(steps, fmt.Sprint(i)) {
			t.Errorf("no [data-test=step-link][data-step=%d]; links: %q", i, steps)
		}
	}
	if eval[bool](tb, "step 8 done before any run", stepDoneJS(8)) {
		t.Errorf("a fresh profile shows step 8 done before any run")
	}

	runMesh(t, s, tb, 4, "")
	tb.navigate(s.base + "/")
	waitFor[bool](tb, "step 8 marked [data-test=step-done] on the index", stepDoneJS(8),
		`[...document.querySelectorAll('[data-test=step-done]')].map(e => e.outerHTML.slice(0, 120)).join(' | ') || 'no step-done'`)
	tb.viewportShot(shotDir(t), "index.png")
}
