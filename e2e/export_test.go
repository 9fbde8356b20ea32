package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestExportButton: a runnable cell's Export button asks the server for
// the PyPTO script of the kernel and says what it saved.
func TestExportButton(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(fmt.Sprintf("%s/step/%d", s.base, 8))
	waitFor[bool](tb, "an Export button", `!!document.querySelector('[data-test=export]')`, summary)
	tb.do("click Export", chromedp.Click(chromedp.JSPath(`document.querySelector("[data-test=export]")`)))
	note := waitFor[string](tb, "the export's note", `(() => { const t = document.querySelector('[data-test=export-note]')?.textContent ?? ''; return /exporting/.test(t) ? '' : t; })()`, summary)
	if !strings.Contains(note, "exported 08_allreduce_mesh") || !strings.Contains(note, "_pypto.py") {
		t.Errorf("the note says %q, want the saved script's name", note)
	}
}

// TestPyPTORunInPage: with the stand-in PyPTO on PYTHONPATH (it records
// the calls, returns the outputs it is handed and writes swimlane records
// in the runtime's format), a run cell's platform list offers every PyPTO
// platform, "Run on PyPTO" runs step 08's mesh on a2a3sim through the
// server, and the cell shows the stored run as it shows an emulator run:
// lanes of task slices, Outputs, a share link whose page replays it, and
// the run back after a reload.
func TestPyPTORunInPage(t *testing.T) {
	standin, _ := filepath.Abs("../engine/npu/testdata/standin")
	t.Setenv("PYTHONPATH", standin)
	t.Setenv("PLD_STANDIN_OUTPUTS", "")
	s, tb := newSession(t)
	tb.navigate(fmt.Sprintf("%s/step/%d", s.base, 8))
	c := findCell(tb, 8, "run", "08_allreduce_mesh")
	c.scrollTo()
	plat := c.q("[data-test=pypto-platform]")
	eval[bool](tb, "open the platform list", plat+`.dispatchEvent(new MouseEvent("mousedown"))`)
	opts := waitFor[string](tb, "the PyPTO platforms", `(() => { const s = `+plat+`; return s.dataset.loaded ? [...s.options].map(o => o.textContent).join(', ') : ''; })()`, summary)
	for _, p := range []string{"a2a3", "a2a3sim", "a5", "a5sim"} {
		if !strings.Contains(opts, p) {
			t.Errorf("the platform list %q lacks %s", opts, p)
		}
	}
	if !strings.Contains(opts, "a2a3sim · ready") {
		t.Errorf("with the stand-in a2a3sim should be ready: %q", opts)
	}
	tb.do("pick a2a3sim", chromedp.SetValue(chromedp.JSPath(plat), "a2a3sim"))
	tb.do("run on PyPTO", chromedp.Click(chromedp.JSPath(c.q("[data-test=pypto-run]"))))
	st := waitFor[string](tb, "the PyPTO run to end", `['done', 'failed'].includes(`+c.js()+`.dataset.state) ? `+c.js()+`.dataset.state : ''`, c.state())
	note := eval[string](tb, "the note", c.q("[data-test=export-note]")+".textContent")
	t.Logf("PyPTO run: %s; note: %s", st, note)
	// The cell is the learner's copy of the starter, whose gaps leave the
	// sum unfinished: PyPTO's driver finds the mismatch, as the emulator's
	// check would.
	if st != "failed" || !strings.Contains(note, "PyPTO 0.0.0+standin on a2a3sim: mismatch") || !strings.Contains(note, "task slices") {
		t.Errorf("the cell ended %s, the note says %q; want failed with the driver's mismatch", st, note)
	}
	if v := eval[string](tb, "the run's status line", c.js()+`.querySelector('.rv-bar')?.innerText ?? ''`); !strings.Contains(v, "check failed") {
		t.Errorf("the status line says %q, want the driver's verdict as a failed check", v)
	}
	lanes := c.q("[data-test=lanes]")
	n := waitFor[int](tb, "task slices in the lanes", `+(`+lanes+`?.dataset.events) || 0`, c.state())
	if ops := eval[string](tb, "the ops drawn", lanesJS(c)+`.order.flatMap(l => l.evs.map(e => e.op)).filter((v, i, a) => a.indexOf(v) === i).join(',')`); ops != "npu.task" {
		t.Errorf("the lanes show ops %q, want only npu.task (what the hardware records)", ops)
	}
	tb.elementShot(shotDir(t), "pypto-run.png", c.js())
	c.showView("outputs")
	if out := eval[string](tb, "outputs", c.q("[data-test=outputs]")+"?.innerText ?? ''"); !strings.Contains(out, "y") {
		t.Errorf("the Outputs view shows %.200q", out)
	}
	// Share: the link's page replays the stored PyPTO run.
	url := waitFor[string](tb, "the share link", c.q("[data-test=share]")+`?.dataset.url ?? ''`, c.state())
	id := url[strings.LastIndex(url, "/")+1:]
	tb.navigate(url)
	shared := fmt.Sprintf(`document.querySelector('[data-test=shared-run][data-id=%s]')`, jsString(id))
	waitFor[bool](tb, "the shared PyPTO run", shared+`?.dataset.replay === 'true' && +(`+shared+`.querySelector('[data-test=lanes]')?.dataset.events) === `+fmt.Sprint(n), summary)
	// Reload the step: the cell's last output is the PyPTO run.
	tb.navigate(fmt.Sprintf("%s/step/%d", s.base, 8))
	c = findCell(tb, 8, "run", "08_allreduce_mesh")
	waitFor[bool](tb, "the PyPTO run restored", `+(`+c.q("[data-test=lanes]")+`?.dataset.events) === `+fmt.Sprint(n), c.state())
}
