package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pldworkbench/engine/trace"
)

// liveRun returns the run executing under id.
func (ts *testServer) liveRun(t *testing.T, id string) *run {
	t.Helper()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	r := ts.live[id]
	if r == nil {
		t.Fatalf("run %s is not executing", id)
	}
	return r
}

// waitDone waits for a run's log to complete.
func waitDone(t *testing.T, r *run) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("run %s never finished", r.id)
	}
}

// firstEvent reads frames until an event arrives.
func firstEvent(t *testing.T, c *websocket.Conn) {
	t.Helper()
	for {
		ms, err := frame(t, c)
		if err != nil {
			t.Fatalf("socket ended before any event: %v", err)
		}
		for _, m := range ms {
			if m.Type == "done" {
				t.Fatalf("done before any event: %s", m.raw)
			}
			if m.Type == "event" {
				return
			}
		}
	}
}

// TestStreaming: the first event reaches the client while the run still
// executes; the client going away cancels the run, which is not stored.
func TestStreaming(t *testing.T) {
	ts := start(t, "")
	pr := ts.post(t, map[string]any{"code": readFile(t, "testdata/long_loop.py"), "ranks": 4})
	r := ts.liveRun(t, pr.ID)
	c := ts.dial(t, pr.ID)
	firstEvent(t, c)
	code, b := ts.do(t, "GET", "/api/runs/"+pr.ID, nil)
	var got record
	if err := json.Unmarshal(b, &got); err != nil || code != 200 || got.Status != "running" || got.Events == 0 || got.Ranks != 4 {
		t.Fatalf("GET while streaming: %d %.300s", code, b)
	}
	c.Close() // the only watcher goes away mid-run
	waitDone(t, r)
	if r.status != statusCancelled {
		t.Errorf("run ended %s, want cancelled", r.status)
	}
	if code, b := ts.do(t, "GET", "/api/runs/"+pr.ID, nil); code != 404 {
		t.Errorf("a cancelled run was stored: %d %.200s", code, b)
	}
	if ts.Executions() != 1 {
		t.Errorf("Executions() = %d, want 1", ts.Executions())
	}

	// {"type":"stop"} cancels too, and the client sees done cancelled.
	pr = ts.post(t, map[string]any{"code": readFile(t, "testdata/long_loop.py"), "ranks": 4, "seed": 2})
	c = ts.dial(t, pr.ID)
	firstEvent(t, c)
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"stop"}`)); err != nil {
		t.Fatal(err)
	}
	ms := readAll(t, c)
	if last := ms[len(ms)-1]; last.Status != statusCancelled || last.Share != "" {
		t.Errorf("after stop: %s", last.raw)
	}
}

// TestCacheReplay: the same post twice is one execution, and the replay
// sends the live run's messages.
func TestCacheReplay(t *testing.T) {
	ts := start(t, "")
	body := map[string]any{"code": kernelSource(t, "10_allreduce_ring"), "step": 10, "ranks": 4}
	pr1, live := ts.watch(t, body)
	n := ts.Executions()
	pr2 := ts.post(t, body)
	if pr2.ID != pr1.ID || !pr2.Cached || pr1.Cached {
		t.Fatalf("posts: %+v then %+v", pr1, pr2)
	}
	replay := readAll(t, ts.dial(t, pr2.ID))
	if ts.Executions() != n {
		t.Errorf("the replay executed: %d executions, want %d", ts.Executions(), n)
	}
	if replay[0].Type != "status" || replay[0].Status != "replay" {
		t.Errorf("replay starts with %s", replay[0].raw)
	}
	a, b := withoutStatus(live), withoutStatus(replay)
	if len(a) != len(b) || len(ofType(live, "event")) == 0 {
		t.Fatalf("live sent %d messages, the replay %d", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("message %d differs:\nlive   %s\nreplay %s", i, a[i], b[i])
		}
	}
	// Other settings, another run.
	body["seed"] = 7
	if pr3 := ts.post(t, body); pr3.ID == pr1.ID || pr3.Cached {
		t.Errorf("seed 7 gave %+v", pr3)
	}
}

func withoutStatus(ms []msg) [][]byte {
	var out [][]byte
	for _, m := range ms {
		if m.Type != "status" {
			out = append(out, m.raw)
		}
	}
	return out
}

func rawAll(ms []msg) [][]byte {
	var out [][]byte
	for _, m := range ms {
		out = append(out, m.raw)
	}
	return out
}

// TestRestart: a stored run answers byte for byte the same after a
// restart, and replays the same. Its record is stored compressed
// (schema version 4) and read back whole.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	ts := start(t, dir)
	pr, _ := ts.watch(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh_bug"), "step": 8, "variant": "bug", "ranks": 4})
	_, get1 := ts.do(t, "GET", "/api/runs/"+pr.ID, nil)
	var stored []byte
	if err := ts.db.QueryRow(`SELECT result FROM runs WHERE id = ?`, pr.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	sr, ok, err := getRun(context.Background(), ts.db, pr.ID)
	if err != nil || !ok || !bytes.HasPrefix(stored, []byte(s2Page)) || len(stored) >= len(sr.Result) || !json.Valid([]byte(sr.Result)) {
		t.Errorf("stored result: %d bytes, %q…; read back %d bytes (%v %v)", len(stored), stored[:min(len(stored), 8)], len(sr.Result), ok, err)
	}
	_, events1 := ts.do(t, "GET", "/api/runs/"+pr.ID+"/events", nil)
	replay1 := rawAll(readAll(t, ts.dial(t, pr.ID)))
	ts.stop(t)

	ts2 := start(t, dir)
	code, get2 := ts2.do(t, "GET", "/api/runs/"+pr.ID, nil)
	if code != 200 || !bytes.Equal(get1, get2) {
		t.Errorf("GET after restart differs:\n%.300s\n%.300s", get1, get2)
	}
	var rec record
	if err := json.Unmarshal(get2, &rec); err != nil || rec.Status != "race" || rec.Check == nil || rec.Check.Pass || rec.Events == 0 || rec.Created == "" {
		t.Errorf("record = %.400s", get2)
	}
	if _, events2 := ts2.do(t, "GET", "/api/runs/"+pr.ID+"/events", nil); !bytes.Equal(events1, events2) || bytes.Count(events2, []byte("\n")) != rec.Events {
		t.Errorf("events differ after restart or miscounted (%d lines, %d events)", bytes.Count(events2, []byte("\n")), rec.Events)
	}
	replay2 := rawAll(readAll(t, ts2.dial(t, pr.ID)))
	if len(replay1) != len(replay2) {
		t.Fatalf("replays: %d then %d messages", len(replay1), len(replay2))
	}
	for i := range replay1 {
		if !bytes.Equal(replay1[i], replay2[i]) {
			t.Fatalf("replay message %d differs:\n%s\n%s", i, replay1[i], replay2[i])
		}
	}
	req, _ := ts2.do(t, "GET", "/r/"+pr.ID, nil)
	if req != 200 {
		t.Errorf("GET /r/%s: %d", pr.ID, req)
	}
	resp, err := httpGet(ts2.url + "/api/runs/" + pr.ID + "/trace.json")
	if err != nil {
		t.Fatal(err)
	}
	if resp.disposition != fmt.Sprintf(`attachment; filename="pld-%s.json"`, pr.ID) {
		t.Errorf("Content-Disposition %q", resp.disposition)
	}
	if err := trace.ValidateChromeTrace(resp.body); err != nil {
		t.Errorf("trace.json: %v", err)
	}
	if ts2.Executions() != 0 {
		t.Errorf("the restarted server executed %d runs", ts2.Executions())
	}
	// A post of the same content finds it stored (the ids the store
	// holds are read at start), and one of new content runs.
	body := map[string]any{"code": kernelSource(t, "08_allreduce_mesh_bug"), "step": 8, "variant": "bug", "ranks": 4}
	if again := ts2.post(t, body); again.ID != pr.ID || !again.Cached {
		t.Errorf("re-post after restart: %+v, want %s cached", again, pr.ID)
	}
	body["seed"] = 77
	if _, ms := ts2.watch(t, body); doneOf(t, ms).Share == "" || ts2.Executions() != 1 {
		t.Errorf("a new run after restart: %s, %d executions", ms[len(ms)-1].raw, ts2.Executions())
	}
}

// TestConcurrentRuns: different runs posted at once all complete; the
// same run posted at once executes once.
func TestConcurrentRuns(t *testing.T) {
	ts := start(t, "")
	src := kernelSource(t, "09_allreduce_two_phase")
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for seed := 1; seed <= 6; seed++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, err := watchStatus(ts, map[string]any{"code": src, "step": 9, "ranks": 4, "seed": seed})
			if err == nil && status != "ok" {
				err = fmt.Errorf("seed %d: done %s", seed, status)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	if ts.Executions() != 6 {
		t.Errorf("Executions() = %d, want 6", ts.Executions())
	}
	ids := make(chan string, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := postID(ts, map[string]any{"code": src, "step": 9, "ranks": 8})
			if err != nil {
				errs <- err
			}
			ids <- id
		}()
	}
	wg.Wait()
	close(errs)
	close(ids)
	for err := range errs {
		t.Error(err)
	}
	first := ""
	for id := range ids {
		if first == "" {
			first = id
		}
		if id != first {
			t.Errorf("same content, ids %s and %s", first, id)
		}
	}
	if ts.Executions() != 7 {
		t.Errorf("eight posts of one run: Executions() = %d, want 7", ts.Executions())
	}
}

// TestShutdownDuringRun: Shutdown while a run streams cancels it cleanly;
// the store opens again with what was stored before intact.
func TestShutdownDuringRun(t *testing.T) {
	dir := t.TempDir()
	ts := start(t, dir)
	stored, _ := ts.watch(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "ranks": 4})
	_, before := ts.do(t, "GET", "/api/runs/"+stored.ID, nil)
	pr := ts.post(t, map[string]any{"code": readFile(t, "testdata/long_loop.py"), "ranks": 4})
	c := ts.dial(t, pr.ID)
	firstEvent(t, c)
	rest := make(chan []msg, 1)
	go func() {
		var all []msg
		for {
			ms, err := frame(t, c)
			if err != nil {
				break
			}
			all = append(all, ms...)
		}
		rest <- all
	}()
	ts.stop(t)
	ms := <-rest
	if len(ms) == 0 || ms[len(ms)-1].Type != "done" || ms[len(ms)-1].Status != statusCancelled {
		t.Errorf("the client did not see the run cancelled: %d messages", len(ms))
	}

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q %v", check, err)
	}
	db.Close()
	ts2 := start(t, dir)
	if code, after := ts2.do(t, "GET", "/api/runs/"+stored.ID, nil); code != 200 || !bytes.Equal(before, after) {
		t.Errorf("the stored run changed: %d", code)
	}
	if code, _ := ts2.do(t, "GET", "/api/runs/"+pr.ID, nil); code != 404 {
		t.Errorf("the cancelled run: %d, want 404", code)
	}
}

// watchStatus posts and reads a run's stream from any goroutine,
// returning done's status.
func watchStatus(ts *testServer, body map[string]any) (string, error) {
	id, err := postID(ts, body)
	if err != nil {
		return "", err
	}
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.url, "http")+"/ws/runs/"+id, nil)
	if err != nil {
		return "", err
	}
	defer c.Close()
	status := ""
	for {
		_, b, err := c.ReadMessage()
		if err != nil {
			if status == "" {
				return "", fmt.Errorf("run %s: %v before done", id, err)
			}
			return status, nil
		}
		var ms []struct {
			Type, Status string
		}
		if b[0] != '[' {
			b = append(append([]byte{'['}, b...), ']')
		}
		if err := json.Unmarshal(b, &ms); err != nil {
			return "", err
		}
		for _, m := range ms {
			if m.Type == "done" {
				status = m.Status
			}
		}
	}
}

func postID(ts *testServer, body map[string]any) (string, error) {
	j, _ := json.Marshal(body)
	resp, err := httpPost(ts.url+"/api/runs", j)
	if err != nil {
		return "", err
	}
	var pr postResponse
	if err := json.Unmarshal(resp, &pr); err != nil || pr.ID == "" {
		return "", fmt.Errorf("POST: %s %v", resp, err)
	}
	return pr.ID, nil
}

// TestRunIDSum: the one pass gives the run id of the code and settings
// (SHA-256 over code, a zero byte and the settings' JSON) and the code's
// own SHA-256, which keys the stored code and the compiled program.
func TestRunIDSum(t *testing.T) {
	code := kernelSource(t, "08_allreduce_mesh")
	st := Settings{Ranks: 4, Fill: "randn", Seed: 7, Schedule: "fair", Platform: "910B"}
	id, sum := runIDSum(code, st, nil)
	js, _ := json.Marshal(st)
	whole := sha256.Sum256(append(append([]byte(code), 0), js...))
	if want := base64.RawURLEncoding.EncodeToString(whole[:])[:16]; id != want || runID(code, st) != want {
		t.Errorf("run id %q (runID %q), want %q", id, runID(code, st), want)
	}
	if sum != sha256.Sum256([]byte(code)) || !bytes.Equal(codeHash(code), sum[:]) {
		t.Errorf("code sum %x, want the SHA-256 of the code %x", sum, sha256.Sum256([]byte(code)))
	}
}
