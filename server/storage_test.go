package server

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pldworkbench/engine/floats"
	"pldworkbench/engine/limits"
)

// storedIDs reports which of ids the store has.
func (ts *testServer) stored(t *testing.T, id string) bool {
	t.Helper()
	ok, err := hasRun(context.Background(), ts.db, id)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestEvictionKeepsPinned: past the store budget the oldest unpinned run
// goes; a run whose link a client was shown (it was watched when stored)
// stays, and so does the run just written.
func TestEvictionKeepsPinned(t *testing.T) {
	ts := startWith(t, Options{StoreBudget: 1, UnwatchedGrace: time.Minute})
	mesh := kernelSource(t, "08_allreduce_mesh")
	a, ms := ts.watch(t, map[string]any{"code": mesh, "ranks": 2, "seed": 1})
	if d := doneOf(t, ms); d.Share != "/r/"+a.ID {
		t.Fatalf("watched run: done %s", ms[len(ms)-1].raw)
	}
	var unwatched []string
	for seed := 2; seed <= 3; seed++ {
		pr := ts.post(t, map[string]any{"code": mesh, "ranks": 2, "seed": seed})
		if !waitFor(20*time.Second, func() bool { return ts.stored(t, pr.ID) }) {
			t.Fatalf("unwatched run %s never stored", pr.ID)
		}
		unwatched = append(unwatched, pr.ID)
	}
	// The eviction follows the write that passed the budget: a run's row
	// is visible from its commit, the oldest unpinned run leaves (and the
	// log says so) a moment later, before that run's done is sent.
	waitFor(20*time.Second, func() bool {
		return !ts.stored(t, unwatched[0]) && strings.Contains(ts.log.String(), "evicted 1 unpinned")
	})
	if !ts.stored(t, a.ID) || ts.stored(t, unwatched[0]) || !ts.stored(t, unwatched[1]) {
		t.Errorf("after eviction: pinned %v, oldest unpinned %v, newest %v; want true false true",
			ts.stored(t, a.ID), ts.stored(t, unwatched[0]), ts.stored(t, unwatched[1]))
	}
	if code, _ := ts.do(t, "GET", "/r/"+unwatched[0], nil); code != 404 {
		t.Errorf("evicted link: %d, want 404", code)
	}
	if !strings.Contains(ts.log.String(), "evicted 1 unpinned") {
		t.Errorf("the log does not say what was evicted:\n%s", ts.log.String())
	}
}

// TestEventsPaged: a run with a few thousand events is stored in pages;
// the websocket replay and GET /api/runs/{id}/events give back exactly
// the live run's events, in order.
func TestEventsPaged(t *testing.T) {
	ts := start(t, "")
	pr, live := ts.watch(t, map[string]any{"code": loopCode(t, 2000), "ranks": 2})
	if d := doneOf(t, live); d.Status != "ok" {
		t.Fatalf("done %s", live[len(live)-1].raw)
	}
	var events [][]byte
	for _, m := range ofType(live, "event") {
		events = append(events, m.Event)
	}
	var pages int
	if err := ts.db.QueryRow(`SELECT pages FROM runs WHERE id = ?`, pr.ID).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if want := (len(events) + limits.EventPage - 1) / limits.EventPage; pages != want || pages < 3 {
		t.Errorf("%d events in %d pages, want %d (and at least 3 for this test to mean anything)", len(events), pages, want)
	}
	replay := readAll(t, ts.dial(t, pr.ID))
	re := ofType(replay, "event")
	if len(re) != len(events) {
		t.Fatalf("replay: %d events, live %d", len(re), len(events))
	}
	for i := range re {
		if !bytes.Equal(re[i].Event, events[i]) {
			t.Fatalf("replay event %d: %s, live %s", i, re[i].Event, events[i])
		}
	}
	if replay[0].Status != "replay" || doneOf(t, replay).Share != "/r/"+pr.ID || len(ofType(replay, "output")) != len(ofType(live, "output")) {
		t.Errorf("replay: first %s, last %s", replay[0].raw, replay[len(replay)-1].raw)
	}
	code, b := ts.do(t, "GET", "/api/runs/"+pr.ID+"/events", nil)
	lines := splitLines(b)
	if code != 200 || len(lines) != len(events) {
		t.Fatalf("GET events: %d, %d lines, want %d", code, len(lines), len(events))
	}
	for i := range lines {
		if !bytes.Equal(lines[i], events[i]) {
			t.Fatalf("GET events line %d: %s, live %s", i, lines[i], events[i])
		}
	}
}

// TestOutputsCapped: an output past limits.OutputFull elements is sent
// and stored as per-rank prefixes with full_shape and statistics computed
// over every element; the stored record gives back the same.
func TestOutputsCapped(t *testing.T) {
	ts := start(t, "")
	pr, ms := ts.watch(t, map[string]any{"code": bigOutputs(t, 1<<17), "ranks": 4, "fill": "ones"})
	if d := doneOf(t, ms); d.Status != "ok" {
		t.Fatalf("done %s", ms[len(ms)-1].raw)
	}
	outs := ofType(ms, "output")
	if len(outs) != 1 {
		t.Fatalf("%d outputs", len(outs))
	}
	var o outTensor
	if err := json.Unmarshal(outs[0].Tensor, &o); err != nil {
		t.Fatal(err)
	}
	// y = the sum over 4 ranks of ones: 4 everywhere.
	if !o.Truncated || !equalInts(o.FullShape, []int{4, 1, 1 << 17}) || !equalInts(o.Shape, []int{4, limits.OutputPrefix}) ||
		len(o.Data) != 4*limits.OutputPrefix || o.Stats.Count != 4<<17 || o.Stats.NaN != 0 ||
		o.Stats.Min != 4 || o.Stats.Max != 4 || o.Stats.Mean != 4 || o.Data[0] != 4 {
		t.Errorf("capped output: truncated %v shape %v full %v %d values stats %+v", o.Truncated, o.Shape, o.FullShape, len(o.Data), o.Stats)
	}
	code, b := ts.do(t, "GET", "/api/runs/"+pr.ID, nil)
	var rec record
	if code != 200 || json.Unmarshal(b, &rec) != nil || rec.Outputs["y"] == nil || !rec.Outputs["y"].Truncated || len(b) > 64<<10 {
		t.Errorf("GET /api/runs/{id}: %d, %d bytes", code, len(b))
	}
	// Small outputs stay whole, with statistics too.
	small := capOutputs([]string{"a"}, map[string]*floats.TensorJSON{"a": {DType: "FP32", Shape: []int{2, 3}, Data: []float64{1, 2, 3, 4, 5, 6}}}, 6, 2)["a"]
	if small.Truncated || len(small.Data) != 6 || small.Stats.Mean != 3.5 {
		t.Errorf("small output: %+v", small)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// bigOutputs is step 8's mesh kernel with SIZE elements per rank.
func bigOutputs(t testing.TB, size int) string {
	src := kernelSource(t.(*testing.T), "08_allreduce_mesh")
	if !strings.Contains(src, "SIZE = 64\n") {
		t.Fatal("the mesh kernel changed: no SIZE = 64")
	}
	return strings.Replace(src, "SIZE = 64\n", "SIZE = "+itoa(size)+"\n", 1)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// schemaV1 is the store's first schema, as PLD Workbench wrote it before
// event pages: the migration test builds such a file.
const schemaV1 = `
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
	id          TEXT PRIMARY KEY,
	code        TEXT NOT NULL,
	settings    TEXT NOT NULL,
	status      TEXT NOT NULL,
	result      TEXT NOT NULL,
	events      BLOB NOT NULL,
	event_count INTEGER NOT NULL,
	created     TEXT NOT NULL
);
INSERT INTO schema_version (version) VALUES (1);
`

// TestMigrateV1: a version 1 store (one events blob per run, whole
// outputs) opens, is upgraded to version 2, and its links still replay
// the same events; its runs are pinned.
func TestMigrateV1(t *testing.T) {
	// A real run, from a current server.
	src := start(t, "")
	pr, live := src.watch(t, map[string]any{"code": loopCode(t, 600), "ranks": 2})
	code, recJSON := src.do(t, "GET", "/api/runs/"+pr.ID, nil)
	if code != 200 {
		t.Fatalf("GET: %d", code)
	}
	var events [][]byte
	for _, m := range ofType(live, "event") {
		events = append(events, m.Event)
	}
	var rec map[string]any
	if err := json.Unmarshal(recJSON, &rec); err != nil {
		t.Fatal(err)
	}
	delete(rec, "code")
	result, _ := json.Marshal(rec)
	settings, _ := json.Marshal(rec["settings"])
	blob, err := gzipLines(events)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(schemaV1); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, pr.ID, loopCode(t, 600), string(settings), "ok",
		string(result), blob, len(events), rec["created"]); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ts := start(t, dir)
	var version, pinned, pages int
	if err := ts.db.QueryRow(`SELECT version FROM schema_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Errorf("schema version %d (%v), want %d", version, err, schemaVersion)
	}
	if err := ts.db.QueryRow(`SELECT pinned, pages FROM runs WHERE id = ?`, pr.ID).Scan(&pinned, &pages); err != nil || pinned != 1 || pages != 0 {
		t.Errorf("migrated row: pinned %d pages %d (%v)", pinned, pages, err)
	}
	if code, _ := ts.do(t, "GET", "/r/"+pr.ID, nil); code != 200 {
		t.Errorf("the old link: %d", code)
	}
	replay := readAll(t, ts.dial(t, pr.ID))
	re := ofType(replay, "event")
	if len(re) != len(events) {
		t.Fatalf("replay of the migrated run: %d events, want %d", len(re), len(events))
	}
	for i := range re {
		if !bytes.Equal(re[i].Event, events[i]) {
			t.Fatalf("event %d differs", i)
		}
	}
	if code, b := ts.do(t, "GET", "/api/runs/"+pr.ID+"/events", nil); code != 200 || len(splitLines(b)) != len(events) {
		t.Errorf("GET events of the migrated run: %d, %d lines", code, len(splitLines(b)))
	}
	if code, b := ts.do(t, "GET", "/api/runs/"+pr.ID, nil); code != 200 || !bytes.Contains(b, []byte(`"id":"`+pr.ID)) {
		t.Errorf("GET the migrated run: %d %.200s", code, b)
	}
	// A second open of the upgraded file changes nothing.
	ts.stop(t)
	again := start(t, dir)
	if code, _ := again.do(t, "GET", "/api/runs/"+pr.ID, nil); code != 200 {
		t.Errorf("reopened: %d", code)
	}
}

// TestPinLands: a run stored before anyone watched it (most posted runs)
// is pinned once a client has been sent its done with the share link,
// though the pin waits for the next run's store write or
// limits.PinDelay (writer.go), and the run is not evicted meanwhile.
func TestPinLands(t *testing.T) {
	ts := startWith(t, Options{UnwatchedGrace: time.Minute})
	mesh := kernelSource(t, "08_allreduce_mesh")
	pr := ts.post(t, map[string]any{"code": mesh, "ranks": 2, "seed": 1})
	if !waitFor(20*time.Second, func() bool { return ts.stored(t, pr.ID) }) {
		t.Fatalf("run %s never stored", pr.ID)
	}
	pinned := func() bool {
		return ts.count(t, `SELECT count(*) FROM runs WHERE id = ? AND pinned = 1`, pr.ID) == 1
	}
	if pinned() {
		t.Fatalf("run %s pinned before anyone watched it", pr.ID)
	}
	ms := readAll(t, ts.dial(t, pr.ID))
	if d := doneOf(t, ms); d.Share != "/r/"+pr.ID {
		t.Fatalf("done without the share link: %s", ms[len(ms)-1].raw)
	}
	if !waitFor(20*time.Second, pinned) {
		t.Errorf("run %s not pinned after its link was shown", pr.ID)
	}
}
