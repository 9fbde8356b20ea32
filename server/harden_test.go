package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// postTo POSTs JSON to base+path (Content-Type application/json, no
// Origin) and returns the status, the headers and the body.
func postTo(t testing.TB, base, path string, body any) (int, http.Header, []byte) {
	t.Helper()
	j, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+path, "application/json", bytes.NewReader(j))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// dialTo opens /ws/runs/{id} on base.
func dialTo(t testing.TB, base, id string) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws/runs/"+id, nil)
	if err != nil {
		t.Fatalf("dial %s: %v (%v)", id, err, resp)
	}
	return c
}

// doneOf decodes a done message's status, share and error message.
type doneInfo struct {
	Status string `json:"status"`
	Share  string `json:"share"`
	Error  *struct {
		Message string `json:"message"`
		Hint    string `json:"hint"`
	} `json:"error"`
}

func doneOf(t testing.TB, ms []msg) doneInfo {
	t.Helper()
	var d doneInfo
	if err := json.Unmarshal(ms[len(ms)-1].raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// loopCode is step 8's mesh kernel with a loop of n adds before its write:
// n large runs out of any timeout; n small makes n events per rank.
func loopCode(t testing.TB, n int) string {
	src := kernelSource(t.(*testing.T), "08_allreduce_mesh")
	const at = "    # 4. Write out."
	if !strings.Contains(src, at) {
		t.Fatal("the mesh kernel changed: no write-out comment")
	}
	return strings.Replace(src, at, fmt.Sprintf("    for i in pl.range(%d):\n        total = pl.add(total, 1.0)\n\n%s", n, at), 1)
}

// TestPanicBecomesInternalError injects a panic into every kind of user
// work through the test hook: each answers an internal error (a done
// runtime_error for a run, a 500 JSON for the rest), the log has the
// stack, and the server keeps serving.
func TestPanicBecomesInternalError(t *testing.T) {
	ts := start(t, "")
	var armed atomic.Bool
	armed.Store(true)
	hook := func(what string) {
		if armed.Load() {
			panic("injected: " + what)
		}
	}
	ts.testHook.Store(&hook)
	mesh := kernelSource(t, "08_allreduce_mesh")

	_, ms := ts.watch(t, map[string]any{"code": mesh, "ranks": 2})
	d := doneOf(t, ms)
	if d.Status != "runtime_error" || d.Error == nil || !strings.Contains(d.Error.Message, "internal error") || d.Share != "" {
		t.Errorf("run with a panic: done %s", ms[len(ms)-1].raw)
	}
	for _, c := range []struct {
		path string
		body map[string]any
	}{
		{"/api/check", map[string]any{"code": mesh}},
		{"/api/ir", map[string]any{"code": mesh}},
		{"/api/compare", map[string]any{"a": map[string]any{"code": mesh}, "b": map[string]any{"kernel": "08_allreduce_mesh"}, "ranks": 2}},
		{"/api/steps/8/check", map[string]any{"code": mesh}},
	} {
		code, _, b := postTo(t, ts.url, c.path, c.body)
		var e apiError
		if code != 500 || json.Unmarshal(b, &e) != nil || !strings.Contains(e.Msg, "internal error") || e.Hint == "" {
			t.Errorf("%s with a panic: %d %s", c.path, code, b)
		}
	}
	log := ts.log.String()
	for _, what := range []string{"panic in run ", "panic in check", "panic in ir", "panic in compare", "panic in step check 8"} {
		if !strings.Contains(log, what) {
			t.Errorf("the log has no %q", what)
		}
	}
	if !strings.Contains(log, "goroutine ") || !strings.Contains(log, "server.(*Server).guard") {
		t.Errorf("the log has no stack:\n%s", log)
	}
	armed.Store(false)
	_, ms = ts.watch(t, map[string]any{"code": mesh, "ranks": 4})
	if d := doneOf(t, ms); d.Status != "ok" {
		t.Errorf("after the panics, a run ends %s", ms[len(ms)-1].raw)
	}
	if code, b := ts.do(t, "POST", "/api/check", map[string]any{"code": mesh}); code != 200 {
		t.Errorf("after the panics, /api/check: %d %s", code, b)
	}
}

// gate is a test hook that holds the first run's slot until opened.
type gate struct {
	first atomic.Bool
	open  chan struct{}
}

func newGate(ts *testServer) *gate {
	g := &gate{open: make(chan struct{})}
	hook := func(what string) {
		if strings.HasPrefix(what, "run ") && g.first.CompareAndSwap(false, true) {
			<-g.open
		}
	}
	ts.testHook.Store(&hook)
	return g
}

func (g *gate) release() {
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

// waitFor polls cond every 10 ms up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestQueueFull: past Options.MaxQueue waiting runs, 1000 posts each get
// 503 with Retry-After and a JSON error, and nothing of theirs is kept.
func TestQueueFull(t *testing.T) {
	ts := startWith(t, Options{MaxConcurrentRuns: 1, MaxQueue: 2, UnwatchedGrace: time.Minute})
	g := newGate(ts)
	t.Cleanup(g.release) // before the server's shutdown (cleanups run last first)
	mesh := kernelSource(t, "08_allreduce_mesh")
	for i := 0; i < 3; i++ { // one in the slot, two queued
		if code, _, b := postTo(t, ts.url, "/api/runs", map[string]any{"code": mesh, "ranks": 2, "seed": i}); code != 200 {
			t.Fatalf("post %d: %d %s", i, code, b)
		}
	}
	if !waitFor(5*time.Second, func() bool { return g.first.Load() }) {
		t.Fatal("the first run never took its slot")
	}
	for i := 0; i < 1000; i++ {
		code, h, b := postTo(t, ts.url, "/api/runs", map[string]any{"code": mesh, "ranks": 2, "seed": 100 + i})
		var e apiError
		if code != 503 || h.Get("Retry-After") == "" || json.Unmarshal(b, &e) != nil || !strings.Contains(e.Msg, "queue is full") {
			t.Fatalf("post %d beyond the queue: %d Retry-After %q %s", i, code, h.Get("Retry-After"), b)
		}
	}
	ts.mu.Lock()
	live := len(ts.live)
	ts.mu.Unlock()
	if live != 3 || ts.slots.waiting() != 2 {
		t.Errorf("after the refused posts: %d live runs, %d waiting; want 3 and 2", live, ts.slots.waiting())
	}
}

// TestQueueWatchedFirst: a queued client is told its position at once and
// as it changes, and a watched run goes ahead of unwatched queued ones.
func TestQueueWatchedFirst(t *testing.T) {
	ts := startWith(t, Options{MaxConcurrentRuns: 1, UnwatchedGrace: time.Minute})
	g := newGate(ts)
	t.Cleanup(g.release)
	mesh := kernelSource(t, "08_allreduce_mesh")
	var ids []string
	for i := 0; i < 4; i++ { // A holds the slot, B and C wait unwatched, D is watched
		pr := ts.post(t, map[string]any{"code": mesh, "ranks": 2, "seed": i})
		ids = append(ids, pr.ID)
		if i == 0 && !waitFor(5*time.Second, func() bool { return g.first.Load() }) {
			t.Fatal("the first run never took its slot")
		}
	}
	c := ts.dial(t, ids[3])
	pos1 := func(ms []msg) bool {
		q := ofType(ms, "queue")
		return len(q) > 0 && bytes.Contains(q[len(q)-1].raw, []byte(`"position":1,`))
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var seen []msg
	for !pos1(seen) {
		ms, err := frame(t, c)
		if err != nil {
			t.Fatalf("waiting for position 1: %v after %d messages", err, len(seen))
		}
		seen = append(seen, ms...)
	}
	_ = c.SetReadDeadline(time.Time{})
	q := ofType(seen, "queue")
	if seen[0].Type != "status" || seen[0].Status != "queued" || len(q) == 0 || !bytes.Contains(q[len(q)-1].raw, []byte(`"position":1,"of":3`)) {
		t.Errorf("a watched queued run got %d messages, queue messages %v", len(seen), q)
	}
	g.release()
	rest := readAll(t, c)
	if d := doneOf(t, rest); d.Status != "ok" {
		t.Errorf("the watched run ended %s", rest[len(rest)-1].raw)
	}
	// The slot went A, then D, ahead of B and C posted before it.
	log := ts.log.String()
	iD := strings.Index(log, "run "+ids[3]+" ")
	for _, id := range ids[1:3] {
		if i := strings.Index(log, "run "+id+" "); i >= 0 && i < iD {
			t.Errorf("unwatched run %s finished before the watched one:\n%s", id, log)
		}
	}
}

// TestUnwatchedDropped: a run nobody watches is dropped after the grace,
// queued or executing, and is not stored.
func TestUnwatchedDropped(t *testing.T) {
	ts := startWith(t, Options{MaxConcurrentRuns: 1, UnwatchedGrace: 300 * time.Millisecond})
	long := loopCode(t, 1_000_000_000)
	a := ts.post(t, map[string]any{"code": long, "ranks": 2})
	b := ts.post(t, map[string]any{"code": long, "ranks": 2, "seed": 2})
	gone := func() bool {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return len(ts.live) == 0
	}
	if !waitFor(5*time.Second, gone) {
		t.Fatal("unwatched runs still live 5 s after a 300 ms grace")
	}
	for _, id := range []string{a.ID, b.ID} {
		if code, _ := ts.do(t, "GET", "/api/runs/"+id, nil); code != 404 {
			t.Errorf("dropped run %s: GET %d, want 404 (not stored)", id, code)
		}
		if !strings.Contains(ts.log.String(), "run "+id+" cancelled") {
			t.Errorf("the log does not say %s was cancelled:\n%s", id, ts.log.String())
		}
	}
}

// TestQueuedTimeNotCharged: a run that waited longer than the run timeout
// for its slot still gets the whole timeout once it runs.
func TestQueuedTimeNotCharged(t *testing.T) {
	ts := startWith(t, Options{MaxConcurrentRuns: 1, RunTimeout: 1 * time.Second, UnwatchedGrace: time.Minute})
	g := newGate(ts)
	t.Cleanup(g.release)
	mesh := kernelSource(t, "08_allreduce_mesh")
	first := ts.post(t, map[string]any{"code": mesh, "ranks": 2, "seed": 1})
	if !waitFor(5*time.Second, func() bool { return g.first.Load() }) {
		t.Fatal("the first run never took its slot")
	}
	pr := ts.post(t, map[string]any{"code": mesh, "ranks": 4})
	c := ts.dial(t, pr.ID)
	time.AfterFunc(1500*time.Millisecond, g.release)
	ms := readAll(t, c)
	if d := doneOf(t, ms); d.Status != "ok" || d.Share == "" {
		t.Errorf("a run queued 1.5 s under a 1 s timeout ended %s", ms[len(ms)-1].raw)
	}
	_ = first
}

// TestTimeoutNotStored: a run that ran out of time is not stored as its
// content's result; posting it again runs it again.
func TestTimeoutNotStored(t *testing.T) {
	ts := startWith(t, Options{RunTimeout: 300 * time.Millisecond})
	body := map[string]any{"code": loopCode(t, 1_000_000_000), "ranks": 2}
	for i := 1; i <= 2; i++ {
		pr, ms := ts.watch(t, body)
		if d := doneOf(t, ms); pr.Cached || d.Status != "timeout" || d.Share != "" {
			t.Errorf("post %d: cached %v, done %s", i, pr.Cached, ms[len(ms)-1].raw)
		}
		if n := ts.Executions(); n != int64(i) {
			t.Errorf("after post %d: %d executions", i, n)
		}
		if code, _ := ts.do(t, "GET", "/api/runs/"+pr.ID, nil); code != 404 {
			t.Errorf("timed-out run: GET %d, want 404", code)
		}
	}
}

// crashProgram is issue 11's six-line program: a defaulted, unannotated
// host parameter once panicked the run goroutine and took the server down.
const crashProgram = `import pypto.language as pl


@pl.jit.host
def h(x=1):
    pass
`

// TestCrashProgram: the program is a diagnostic (E0112) through every
// route, and the server goes on serving.
func TestCrashProgram(t *testing.T) {
	ts := start(t, "")
	_, ms := ts.watch(t, map[string]any{"code": crashProgram})
	if d := doneOf(t, ms); d.Status != "compile_error" || d.Share == "" {
		t.Errorf("run: done %s", ms[len(ms)-1].raw)
	}
	diags := ofType(ms, "diagnostic")
	if len(diags) == 0 || !bytes.Contains(diags[0].Diagnostic, []byte(`"code":"E0112"`)) || !bytes.Contains(diags[0].Diagnostic, []byte(`"line":5`)) {
		t.Errorf("run diagnostics: %v", diags)
	}
	code, b := ts.do(t, "POST", "/api/check", map[string]any{"code": crashProgram})
	if code != 200 || !bytes.Contains(b, []byte(`"code": "E0112"`)) {
		t.Errorf("/api/check: %d %s", code, b)
	}
	code, b = ts.do(t, "POST", "/api/ir", map[string]any{"code": crashProgram})
	if code != 200 || !bytes.Contains(b, []byte(`"code":"E0112"`)) {
		t.Errorf("/api/ir: %d %s", code, b)
	}
	if strings.Contains(ts.log.String(), "panic") {
		t.Errorf("the log has a panic:\n%s", ts.log.String())
	}
	if code, _ := ts.do(t, "GET", "/api/steps", nil); code != 200 {
		t.Errorf("after the program, GET /api/steps: %d", code)
	}
}

// TestCPUBoundModule: module code that never ends, in /api/check, /api/ir
// and a run, ends with an error within the run timeout plus a second (the
// engine's step budget or its deadline, whichever comes first).
func TestCPUBoundModule(t *testing.T) {
	const limit = time.Second
	ts := startWith(t, Options{RunTimeout: limit})
	const spin = "import pypto.language as pl\n\nx = 0\nwhile True:\n    x = x + 1\n"
	for _, path := range []string{"/api/check", "/api/ir"} {
		begin := time.Now()
		code, b := ts.do(t, "POST", path, map[string]any{"code": spin})
		took := time.Since(begin)
		if code != 200 || !(bytes.Contains(b, []byte("E0310")) || bytes.Contains(b, []byte("E0321"))) || took > limit+time.Second {
			t.Errorf("%s: %d after %v: %.300s", path, code, took, b)
		}
	}
	begin := time.Now()
	_, ms := ts.watch(t, map[string]any{"code": spin})
	d := doneOf(t, ms)
	if took := time.Since(begin); took > limit+time.Second || (d.Status != "compile_error" && d.Status != "timeout") {
		t.Errorf("run: %s after %v", ms[len(ms)-1].raw, took)
	}
	if d.Status == "timeout" && d.Share != "" {
		t.Errorf("a timed-out run was stored: %s", ms[len(ms)-1].raw)
	}
}

// TestQueueMessageJSON: the hand-written queue message is queueMsg's JSON.
func TestQueueMessageJSON(t *testing.T) {
	for _, pq := range [][2]int{{1, 1}, {2, 3}, {127, 128}, {0, 0}} {
		want, err := json.Marshal(queueMsg{Type: "queue", Position: pq[0], Of: pq[1]})
		if err != nil {
			t.Fatal(err)
		}
		if got := queueMessage(pq[0], pq[1]); !bytes.Equal(got, want) {
			t.Errorf("queueMessage(%d, %d) = %s, want %s", pq[0], pq[1], got, want)
		}
	}
}

// TestQueueMessagesCoalesce: a queue place that nothing followed in the
// log yet is replaced by the next, so a run moved up many places while
// its client was not reading has one queue message for them.
func TestQueueMessagesCoalesce(t *testing.T) {
	r := newRun(context.Background(), "x", "", Settings{}, nil)
	s := r.subscribe()
	for pos := 9; pos >= 1; pos-- {
		r.setQueuePos(pos, 9)
	}
	r.add([]byte(`{"type":"status"}`))
	r.setQueuePos(2, 9) // after another message: a message of its own
	msgs, _ := r.read(0, 100)
	var queue [][]byte
	for _, m := range msgs {
		if bytes.Contains(m, []byte(`"type":"queue"`)) {
			queue = append(queue, m)
		}
	}
	if len(queue) != 2 || !bytes.Equal(queue[0], queueMessage(1, 9)) || !bytes.Equal(queue[1], queueMessage(2, 9)) {
		t.Errorf("queue messages %q, want 1 of 9 (the last of the first nine places), then 2 of 9", queue)
	}
	r.unsubscribe(s)
}
