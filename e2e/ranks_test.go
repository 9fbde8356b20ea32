package e2e

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// tokenRing is a program for any rank count: each rank notifies the next
// one and waits for its own cell, then copies the cell out. Its events grow
// linearly with P (about 10 per rank), so 64 ranks stay a small run.
const tokenRing = `import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")


@pl.jit.incore
def pass_token(
    seen: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
    token: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    """Each rank notifies the next one and waits for the one before it."""
    ctx = pld.get_comm_ctx(token)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    pld.system.notify(token, (me + 1) % nranks, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(token, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    got = pl.read(token, [0, 0])
    pl.write(seen, [0, 0], got)
    return seen


@pl.jit
def ring_dev(
    seen: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
    token: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    return pass_token(seen, token)


@pl.jit.host
def token_ring(seen: pl.Out[pl.Tensor[[NR, 1, 1], pl.INT32]]):
    """Host: one INT32 signal cell per rank."""
    buf = pld.alloc_window_buffer(pl.INT32.get_byte())
    for r in pl.range(pld.world_size()):
        token = pld.window(buf, [1, 1], dtype=pl.INT32)
        ring_dev(seen[r], token, device=r)
`

// postRun posts a run to the server and waits (polling GET /api/runs/{id}
// every 100 ms, within the test's deadline) until it is stored. It returns
// the id and the stored status and event count.
func postRun(t *testing.T, s *site, body map[string]any) (id, status string, events int) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := httpClient.Post(s.base+"/api/runs", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST /api/runs: %v", err)
	}
	var posted struct {
		ID    string `json:"id"`
		Error string `json:"error"`
	}
	err = json.NewDecoder(resp.Body).Decode(&posted)
	resp.Body.Close()
	if err != nil || posted.ID == "" {
		t.Fatalf("POST /api/runs: status %s, error %q (%v)", resp.Status, posted.Error, err)
	}
	deadline := time.Now().Add(waitTimeout)
	for {
		var run struct {
			Status string `json:"status"`
			Events int    `json:"events"`
		}
		err := s.getJSON("/api/runs/"+posted.ID, &run)
		if err == nil && run.Status != "" && run.Status != "running" && run.Status != "queued" {
			return posted.ID, run.Status, run.Events
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s not stored in time: status %q, err %v", posted.ID, run.Status, err)
		}
		time.Sleep(pollEvery) // polling the server's state, not waiting a fixed time
	}
}

// TestManyRanks draws larger runs: step 8 at 8 ranks from its cell, and a
// 64-rank token ring posted to the API and opened as a share page (and from
// a run cell too, when its ranks select offers 64).
func TestManyRanks(t *testing.T) {
	s, tb := newSession(t)
	c := runMesh(t, s, tb, 8, "")

	id, status, events := postRun(t, s, map[string]any{"code": tokenRing, "ranks": 64})
	if status != "ok" {
		t.Fatalf("64-rank token ring: status %s, want ok", status)
	}
	t.Logf("64-rank run %s: %d events", id, events)
	openShared(t, tb, s.base+"/r/"+id, id, events)
	lanes := `document.querySelector('[data-test=shared-run] [data-test=lanes]')`
	if got := eval[string](tb, "read the lanes' data-ranks", lanes+`.dataset.ranks ?? ''`); got != "64" {
		t.Errorf("shared 64-rank run: lanes data-ranks=%q, want 64", got)
	}
	if got := eval[string](tb, "read the lanes' data-arrows", lanes+`.dataset.arrows ?? ''`); got != "64" {
		t.Errorf("shared 64-rank ring: lanes data-arrows=%q, want 64 (one notify→wait per rank)", got)
	}

	// The same program from the notebook, if the page lets a cell run 64 ranks.
	tb.navigate(s.base + "/step/8")
	c = findCell(tb, 8, "run", meshKernel)
	if opts := c.rankOptions(); !slices.Contains(opts, "64") {
		t.Logf("the run cell's ranks select offers %q, not 64: the 64-rank run is checked through /r/{id} only", opts)
		return
	}
	c.setCode(tokenRing)
	c.setRanks(64)
	if st := c.run(); st != "done" {
		t.Logf("64-rank token ring in step 8's cell ended %s (the cell may check it against step 8's golden)", st)
	}
	c.showView("lanes")
	if got := c.intAttr("[data-test=lanes]", "data-ranks"); got != 64 {
		t.Errorf("cell lanes data-ranks=%d, want 64", got)
	}
}
