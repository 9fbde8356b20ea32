package server

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// The acceptance tests of issue 11 that bound memory run the real
// `workbench serve` in a child process and read its peak resident set
// (VmHWM) from /proc: the kernel's own high-water mark of the whole
// process, heap, stacks and runtime overhead included, so no peak between
// two samples can be missed, and nothing of the test's own allocations
// (the clients, the decoding) is counted.

// TestAcceptUnwatchedFlood: 1000 unwatched posts (a queue of 1000, so all
// are accepted) leave the server's peak RSS under 200 MiB, and a watched
// run posted after them starts (status running) within 2 s: it goes ahead
// of the unwatched ones still queued.
func TestAcceptUnwatchedFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs workbench serve")
	}
	c := startChild(t, t.TempDir(), "--queue", "1000")
	mesh := kernelSource(t, "08_allreduce_mesh")
	accepted := 0
	for i := 0; i < 1000; i++ {
		code, _, b := postTo(t, c.url, "/api/runs", map[string]any{"code": mesh, "ranks": 4, "seed": 1000 + i})
		if code != 200 {
			t.Fatalf("unwatched post %d: %d %s", i, code, b)
		}
		accepted++
	}
	hwm := procStatus(t, c.cmd.Process.Pid, "VmHWM")
	t.Logf("%d unwatched posts accepted; server peak RSS %.1f MiB", accepted, float64(hwm)/(1<<20))
	if hwm > 200<<20 {
		t.Errorf("server peak RSS %.1f MiB after 1000 unwatched posts, want < 200 MiB", float64(hwm)/(1<<20))
	}

	begin := time.Now()
	code, _, b := postTo(t, c.url, "/api/runs", map[string]any{"code": mesh, "ranks": 8})
	if code != 200 {
		t.Fatalf("watched post: %d %s", code, b)
	}
	var pr postResponse
	if err := json.Unmarshal(b, &pr); err != nil {
		t.Fatal(err)
	}
	ws := dialTo(t, c.url, pr.ID)
	defer ws.Close()
	_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	var started time.Duration
	for started == 0 {
		ms, err := frame(t, ws)
		if err != nil {
			t.Fatalf("watched run: %v", err)
		}
		for _, m := range ms {
			if m.Type == "status" && (m.Status == "running" || m.Status == "replay") && started == 0 {
				started = time.Since(begin)
			}
		}
	}
	t.Logf("the watched run started %v after its post", started)
	if started > 2*time.Second {
		t.Errorf("the watched run started %v after its post, want within 2 s", started)
	}
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				t.Errorf("watched run socket: %v", err)
			}
			break
		}
	}
	hwm = procStatus(t, c.cmd.Process.Pid, "VmHWM")
	t.Logf("server peak RSS at the end %.1f MiB", float64(hwm)/(1<<20))
	if hwm > 200<<20 {
		t.Errorf("server peak RSS %.1f MiB, want < 200 MiB", float64(hwm)/(1<<20))
	}
	c.stop(t)
}

// TestAcceptLargeOutputsRead: a stored run with 64 MiB of outputs (4 ranks
// × 2 Mi float64 elements: what the emulator holds) is read back — GET
// /api/runs/{id}, a websocket replay, GET /api/runs/{id}/events — by a
// freshly started server whose peak RSS, startup included, stays under
// 100 MiB. The run itself is made by another server process, so its
// memory is not in the reader's high-water mark.
func TestAcceptLargeOutputsRead(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs workbench serve")
	}
	dir := t.TempDir()
	w := startChild(t, dir)
	code, _, b := postTo(t, w.url, "/api/runs", map[string]any{"code": bigOutputs(t, 2<<20), "ranks": 4, "fill": "ones"})
	if code != 200 {
		t.Fatalf("post: %d %s", code, b)
	}
	var pr postResponse
	if err := json.Unmarshal(b, &pr); err != nil {
		t.Fatal(err)
	}
	live := readAll(t, dialTo(t, w.url, pr.ID))
	if d := doneOf(t, live); d.Status != "ok" || d.Share == "" {
		t.Fatalf("the 64 MiB run: done %s", live[len(live)-1].raw)
	}
	writerHWM := procStatus(t, w.cmd.Process.Pid, "VmHWM")
	w.stop(t)

	r := startChild(t, dir)
	idle := procStatus(t, r.cmd.Process.Pid, "VmHWM")
	for i := 0; i < 3; i++ {
		resp, err := http.Get(r.url + "/api/runs/" + pr.ID)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var rec record
		if resp.StatusCode != 200 || json.Unmarshal(body, &rec) != nil || rec.Outputs["y"] == nil || rec.Outputs["y"].Stats.Count != 8<<20 {
			t.Fatalf("GET /api/runs/{id}: %d %.300s", resp.StatusCode, body)
		}
		replay := readAll(t, dialTo(t, r.url, pr.ID))
		if len(ofType(replay, "output")) != 1 || len(ofType(replay, "event")) != len(ofType(live, "event")) {
			t.Fatalf("replay: %d outputs, %d events (live %d)", len(ofType(replay, "output")), len(ofType(replay, "event")), len(ofType(live, "event")))
		}
		resp, err = http.Get(r.url + "/api/runs/" + pr.ID + "/events")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	hwm := procStatus(t, r.cmd.Process.Pid, "VmHWM")
	t.Logf("writer peak RSS %.1f MiB; reader peak RSS %.1f MiB (%.1f MiB after startup)",
		float64(writerHWM)/(1<<20), float64(hwm)/(1<<20), float64(idle)/(1<<20))
	if hwm > 100<<20 {
		t.Errorf("reading a run with 64 MiB of outputs: peak RSS %.1f MiB, want < 100 MiB", float64(hwm)/(1<<20))
	}
	r.stop(t)
}
