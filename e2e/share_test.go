package e2e

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// storedEvents returns the number of events the server stored for run id,
// from GET /api/runs/{id}.
func storedEvents(t *testing.T, s *site, id string) int {
	t.Helper()
	var run struct {
		Status string `json:"status"`
		Events int    `json:"events"`
	}
	if err := s.getJSON("/api/runs/"+url.PathEscape(id), &run); err != nil {
		t.Fatalf("stored run %s: %v", id, err)
	}
	if run.Events <= 0 {
		t.Fatalf("stored run %s: status %q, %d events; want events", id, run.Status, run.Events)
	}
	return run.Events
}

// openShared opens a share URL in tb and waits for the replayed run with all
// of its events drawn: [data-test=shared-run][data-id=id][data-replay=true]
// and lanes data-events == events.
func openShared(t *testing.T, tb *tab, shareURL, id string, events int) {
	t.Helper()
	tb.navigate(shareURL)
	shared := fmt.Sprintf(`document.querySelector('[data-test=shared-run][data-id=%s]')`, jsString(id))
	waitFor[bool](tb, "the shared run "+id+" with data-replay=true",
		fmt.Sprintf(`%s?.dataset.replay === 'true'`, shared),
		`document.querySelector('[data-test=shared-run]')?.outerHTML.slice(0, 200) ?? document.body.innerText.slice(0, 300)`)
	lanes := shared + `.querySelector('[data-test=lanes]')`
	if eval[bool](tb, "look for the lanes tab", `!!`+shared+`.querySelector('[data-test=tab][data-view=lanes]')`) {
		tb.do("click the lanes tab", chromedp.Click(chromedp.JSPath(shared+`.querySelector('[data-test=tab][data-view=lanes]')`)))
	}
	waitFor[bool](tb, fmt.Sprintf("the shared lanes to draw %d events", events),
		fmt.Sprintf(`+(%s?.dataset.events) === %d`, lanes, events),
		lanes+`?.outerHTML.slice(0, 200)`)
	// The replayed lanes work as a live run's do: search a wait, select it,
	// and its details name the notify that released it.
	box := lanes + `.querySelector('[data-test=lane-search]')`
	eval[bool](tb, "focus the shared lanes' search", fmt.Sprintf(`(%s.value = '', %s.focus(), true)`, box, box))
	tb.do("search wait", chromedp.SendKeys(chromedp.JSPath(box), "wait"))
	tb.do("next match", chromedp.Click(chromedp.JSPath(lanes+`.querySelector('[data-test=lane-search-next]')`)))
	rel := waitFor[string](tb, "the shared wait's releasing notify", lanes+`.querySelector('[data-test=released-by]')?.textContent || ''`, lanes+`.dataset.selected`)
	if !strings.Contains(rel, "notify") {
		t.Errorf("on the share page the selected wait was released by %q, want a notify", rel)
	}
}

// TestShareReopens runs step 8's solution, shares it, and opens the share
// link in a fresh browser profile and then from a restarted server on the
// same data dir: both replay the stored run with the same number of events,
// and neither executes the engine again.
func TestShareReopens(t *testing.T) {
	dir := t.TempDir()
	chromePath(t)
	s := startSite(t, dir)
	first := startBrowser(t, testContext(t))

	c := runMesh(t, s, first, 4, "")
	waitFor[bool](first, "the share button's data-url",
		fmt.Sprintf(`!!(%s?.dataset.url)`, c.q("[data-test=share]")), c.state())
	shareURL := c.attr("[data-test=share]", "data-url")
	u, err := url.Parse(shareURL)
	if err != nil || !u.IsAbs() || !strings.HasPrefix(u.Path, "/r/") {
		t.Fatalf("share data-url = %q, want an absolute URL of /r/{id}", shareURL)
	}
	if got, want := u.Scheme+"://"+u.Host, s.base; got != want {
		t.Errorf("share URL %s points at %s, want this server %s", shareURL, got, want)
	}
	id := strings.TrimPrefix(u.Path, "/r/")
	events := storedEvents(t, s, id)
	// The run's own lanes end with every event the server stored.
	waitFor[bool](first, fmt.Sprintf("the run's lanes to draw all %d stored events", events),
		fmt.Sprintf(`+(%s?.dataset.events) === %d`, c.q("[data-test=lanes]"), events),
		c.q("[data-test=lanes]")+`?.outerHTML.slice(0, 200)`)
	execs := s.srv.Executions()
	t.Logf("shared %s: %d events, %d executions so far", shareURL, events, execs)

	// A fresh browser context has no storage, cache or cookies of the first.
	fresh := openTab(t, first.ctx, chromedp.WithNewBrowserContext())
	openShared(t, fresh, shareURL, id, events)
	// The replayed lanes at the bottom of the view, the code above them.
	eval[bool](fresh, "scroll to the shared lanes",
		`(document.querySelector('[data-test=shared-run] [data-test=lanes]').scrollIntoView({block: 'end'}), window.scrollBy(0, 40), true)`)
	fresh.viewportShot(shotDir(t), "share.png")
	if got := s.srv.Executions(); got != execs {
		t.Errorf("opening the share link executed the engine: Executions() went %d -> %d", execs, got)
	}
	fresh.close()
	first.close()

	// A new server on the same data dir serves the stored run from SQLite.
	s.stop()
	s2 := startSite(t, dir)
	if s2.base == s.base {
		t.Logf("the new server reuses port %s", s2.base)
	}
	again := startBrowser(t, testContext(t))
	openShared(t, again, s2.base+"/r/"+id, id, events)
	if got := s2.srv.Executions(); got != 0 {
		t.Errorf("replay from a restarted server executed the engine %d times, want 0", got)
	}
	if got := storedEvents(t, s2, id); got != events {
		t.Errorf("restarted server stores %d events for %s, want %d", got, id, events)
	}
}
