package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestTrafficOverTime runs step 8's mesh all-reduce at 4 ranks and scrubs
// the traffic heatmap through time: nothing has moved at t=0, the bytes
// shown grow with t, and the whole run shows the run's remote bytes; the
// self-traffic line is there, apart from the heatmap.
func TestTrafficOverTime(t *testing.T) {
	s, tb := newSession(t)
	c := runMesh(t, s, tb, 4, "")
	c.showView("traffic")
	tr := c.q("[data-test=traffic]")
	at := func(v int) int {
		return eval[int](tb, "scrub", fmt.Sprintf(`(() => { const r = %s; r.value = '%d'; r.dispatchEvent(new Event('input')); return +%s.dataset.shownBytes; })()`, c.q("[data-test=traffic-time]"), v, tr))
	}
	var got []int
	for _, v := range []int{0, 250, 500, 750, 1000} {
		got = append(got, at(v))
	}
	t.Logf("bytes moved up to 0, ¼, ½, ¾ and all of the run: %v", got)
	if got[0] != 0 || got[4] == 0 {
		t.Errorf("scrubbed bytes %v: want 0 at the start and the run's bytes at the end", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] < got[i-1] {
			t.Errorf("bytes shown fell from %d to %d as time went on", got[i-1], got[i])
		}
	}
	if got[2] == 0 || got[2] == got[4] {
		t.Logf("note: half-way shows %d of %d bytes", got[2], got[4])
	}
	status := eval[string](tb, "status", c.q(".rv-status")+".textContent")
	total := eval[string](tb, "total", c.q(".traffic-total")+".textContent")
	if m := regexp.MustCompile(`· ([0-9.]+ [KMG]?i?B) remote`).FindStringSubmatch(status); m == nil || !strings.HasPrefix(total, m[1]+" moved between ranks") {
		t.Errorf("traffic at the end says %q; the run's status %q", total, status)
	}
	if !c.has("[data-test=traffic-self]") {
		t.Error("no self-traffic line")
	}
	at(850)
	c.scrollTo()
	tb.elementShot(shotDir(t), "traffic-time.png", tr)
}
