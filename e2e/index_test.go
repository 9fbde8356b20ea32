package e2e

import (
	"fmt"
	"slices"
	"strings"
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
// once the learner's working copy passes its full step check in the same
// browser profile (not before, and not after a single passing run).
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
	// The icon is an inline data URL: the browser asks the server for no
	// /favicon.ico, which would be a 404.
	if icon := eval[string](tb, "read the icon link", `document.querySelector('link[rel=icon]')?.getAttribute('href') ?? ''`); !strings.HasPrefix(icon, "data:image/svg+xml,") {
		t.Errorf("link[rel=icon] href %.60q, want an inline SVG data URL", icon)
	}
	if eval[bool](tb, "step 8 done before any run", stepDoneJS(8)) {
		t.Errorf("a fresh profile shows step 8 done before any run")
	}

	// A single passing run is not the step's check: the step stays open.
	runMesh(t, s, tb, 4, "")
	tb.navigate(s.base + "/")
	waitFor[int](tb, "the step links", `document.querySelectorAll('[data-test=step-link]').length`, summary)
	if eval[bool](tb, "step 8 done after a single run", stepDoneJS(8)) {
		t.Errorf("step 8 shows done after a single passing run, before its full check passed")
	}

	// The check cell's full check (every rank count, both schedules) of
	// the working copy (runMesh pasted the finished kernel into it, and the
	// browser kept it) is.
	tb.navigate(s.base + "/step/8")
	c := findCell(tb, 8, "check", meshKernel)
	waitFor[bool](tb, "the check cell's editor", "!!"+c.q(".cm-editor"), c.state())
	if code := c.getCode(); !strings.Contains(code, "pld.system.wait(") {
		t.Fatalf("the check cell does not hold the kept working copy: %q", firstLines(code, 3))
	}
	if st := c.run(); st != "done" {
		t.Fatalf("check cell: data-state=%s, want done; %s", st, eval[string](tb, "state", c.state()))
	}
	if pass, rows := stepCheck(c); pass != "true" {
		t.Fatalf("step 8's check: data-pass=%s, rows %v", pass, rows)
	}
	tb.navigate(s.base + "/")
	waitFor[bool](tb, "step 8 marked [data-test=step-done] on the index", stepDoneJS(8),
		`[...document.querySelectorAll('[data-test=step-done]')].map(e => e.outerHTML.slice(0, 120)).join(' | ') || 'no step-done'`)
	tb.viewportShot(shotDir(t), "index.png")
}
