package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScheduleExplorer removes the barrier of step 8's mesh all-reduce in
// its run cell and presses "Try schedules" (20): the explorer lists the
// failing seeds, as many as `workbench run --schedules 20` counts on the
// same code, and opening one runs the cell under that seed, whose Explain
// reports the race.
func TestScheduleExplorer(t *testing.T) {
	s, tb := newSession(t)
	c := stepEightRunCell(s, tb)
	c.pasteKernel(s, meshKernel)
	edited, loops := removeBarrier(c.getCode())
	if loops == 0 {
		t.Fatal("no barrier loop found in the mesh kernel")
	}
	c.setCode(edited)
	c.setRanks(4)

	tb.do("try 20 schedules", chromedp.Click(chromedp.JSPath(c.q("[data-test=try-schedules]"))))
	ex := c.q("[data-test=schedules]")
	waitFor[bool](tb, "the explorer's answer", ex+".dataset.state === 'done' || "+ex+".dataset.state === 'failed'", ex+".textContent")
	failed := c.intAttr("[data-test=schedules]", "data-failed")
	ran := c.intAttr("[data-test=schedules]", "data-ran")
	seeds := eval[[]string](tb, "listed seeds", fmt.Sprintf(`[...%s.querySelectorAll('[data-test=open-seed]')].map(b => b.dataset.seed)`, ex))
	summary := eval[string](tb, "summary", c.q("[data-test=schedules-summary]")+".textContent")
	t.Logf("explorer: %s; seeds listed %v", summary, seeds)
	if ran != 20 || failed == 0 || len(seeds) != failed {
		t.Errorf("explorer ran %d schedules, %d failed, %d listed; want 20 run and the failing ones listed", ran, failed, len(seeds))
	}

	// The command line on the same code says the same count.
	f := filepath.Join(t.TempDir(), "mesh_no_barrier.py")
	if err := os.WriteFile(f, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("go", "run", "../cmd/workbench", "run", f, "--ranks", "4", "--schedules", "20").CombinedOutput()
	m := regexp.MustCompile(`20 random schedules: (\d+) failed`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("workbench run --schedules 20 printed no count:\n%s", out)
	}
	if n, _ := strconv.Atoi(string(m[1])); n != failed {
		t.Errorf("the page lists %d failing seeds, workbench run --schedules 20 counts %d", failed, n)
	}
	c.scrollTo()
	tb.elementShot(shotDir(t), "schedules.png", c.q(".cell-controls"))

	// Open the first failing seed: the cell runs under it and Explain has the race.
	seed := seeds[0]
	eval[bool](tb, "watch the cell", fmt.Sprintf(`(window.__e2eRuns = window.__e2eRuns || {}, window.__e2eRuns[%d] = {changes: 0, count: ''}, new MutationObserver(ms => { window.__e2eRuns[%d].changes += ms.length; }).observe(%s, {attributes: true, attributeFilter: ['data-state']}), true)`, c.i, c.i, c.js()))
	tb.do("open seed "+seed, chromedp.Click(chromedp.JSPath(fmt.Sprintf(`%s.querySelector('[data-test=open-seed][data-seed="%s"]')`, ex, seed))))
	waitFor[bool](tb, "the seed's run to finish", fmt.Sprintf(`window.__e2eRuns[%d].changes > 0 && ['done', 'failed'].includes(%s.dataset.state)`, c.i, c.js()), c.state())
	if got := eval[string](tb, "schedule", c.q("[data-test=schedule]")+".value"); got != "random:"+seed {
		t.Errorf("the cell's schedule is %q after opening seed %s", got, seed)
	}
	status := eval[string](tb, "status", c.q(".rv-status")+".textContent")
	if !strings.Contains(status, "race") {
		t.Errorf("the run under random:%s says %q, want the race", seed, status)
	}
	c.showView("explain")
	explain := eval[string](tb, "explain", c.q("[data-test=explain]")+".innerText")
	if !strings.Contains(explain, "barrier") {
		t.Errorf("Explain under random:%s does not say which barrier is missing: %.300q", seed, explain)
	}
}
