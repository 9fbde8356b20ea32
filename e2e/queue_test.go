package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pldworkbench/server"
)

// TestQueuedPosition starts a server with one worker slot, occupies it with
// a long run (testdata/long_mesh.py at 4 ranks) from one tab, and runs the
// same program at 2 ranks (another run) from a second tab: that cell shows
// its place ("queued: N of M", N and M from the websocket's last queue
// message; the page's own editor checks may wait for the slot too), and
// runs once the first is stopped.
func TestQueuedPosition(t *testing.T) {
	chromePath(t)
	long, err := os.ReadFile("testdata/long_mesh.py")
	if err != nil {
		t.Fatal(err)
	}
	// The first run must hold the slot until it is stopped, however fast
	// the machine: budgets it cannot use up (steps, and the 256 bytes the
	// engine charges per event, about 4 M events a GiB; the server keeps at
	// most 500k of them), the timeout as backstop.
	s := startSiteWith(t, server.Options{DataDir: t.TempDir(), MaxConcurrentRuns: 1, RunTimeout: 120 * time.Second,
		RunSteps: 1 << 40, MemoryBudget: 64 << 30})
	tb := startBrowser(t, testContext(t))
	a := stepEightRunCell(s, tb)
	a.setCode(string(long))
	a.setRanks(4)
	tb2 := openTab(t, tb.ctx, chromedp.WithNewBrowserContext())
	tb2.navigate(s.base + "/step/8")
	b := findCell(tb2, 8, "run", meshKernel)
	waitFor[bool](tb2, "the run cell's editor", "!!"+b.q(".cm-editor"), b.state())
	b.setCode(string(long))
	b.setRanks(2)
	// Both tabs are ready before the first run starts, so the second run
	// is posted right after the first holds the slot.
	tb.do("run the long program", chromedp.Click(chromedp.JSPath(a.q("[data-test=run]"))))
	waitFor[bool](tb, "the first run running", a.js()+".dataset.state === 'running'", a.state())

	eval[bool](tb2, "record the queue messages", recordQueue)
	tb2.do("run it at 2 ranks", chromedp.Click(chromedp.JSPath(b.q("[data-test=run]"))))
	ctx, cancel := context.WithTimeout(tb2.ctx, 30*time.Second)
	defer cancel()
	badge, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => { const c = `+b.js()+`; return c.dataset.state === 'queued' && c.dataset.queue ? c.querySelector('.badge').textContent : ''; })()`,
		chromedp.WithPollingInterval(pollEvery)))
	if err != nil {
		t.Fatalf("waiting for the queued position in the cell state: %v; first cell %s (%s); messages %s; cell %s", err, eval[string](tb, "first state", a.state()), eval[string](tb, "first status", a.q(".rv-status")+".textContent"),
			eval[string](tb2, "messages", "JSON.stringify(window.__e2eLog)"), eval[string](tb2, "state", b.state()))
	}
	// The page may have editor checks waiting for the same slot, so the
	// run's place is what the server last said, not a constant.
	last := waitFor[string](tb2, "the page to show the last queue message", `(() => {
		const q = window.__e2eQueue, t = `+b.js()+`.querySelector('.badge').textContent;
		return q && t === '◷ queued: ' + q.position + ' of ' + q.of ? q.position + ' of ' + q.of : ''; })()`,
		"JSON.stringify(window.__e2eQueue) + ' badge ' + "+b.js()+".querySelector('.badge').textContent")
	status := eval[string](tb2, "run status", b.q(".rv-status")+".textContent")
	t.Logf("second cell: badge %q, last queue message %s, status %q", badge, last, status)
	if !strings.Contains(status, last) {
		t.Errorf("the queued run's status line says %q, want its place %s", status, last)
	}
	tb2.viewportShot(shotDir(t), "queued.png")

	tb.do("stop the first run", chromedp.Click(chromedp.JSPath(a.q("[data-test=stop]"))))
	waitFor[bool](tb2, "the second run running once the slot is free", b.js()+".dataset.state === 'running' && !"+b.js()+".dataset.queue", b.state())
	tb2.do("stop the second run", chromedp.Click(chromedp.JSPath(b.q("[data-test=stop]"))))
	waitFor[bool](tb2, "the second run stopped", b.js()+".dataset.state !== 'running'", b.state())
}

// recordQueue makes the page keep the last queue message any of its
// websockets received in window.__e2eQueue (a run's own socket sends
// messages and batches of them, the page's session socket frames of a
// run's messages).
const recordQueue = `(() => {
	const W = window.WebSocket;
	window.WebSocket = class extends W {
		constructor(u, p) {
			super(u, p);
			this.addEventListener('message', (ev) => {
				const d = JSON.parse(ev.data);
				const list = d && d.type === 'messages' ? d.messages : Array.isArray(d) ? d : [d];
				for (const m of list) {
					(window.__e2eLog = window.__e2eLog || []).push(m.type === 'status' ? m.type + ':' + m.status : m.type);
					if (m.type === 'queue') window.__e2eQueue = m;
				}
			});
		}
	};
	return true;
})()`
