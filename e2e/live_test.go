package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pldworkbench/server"
)

// stopWithin bounds how long a stopped run may take to leave "running":
// the engine checks its context between steps, so a stop ends the run in
// well under a second; 15 s leaves room for a loaded 2-core machine and is
// still far below the server's run timeout in TestLiveAndStop (120 s), so a
// stop that did not work cannot pass as a timeout.
const stopWithin = 15 * time.Second

// recordSockets is a JavaScript statement that makes the page note the URL
// of every websocket it opens in window.__e2eSockets, and the id of every
// run its session socket (/ws/session) says it started in
// window.__e2eRuns, so that the test learns the run's id from what the
// page itself connected to.
const recordSockets = `(() => {
	if (window.__e2eSockets) return true;
	window.__e2eSockets = [];
	window.__e2eRuns = [];
	const W = window.WebSocket;
	window.WebSocket = class extends W {
		constructor(u, p) {
			super(u, p);
			window.__e2eSockets.push(String(u));
			this.addEventListener("message", (e) => {
				try {
					const f = JSON.parse(e.data);
					if (f && f.type === "started") window.__e2eRuns.push(f.id);
				} catch {}
			});
		}
	};
	return true;
})()`

// TestLiveAndStop replaces the code of step 8's run cell with a program
// that runs for many seconds (testdata/long_mesh.py, which has the step's
// entry, mesh_allreduce, and its signature), runs it, and checks that the
// lanes fill while the cell is still running; then it presses Stop and
// checks that the cell leaves "running" promptly, says the run stopped, and
// that the server did not store the run.
func TestLiveAndStop(t *testing.T) {
	chromePath(t)
	long, err := os.ReadFile("testdata/long_mesh.py")
	if err != nil {
		t.Fatal(err)
	}
	// A run timeout far above stopWithin: only the stop can end this run
	// within the test's waits.
	s := startSiteWith(t, server.Options{DataDir: t.TempDir(), RunTimeout: 120 * time.Second})
	tb := startBrowser(t, testContext(t))
	c := stepEightRunCell(s, tb)
	c.setCode(string(long))
	if got := c.getCode(); got != string(long) {
		t.Fatalf("getCode after setCode differs from the text set (%d vs %d bytes)", len(got), len(long))
	}
	c.setRanks(4)
	eval[bool](tb, "record the page's websockets", recordSockets)
	tb.do("click run", chromedp.Click(chromedp.JSPath(c.q("[data-test=run]"))))

	// Both conditions in one evaluation: events drawn while the cell runs.
	lanes := c.q("[data-test=lanes]")
	live := waitFor[int](tb, "lanes with events while the cell is running",
		fmt.Sprintf(`(() => { const c = %s, l = %s; const n = l ? +l.dataset.events : 0;
			return c.dataset.state === 'running' && n > 0 ? n : 0; })()`, c.js(), lanes),
		c.state()+` + ' lanes: ' + (`+lanes+`?.outerHTML.slice(0, 200))`)
	t.Logf("lanes drew %d events while data-state=running", live)

	id := runIDOf(t, tb)
	var rec struct {
		Status string `json:"status"`
		Events int    `json:"events"`
	}
	if err := s.getJSON("/api/runs/"+url.PathEscape(id), &rec); err != nil {
		t.Fatalf("GET /api/runs/%s while running: %v", id, err)
	}
	if rec.Status != "running" || rec.Events == 0 {
		t.Errorf("GET /api/runs/%s while running: status %q with %d events, want running with events", id, rec.Status, rec.Events)
	}
	// The lanes keep filling: the count grows while the run goes on.
	more := waitFor[int](tb, "more events while still running",
		fmt.Sprintf(`(() => { const c = %s, n = +%s.dataset.events; return c.dataset.state === 'running' && n > %d ? n : 0; })()`, c.js(), lanes, live),
		c.state())
	t.Logf("then %d events, still running", more)

	// The status line, the tabs and the lanes filling in, in one view.
	eval[bool](tb, "scroll to the lanes", fmt.Sprintf(`(%s.scrollIntoView({block: 'end'}), window.scrollBy(0, 40), true)`, lanes))
	tb.viewportShot(shotDir(t), "live.png")

	if st := eval[string](tb, "state before stop", c.js()+".dataset.state"); st != "running" {
		t.Fatalf("the cell is %q before Stop, want running (did the run end on its own?)", st)
	}
	// The screenshot scrolled the lanes into view, which can leave Stop just
	// under the sticky header, where a click lands on the header's link.
	c.scrollTo()
	tb.do("click stop", chromedp.Click(chromedp.JSPath(c.q("[data-test=stop]"))))
	ended := fmt.Sprintf(`(() => { const s = %s.dataset.state; return s === 'running' || s === 'queued' ? '' : s; })()`, c.js())
	ctx, cancel := context.WithTimeout(tb.ctx, stopWithin)
	defer cancel()
	st, err := chromedp.Run(ctx, chromedp.Poll[string](ended, chromedp.WithPollingInterval(pollEvery)))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("still running %s after Stop", stopWithin)
		}
		t.Fatalf("stop: %v; %s", err, eval[string](tb, "state", c.state()))
	}
	// API.md's states: a stopped run has ended without passing, so failed;
	// the status line and the explain view say it was stopped.
	if st != "failed" {
		t.Errorf("data-state after Stop = %q, want failed", st)
	}
	status := eval[string](tb, "read the run status", c.q(".rv-status")+"?.textContent ?? ''")
	if !strings.Contains(status, "stopped") {
		t.Errorf("the run's status line says %q after Stop, want it to say stopped", status)
	}
	summary := eval[string](tb, "read the explain summary", c.q("[data-test=explain] .explain-summary")+"?.textContent ?? ''")
	if !strings.Contains(summary, "stopped before it finished") {
		t.Errorf("the explain view says %q after Stop, want that the run was stopped", summary)
	}
	if c.has("[data-test=share]:not([hidden])") {
		t.Errorf("a stopped run offers a share link: %s", c.attr("[data-test=share]", "data-url"))
	}
	resp, err := httpClient.Get(s.base + "/api/runs/" + url.PathEscape(id))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /api/runs/%s after Stop: %s, want 404 (a stopped run is not stored)", id, resp.Status)
	}
	if n := s.srv.Executions(); n != 1 {
		t.Errorf("the server executed %d runs, want 1", n)
	}
}

// runIDOf returns the id of the one run the page followed since
// recordSockets: on its session socket, or on a run websocket of its own.
func runIDOf(t *testing.T, tb *tab) string {
	t.Helper()
	socks := eval[[]string](tb, "read the page's websockets", "window.__e2eSockets")
	ids := eval[[]string](tb, "read the page's session runs", "window.__e2eRuns")
	for _, u := range socks {
		if _, id, ok := strings.Cut(u, "/ws/runs/"); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("the page followed %d runs (%q; sockets %q), want 1", len(ids), ids, socks)
	}
	id, err := url.PathUnescape(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestDeadlockShownOnce runs step 20's set-not-add bug, which deadlocks,
// and checks that the explain view reports the deadlock once, with its
// hint, and no run-time error box repeating it (the engine also reports a
// deadlock as error E0513).
func TestDeadlockShownOnce(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/20")
	c := findCell(tb, 20, "bug", "20_set_not_add_bug")
	waitFor[bool](tb, "the bug cell's editor", "!!"+c.q(".cm-editor"), c.state())
	c.setRanks(4)
	st := c.run()
	t.Logf("the deadlocking run ended with data-state=%s", st)
	c.showView("explain")
	waitFor[bool](tb, "a [data-test=deadlock] item", "!!"+c.q("[data-test=deadlock]"), c.q("[data-test=explain]")+"?.innerText")
	count := func(sel string) int {
		return eval[int](tb, "count "+sel, fmt.Sprintf(`%s.querySelectorAll(%s).length`, c.q("[data-test=explain]"), jsString(sel)))
	}
	if n := count("[data-test=deadlock]"); n != 1 {
		t.Errorf("%d [data-test=deadlock] items, want 1", n)
	}
	if n := count("[data-test=run-error]"); n != 0 {
		t.Errorf("%d [data-test=run-error] items beside the deadlock, want 0: %s", n,
			eval[string](tb, "read the error", c.q("[data-test=run-error]")+".innerText"))
	}
	text := eval[string](tb, "read the deadlock", c.q("[data-test=deadlock]")+".innerText")
	if !strings.Contains(text, "Hint: ") || !strings.Contains(text, "waits at") {
		t.Errorf("the deadlock item does not name the waits and the hint: %q", text)
	}
	tb.elementShot(shotDir(t), "deadlock.png", c.q("[data-test=explain]"))
}
