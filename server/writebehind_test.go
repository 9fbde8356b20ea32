package server

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// settle has the store writer commit run id now, if it holds it, and
// waits for that commit to end.
func (ts *testServer) settle(t testing.TB, id string) {
	t.Helper()
	r := ts.writer.holding(id)
	if r == nil {
		return
	}
	r.mu.Lock()
	saving := r.saving
	r.mu.Unlock()
	ts.writer.kick()
	select {
	case <-saving:
	case <-time.After(30 * time.Second):
		t.Fatalf("run %s: its commit never ended", id)
	}
}

// slowWriter is a test server whose store writer waits an hour before it
// commits a batch that is not full: the window between a run's done and
// its commit stays open until the test closes it (settle) or shuts down.
func slowWriter(t *testing.T, opts Options) *testServer {
	return startHooked(t, opts, func(s *Server) { s.writer.delay = time.Hour })
}

// watchRun posts a run and reads its stream to done, without waiting for
// the commit (watch waits).
func (ts *testServer) watchRun(t *testing.T, body map[string]any) (postResponse, []msg) {
	t.Helper()
	pr := ts.post(t, body)
	return pr, readAll(t, ts.dial(t, pr.ID))
}

// TestShareBeforeCommit: between a run's done (with its share link) and
// its commit, the run answers from memory as it will from the store: the
// share page, GET /api/runs/{id} byte for byte, a socket's replay message
// for message, a re-post (cached, nothing executes); and it is pinned by
// the commit, its client having watched it.
func TestShareBeforeCommit(t *testing.T) {
	ts := slowWriter(t, Options{})
	body := map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "ranks": 4, "seed": 3}
	pr, live := ts.watchRun(t, body)
	if d := doneOf(t, live); d.Status != "ok" || d.Share != "/r/"+pr.ID {
		t.Fatalf("done %s", live[len(live)-1].raw)
	}
	if ts.stored(t, pr.ID) {
		t.Fatal("stored already: the test wants the window before the commit")
	}
	if code, _ := ts.do(t, "GET", "/r/"+pr.ID, nil); code != 200 {
		t.Errorf("share page before the commit: %d", code)
	}
	code, before := ts.do(t, "GET", "/api/runs/"+pr.ID, nil)
	if code != 200 {
		t.Fatalf("GET /api/runs before the commit: %d %s", code, before)
	}
	// The done goes out just before the run's execution takes it out of
	// the live map; a socket opened in between gets the live log, not a
	// replay.
	if !waitFor(10*time.Second, func() bool { ts.mu.Lock(); defer ts.mu.Unlock(); return ts.live[pr.ID] == nil }) {
		t.Fatal("the watched run is still in the live map 10 s after its done")
	}
	replayBefore := readAll(t, ts.dial(t, pr.ID))
	if replayBefore[0].Type != "status" || !strings.Contains(string(replayBefore[0].raw), `"status":"replay"`) {
		t.Errorf("the socket before the commit starts with %s, want a replay's status", replayBefore[0].raw)
	}
	runs := ts.Executions()
	again := ts.post(t, body)
	if !again.Cached || again.ID != pr.ID || ts.Executions() != runs {
		t.Errorf("re-post before the commit: %+v, %d executions more", again, ts.Executions()-runs)
	}
	if ts.stored(t, pr.ID) {
		t.Fatal("stored before the writer's delay ran out: the window closed early")
	}

	ts.settle(t, pr.ID)
	if !ts.stored(t, pr.ID) {
		t.Fatal("not stored after the commit")
	}
	if n := ts.count(t, `SELECT count(*) FROM runs WHERE id = ? AND pinned = 1`, pr.ID); n != 1 {
		t.Errorf("a watched run was committed unpinned")
	}
	_, after := ts.do(t, "GET", "/api/runs/"+pr.ID, nil)
	if !bytes.Equal(before, after) {
		t.Errorf("GET /api/runs differs before and after the commit:\n%s\n%s", before, after)
	}
	replayAfter := readAll(t, ts.dial(t, pr.ID))
	if len(replayAfter) != len(replayBefore) {
		t.Fatalf("replay: %d messages before the commit, %d after", len(replayBefore), len(replayAfter))
	}
	for i := range replayAfter {
		if !bytes.Equal(replayAfter[i].raw, replayBefore[i].raw) {
			t.Fatalf("replay message %d before the commit:\n%s\nafter:\n%s", i, replayBefore[i].raw, replayAfter[i].raw)
		}
	}
	if again := ts.post(t, body); !again.Cached || ts.Executions() != runs {
		t.Errorf("re-post after the commit: %+v", again)
	}
}

// TestEventsCommitFirst: GET /api/runs/{id}/events of a run whose record
// waits for the commit has it committed and answers from the store, the
// same events the run streamed.
func TestEventsCommitFirst(t *testing.T) {
	ts := slowWriter(t, Options{})
	pr, live := ts.watchRun(t, map[string]any{"code": loopCode(t, 30), "ranks": 2})
	if ts.stored(t, pr.ID) {
		t.Fatal("stored already")
	}
	code, b := ts.do(t, "GET", "/api/runs/"+pr.ID+"/events", nil)
	if code != 200 {
		t.Fatalf("events: %d %s", code, b)
	}
	var want []byte
	for _, m := range ofType(live, "event") {
		want = append(append(want, m.Event...), '\n')
	}
	if !bytes.Equal(b, want) || len(want) == 0 {
		t.Errorf("events: %d bytes, the run streamed %d", len(b), len(want))
	}
	if !ts.stored(t, pr.ID) {
		t.Error("the events were answered without the commit")
	}
}

// TestFlushAtShutdown: runs whose records wait for the writer's delay are
// committed by Shutdown: the SQLite file, reopened, has each of them,
// once, pinned (their clients watched them).
func TestFlushAtShutdown(t *testing.T) {
	dir := t.TempDir()
	ts := slowWriter(t, Options{DataDir: dir})
	var ids []any
	for seed := 1; seed <= 3; seed++ {
		pr, ms := ts.watchRun(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "ranks": 2, "seed": seed})
		if d := doneOf(t, ms); d.Share != "/r/"+pr.ID {
			t.Fatalf("done %s", ms[len(ms)-1].raw)
		}
		if ts.stored(t, pr.ID) {
			t.Fatal("stored before Shutdown: the test wants them pending")
		}
		ids = append(ids, pr.ID)
	}
	ts.stop(t)
	db := openRunsDB(t, dir)
	var n, pinned int
	if err := db.QueryRow(`SELECT count(*), coalesce(sum(pinned), 0) FROM runs WHERE id IN (?, ?, ?)`, ids...).Scan(&n, &pinned); err != nil {
		t.Fatal(err)
	}
	if n != 3 || pinned != 3 {
		t.Errorf("after Shutdown the file has %d of the 3 runs, %d pinned", n, pinned)
	}
}

// TestFailedCommit: a commit that fails after the run's done was sent
// (the SQLite file refuses new runs: a trigger) is logged, and the run
// lingers unstored for the unwatched grace: its share page, record and
// socket answer from memory, a re-post runs it again; after the grace its
// link is a 404.
func TestFailedCommit(t *testing.T) {
	dir := t.TempDir()
	ts := startWith(t, Options{DataDir: dir, UnwatchedGrace: 2 * time.Second})
	refuseRuns(t, dir)
	body := map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "ranks": 2, "seed": 7}
	pr, live := ts.watchRun(t, body)
	if d := doneOf(t, live); d.Share != "/r/"+pr.ID {
		t.Fatalf("done %s", live[len(live)-1].raw)
	}
	ts.settle(t, pr.ID)
	if !strings.Contains(ts.log.String(), "run "+pr.ID+": storing: ") || !strings.Contains(ts.log.String(), "the test refuses runs") {
		t.Errorf("the failed commit is not logged:\n%s", ts.log.String())
	}
	if ts.stored(t, pr.ID) {
		t.Fatal("stored despite the trigger")
	}
	if code, _ := ts.do(t, "GET", "/r/"+pr.ID, nil); code != 200 {
		t.Errorf("share page after the failed commit, within the grace: %d", code)
	}
	if code, b := ts.do(t, "GET", "/api/runs/"+pr.ID, nil); code != 200 || !strings.Contains(string(b), `"status":"ok"`) {
		t.Errorf("GET /api/runs after the failed commit: %d %s", code, b)
	}
	again := readAll(t, ts.dial(t, pr.ID))
	if d := doneOf(t, again); d.Share != "/r/"+pr.ID || len(ofType(again, "event")) != len(ofType(live, "event")) {
		t.Errorf("the socket after the failed commit: done %s, %d events", again[len(again)-1].raw, len(ofType(again, "event")))
	}
	runs := ts.Executions()
	if re := ts.post(t, body); re.Cached {
		t.Errorf("a re-post of a run whose commit failed is cached: %+v", re)
	}
	readAll(t, ts.dial(t, pr.ID))
	if ts.Executions() != runs+1 {
		t.Errorf("the re-post executed %d runs, want 1", ts.Executions()-runs)
	}
	ts.settle(t, pr.ID)
	if !waitFor(20*time.Second, func() bool { code, _ := ts.do(t, "GET", "/r/"+pr.ID, nil); return code == 404 }) {
		t.Error("the link still opens after the grace")
	}
	if code, _ := ts.do(t, "GET", "/api/runs/"+pr.ID, nil); code != 404 {
		t.Errorf("GET /api/runs after the grace: %d", code)
	}
}

// TestRunsShareOneCommit: runs that finish within the writer's delay go
// in one transaction, each once: the store's size as the writer counts
// it is the size SQLite sums, and every run has its row.
func TestRunsShareOneCommit(t *testing.T) {
	ts := slowWriter(t, Options{})
	warm, _ := ts.watchRun(t, map[string]any{"code": loopCode(t, 5), "ranks": 2})
	ts.settle(t, warm.ID) // the store's size is summed from here on
	commits := ts.writer.commits.Load()
	const n = 6
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr, ms := ts.watchRun(t, map[string]any{"code": loopCode(t, 10+i), "ranks": 2})
			if d := doneOf(t, ms); d.Share != "/r/"+pr.ID {
				t.Errorf("done %s", ms[len(ms)-1].raw)
			}
			ids[i] = pr.ID
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, id := range ids {
		if ts.stored(t, id) {
			t.Fatalf("run %s stored before the delay", id)
		}
	}
	ts.settle(t, ids[0])
	if got := ts.writer.commits.Load() - commits; got != 1 {
		t.Errorf("%d runs went in %d transactions, want 1", n, got)
	}
	for _, id := range ids {
		if !ts.stored(t, id) || ts.writer.holding(id) != nil {
			t.Errorf("run %s: not stored, or still held, after the commit", id)
		}
	}
	total, err := storeSize(context.Background(), ts.db)
	if err != nil {
		t.Fatal(err)
	}
	ts.storeMu.Lock()
	counted := ts.storeBytes
	ts.storeMu.Unlock()
	if counted != total {
		t.Errorf("the writer counts %d bytes stored, SQLite sums %d (a run written twice?)", counted, total)
	}
	if m := ts.count(t, `SELECT count(*) FROM runs`); m != n+1 {
		t.Errorf("%d rows, want %d", m, n+1)
	}
}

// TestFullBatchCommits: writeBatch pending runs are committed without
// waiting for the delay.
func TestFullBatchCommits(t *testing.T) {
	ts := slowWriter(t, Options{})
	var last string
	for i := range writeBatch {
		pr, _ := ts.watchRun(t, map[string]any{"code": loopCode(t, 2), "ranks": 2, "seed": i + 1})
		last = pr.ID
	}
	// The rows are visible from the COMMIT on, and the writer counts the
	// transaction just after it returns: wait for both.
	if !waitFor(20*time.Second, func() bool { return ts.stored(t, last) && ts.writer.commits.Load() > 0 }) {
		t.Fatalf("%d pending runs were not committed before the delay", writeBatch)
	}
	if n := ts.count(t, `SELECT count(*) FROM runs`); n != writeBatch {
		t.Errorf("%d runs stored, want %d", n, writeBatch)
	}
	if got := ts.writer.commits.Load(); got != 1 {
		t.Errorf("%d transactions, want 1", got)
	}
}

// TestPinBeforeCommit: a run nobody watched that left the live map (more
// than a page of events) is held until its commit; a client shown its
// link in the meantime (a replay from memory) pins it, and the pin lands
// with the row.
func TestPinBeforeCommit(t *testing.T) {
	ts := slowWriter(t, Options{UnwatchedGrace: time.Minute})
	pr := ts.post(t, map[string]any{"code": loopCode(t, 700), "ranks": 2})
	if !waitFor(20*time.Second, func() bool { return ts.writer.holding(pr.ID) != nil }) {
		t.Fatalf("run %s never finished", pr.ID)
	}
	ts.mu.Lock()
	_, live := ts.live[pr.ID]
	ts.mu.Unlock()
	if live || ts.stored(t, pr.ID) {
		t.Fatalf("run %s: in the live map %v, stored %v; the test wants it held only", pr.ID, live, ts.stored(t, pr.ID))
	}
	ms := readAll(t, ts.dial(t, pr.ID))
	if d := doneOf(t, ms); d.Share != "/r/"+pr.ID || !strings.Contains(string(ms[0].raw), `"status":"replay"`) {
		t.Fatalf("replay from memory: %s … %s", ms[0].raw, ms[len(ms)-1].raw)
	}
	if n := len(ofType(ms, "event")); n <= 1024 {
		t.Fatalf("%d events: the test wants more than a page", n)
	}
	// The pin is the socket's last act after done; it is applied by the
	// commit that writes the row.
	if !waitFor(5*time.Second, func() bool {
		ts.writer.mu.Lock()
		defer ts.writer.mu.Unlock()
		return slices.Contains(ts.writer.pins, pr.ID)
	}) {
		t.Fatal("the replay did not pin the run")
	}
	ts.settle(t, pr.ID)
	if n := ts.count(t, `SELECT count(*) FROM runs WHERE id = ? AND pinned = 1`, pr.ID); n != 1 {
		t.Error("the run's pin did not land with its row")
	}
}

// TestNoStoreDelay: with a negative StoreDelay (`--store-delay 0`) a
// run's done follows its commit: the run is in SQLite when its done
// arrives, and a run whose commit fails gets a done without a link.
func TestNoStoreDelay(t *testing.T) {
	dir := t.TempDir()
	ts := startWith(t, Options{DataDir: dir, StoreDelay: -1})
	pr, live := ts.watchRun(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "ranks": 2, "seed": 11})
	if d := doneOf(t, live); d.Status != "ok" || d.Share != "/r/"+pr.ID {
		t.Fatalf("done %s", live[len(live)-1].raw)
	}
	if ts.writer.holding(pr.ID) != nil || !ts.stored(t, pr.ID) {
		t.Errorf("run %s: its done came before its commit", pr.ID)
	}
	refuseRuns(t, dir)
	pr, live = ts.watchRun(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "ranks": 2, "seed": 12})
	if d := doneOf(t, live); d.Status != "ok" || d.Share != "" {
		t.Errorf("done of a run whose commit failed: %s, want no share link", live[len(live)-1].raw)
	}
	if ts.stored(t, pr.ID) {
		t.Error("stored despite the trigger")
	}
}

// openRunsDB opens the store's SQLite file in dir beside the server's own
// connection, closed when the test ends.
func openRunsDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// refuseRuns makes the store in dir refuse every new run (a trigger), so
// the server's next commit fails.
func refuseRuns(t *testing.T, dir string) {
	t.Helper()
	if _, err := openRunsDB(t, dir).Exec(`CREATE TRIGGER refuse BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'the test refuses runs'); END`); err != nil {
		t.Fatal(err)
	}
}
