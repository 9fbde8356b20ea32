package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// scRow is one [data-test=step-check-row] of a cell's step check.
type scRow struct {
	Ranks string `json:"ranks"`
	Pass  string `json:"pass"`
	Text  string `json:"text"`
}

// stepCheck waits for the cell's full step check to show its verdict and
// returns the [data-test=step-check] data-pass and the rows.
func stepCheck(c cell) (string, []scRow) {
	c.tb.t.Helper()
	pass := waitFor[string](c.tb, "the step check's verdict",
		fmt.Sprintf(`%s?.dataset.pass ?? ''`, c.q("[data-test=step-check]")),
		c.q("[data-test=step-check-slot]")+"?.innerText")
	rows := eval[[]scRow](c.tb, "read the step check rows",
		fmt.Sprintf(`[...%s.querySelectorAll('[data-test=step-check-row]')].map(e => ({ranks: e.dataset.ranks ?? '', pass: e.dataset.pass ?? '', text: e.innerText}))`, c.js()))
	return pass, rows
}

// TestStepCheckCell runs step 8's check cell: besides its single run, the
// page runs the step's full check, a row per rank count of the kernel
// (2, 3, 4 and 8), every one passing under both schedules. With the
// barrier deleted the same cell fails the check with a race, and the
// single run's own verdict still shows in the outputs view.
func TestStepCheckCell(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/8")
	c := findCell(tb, 8, "check", meshKernel)
	waitFor[bool](tb, "the check cell's editor", "!!"+c.q(".cm-editor"), c.state())
	c.pasteKernel(s, meshKernel) // the learner's kernel, finished
	if st := c.run(); st != "done" {
		t.Fatalf("check cell: data-state=%s, want done; %s", st, eval[string](tb, "state", c.state()))
	}
	pass, rows := stepCheck(c)
	if pass != "true" {
		t.Errorf("[data-test=step-check] data-pass=%q, want true; rows %v", pass, rows)
	}
	var ranks []string
	for _, r := range rows {
		ranks = append(ranks, r.Ranks)
		if r.Pass != "true" || !strings.Contains(r.Text, "fair+adversarial") {
			t.Errorf("row P=%s: data-pass=%s %q, want a pass under fair+adversarial", r.Ranks, r.Pass, r.Text)
		}
	}
	if want := []string{"2", "3", "4", "8"}; !slices.Equal(ranks, want) {
		t.Errorf("step check rows at ranks %v, want %v (08_allreduce_mesh's #! ranks)", ranks, want)
	}
	t.Logf("solution: step check %s, rows %v", pass, rows)
	// The lanes still show the single run at the selected rank count.
	c.showView("lanes")
	waitFor[bool](tb, "lanes with events", fmt.Sprintf(`+%s.dataset.events > 0`, c.q("[data-test=lanes]")), c.state())

	c.setCode(withoutBarrier(t, c.getCode()))
	if st := c.run(); st != "failed" {
		t.Errorf("check cell without the barrier: data-state=%s, want failed", st)
	}
	pass, rows = stepCheck(c)
	if pass != "false" {
		t.Errorf("without the barrier: [data-test=step-check] data-pass=%q, want false", pass)
	}
	failed := 0
	for _, r := range rows {
		if r.Pass == "false" {
			failed++
			if !strings.Contains(r.Text, "race") {
				t.Errorf("failing row P=%s %q does not name the race", r.Ranks, r.Text)
			}
		}
	}
	if failed == 0 {
		t.Errorf("no failing row without the barrier: %v", rows)
	}
	t.Logf("no barrier: step check %s, rows %v", pass, rows)
	c.scrollTo()
	tb.elementShot(shotDir(t), "step-check.png", c.q("[data-test=step-check]"))
	c.showView("outputs")
	if v := c.attr("[data-test=check-verdict]", "data-pass"); v != "false" {
		t.Errorf("the single run's [data-test=check-verdict] data-pass=%q, want false", v)
	}
}
