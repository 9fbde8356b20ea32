package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/trace"
	"pldworkbench/tutorials/check"
)

// TestRunStep8 runs step 8's solution at 4 ranks over the websocket and
// checks every kind of message it sends.
func TestRunStep8(t *testing.T) {
	ts := start(t, "")
	pr, ms := ts.watch(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "step": 8, "ranks": 4})
	if pr.Cached || pr.Settings.Entry != "mesh_allreduce" || pr.Settings.Ranks != 4 || pr.Settings.Variant != "solution" ||
		pr.Settings.Fill != "randn" || pr.Settings.Seed != 1 || pr.Settings.Schedule != "fair" || pr.Settings.Platform != "910B" {
		t.Errorf("post = %+v", pr)
	}
	// The run starts on the post, so on a busy machine it may be over and
	// stored before the socket opens: then the client gets its replay.
	if ms[0].Type != "status" || (ms[0].Status != "running" && ms[0].Status != "replay") || ms[0].Ranks != 4 {
		t.Errorf("first message %s", ms[0].raw)
	}
	ranks := map[int]bool{}
	for _, m := range ofType(ms, "event") {
		var e trace.Event
		if err := json.Unmarshal(m.Event, &e); err != nil {
			t.Fatal(err)
		}
		ranks[e.Rank] = true
	}
	for r := 0; r < 4; r++ {
		if !ranks[r] {
			t.Errorf("no event of rank %d", r)
		}
	}
	outs := ofType(ms, "output")
	if len(outs) != 1 || outs[0].Name != "y" {
		t.Fatalf("outputs: %d", len(outs))
	}
	var oc check.OutputCheck
	if err := json.Unmarshal(outs[0].Check, &oc); err != nil {
		t.Fatalf("output check %s: %v", outs[0].Check, err)
	}
	if !oc.Pass || len(oc.Ranks) != 4 {
		t.Errorf("output check = %+v", oc)
	}
	for r, rc := range oc.Ranks {
		if rc.Rank != r || !rc.Pass || rc.FirstBad != -1 || rc.MaxAbsDiff > 1e-5 {
			t.Errorf("rank check %d = %+v", r, rc)
		}
	}
	var tens floats.TensorJSON
	if err := json.Unmarshal(outs[0].Tensor, &tens); err != nil || tens.DType != "FP32" || fmt.Sprint(tens.Shape) != "[4 1 64]" || len(tens.Data) != 256 {
		t.Errorf("tensor = %+v (%v)", tens, err)
	}
	done := ms[len(ms)-1]
	var d doneMsg
	if err := json.Unmarshal(done.raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.Status != "ok" || d.Share != "/r/"+pr.ID || d.Check == nil || !d.Check.Pass || d.Stats.Events != int64(len(ofType(ms, "event"))) {
		t.Errorf("done = %s", done.raw)
	}
	if !strings.Contains(ts.log.String(), "run "+pr.ID+" ok ") {
		t.Errorf("log lacks the run's line:\n%s", ts.log.String())
	}
}

// TestStepCheckFails runs the step's starter: it runs clean, and the
// per-rank check fails with wrong data.
func TestStepCheckFails(t *testing.T) {
	ts := start(t, "")
	_, ms := ts.watch(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh_starter"), "step": 8, "variant": "starter", "ranks": 4})
	var d doneMsg
	if err := json.Unmarshal(ms[len(ms)-1].raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.Status != "ok" || d.Check == nil || d.Check.Pass || d.Check.Status != check.WrongData || d.Check.Reason == "" {
		t.Errorf("done = %s", ms[len(ms)-1].raw)
	}
	var oc check.OutputCheck
	if err := json.Unmarshal(ofType(ms, "output")[0].Check, &oc); err != nil || oc.Pass {
		t.Errorf("output check = %+v %v", oc, err)
	}
}

// TestRunRace runs the mesh without its barrier: the race report names
// the read and the write it races with.
func TestRunRace(t *testing.T) {
	ts := start(t, "")
	_, ms := ts.watch(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh_bug"), "ranks": 4})
	races := ofType(ms, "race")
	if len(races) == 0 {
		t.Fatalf("no race message")
	}
	var rc emu.Race
	if err := json.Unmarshal(races[0].Race, &rc); err != nil {
		t.Fatal(err)
	}
	if rc.A.Line == 0 || rc.B.Line == 0 || rc.A.Line == rc.B.Line ||
		!regexp.MustCompile(fmt.Sprintf(`line %d\b.*line %d\b|line %d\b.*line %d\b`, rc.A.Line, rc.B.Line, rc.B.Line, rc.A.Line)).MatchString(rc.Message) {
		t.Errorf("race = %+v", rc)
	}
	if d := ms[len(ms)-1]; d.Status != "race" {
		t.Errorf("done = %s", d.raw)
	}
}

func TestRunDeadlock(t *testing.T) {
	ts := start(t, "")
	_, ms := ts.watch(t, map[string]any{"code": readFile(t, "../engine/testdata/run/deadlock_ring.py"), "ranks": 3})
	dl := ofType(ms, "deadlock")
	if len(dl) != 1 {
		t.Fatalf("%d deadlock messages", len(dl))
	}
	var d emu.Deadlock
	if err := json.Unmarshal(dl[0].Deadlock, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Ranks) != 3 || d.Ranks[2].Line != 27 || d.Ranks[2].Cell != "token[0, 0]" {
		t.Errorf("deadlock = %s", dl[0].Deadlock)
	}
	if last := ms[len(ms)-1]; last.Status != "deadlock" {
		t.Errorf("done = %s", last.raw)
	}
}

func TestRunCompileError(t *testing.T) {
	ts := start(t, "")
	_, ms := ts.watch(t, map[string]any{"code": readFile(t, "../engine/testdata/errors/notify_without_op.py")})
	ds := ofType(ms, "diagnostic")
	if len(ds) != 1 {
		t.Fatalf("%d diagnostics", len(ds))
	}
	var d struct {
		Line     int    `json:"line"`
		Col      int    `json:"col"`
		Code     string `json:"code"`
		Severity string `json:"severity"`
	}
	if err := json.Unmarshal(ds[0].Diagnostic, &d); err != nil || d.Line == 0 || d.Col == 0 || d.Code == "" || d.Severity != "error" {
		t.Errorf("diagnostic = %s", ds[0].Diagnostic)
	}
	if last := ms[len(ms)-1]; last.Status != "compile_error" || len(ofType(ms, "event")) != 0 {
		t.Errorf("done = %s", last.raw)
	}

	// A program that does not even parse, and one with two host
	// orchestrators and no entry: compile errors too, never a hang.
	_, ms = ts.watch(t, map[string]any{"code": "def f(:\n"})
	if last := ms[len(ms)-1]; last.Status != "compile_error" || len(ofType(ms, "diagnostic")) == 0 {
		t.Errorf("unparsable: %s", last.raw)
	}
	_, ms = ts.watch(t, map[string]any{"code": kernelSource(t, "05_remote_load_store")})
	if last := ms[len(ms)-1]; last.Status != "compile_error" || !strings.Contains(string(last.raw), "host orchestrators") {
		t.Errorf("two hosts, no entry: %s", last.raw)
	}
}

// TestLingerEndsWhenRead posts a run, lets it finish before its socket
// opens (so it is stored and lingers for its client), reads it to its end
// on /ws/runs, and checks that its stay ended there: out of the live map,
// no longer counted, and its grace timer stopped, so the timer no longer
// holds the run and its log for the rest of the grace.
func TestLingerEndsWhenRead(t *testing.T) {
	ts := start(t, "")
	pr := ts.post(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "step": 8, "ranks": 4, "seed": 41})
	var r *run
	for deadline := time.Now().Add(30 * time.Second); r == nil; {
		ts.mu.Lock()
		if lr := ts.live[pr.ID]; lr != nil && lr.lingers {
			r = lr
		}
		ts.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("run %s never lingered", pr.ID)
		}
		time.Sleep(5 * time.Millisecond)
	}
	out, err := ts.follow(t, pr.ID, time.Now().Add(30*time.Second))
	if err != nil || out.done.Status != "ok" || out.done.Share == "" {
		t.Fatalf("follow: %v, done %+v", err, out)
	}
	ts.mu.Lock()
	_, live := ts.live[pr.ID]
	lingering, lingers := ts.lingering, r.lingers
	stopped := !r.lingerTimer.Stop() // false: stopped already (or fired, which the grace has not allowed)
	ts.mu.Unlock()
	if live || lingers || lingering != 0 || !stopped {
		t.Errorf("after the read: live %v, lingers %v, lingering %d, timer stopped %v", live, lingers, lingering, stopped)
	}
}

// TestSilentClientCut watches a run to its done with a client that then
// neither answers the server's close nor closes its end: the server cuts
// the connection after wsCloseGrace, rather than holding the socket and
// its goroutine until the read deadline (a hijacked connection's Close is
// fasthttp's to do, once the handler has returned).
func TestSilentClientCut(t *testing.T) {
	ts := start(t, "")
	pr := ts.post(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "step": 8, "ranks": 4, "seed": 43})
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.url, "http")+"/ws/runs/"+pr.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetCloseHandler(func(int, string) error { return nil }) // silent: no close frame back
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		_, b, err := c.ReadMessage()
		if err != nil {
			if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				t.Fatalf("socket ended with %v before its close", err)
			}
			break
		}
		_ = b
	}
	closed := time.Now()
	_ = c.UnderlyingConn().SetReadDeadline(time.Now().Add(wsCloseGrace + 10*time.Second))
	n, err := c.UnderlyingConn().Read(make([]byte, 1))
	if n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("after the close: read %d bytes, %v", n, err)
	}
	if d := time.Since(closed); d > wsCloseGrace+5*time.Second {
		t.Errorf("the server cut the connection %v after its close (grace %v)", d, wsCloseGrace)
	}
}
