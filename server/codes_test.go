package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"pldworkbench/engine/limits"
)

// schemaV2 is the store's schema before the codes table (version 2), as
// PLD Workbench wrote it: the migration test builds such a file.
const schemaV2 = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE runs (
	id          TEXT PRIMARY KEY,
	code        TEXT NOT NULL,
	settings    TEXT NOT NULL,
	status      TEXT NOT NULL,
	result      TEXT NOT NULL,
	events      BLOB NOT NULL,
	event_count INTEGER NOT NULL,
	created     TEXT NOT NULL,
	size        INTEGER NOT NULL DEFAULT 0,
	pinned      INTEGER NOT NULL DEFAULT 0,
	pages       INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE run_events (
	run_id TEXT NOT NULL,
	page   INTEGER NOT NULL,
	count  INTEGER NOT NULL,
	data   BLOB NOT NULL,
	PRIMARY KEY (run_id, page)
) WITHOUT ROWID;
INSERT INTO schema_version (version) VALUES (2);
`

func (ts *testServer) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := ts.db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestCodeStoredOnce: runs of one program store its text once, each
// answers GET with it, and a code no run names any more goes with the
// last run evicted. A run of one page of events keeps it in its row.
func TestCodeStoredOnce(t *testing.T) {
	ts := startWith(t, Options{StoreBudget: 1, UnwatchedGrace: time.Minute})
	mesh := kernelSource(t, "08_allreduce_mesh")
	a, live := ts.watch(t, map[string]any{"code": mesh, "ranks": 2, "seed": 1}) // pinned: its link was shown
	b, _ := ts.watch(t, map[string]any{"code": mesh, "ranks": 2, "seed": 2})
	// A run of one page keeps it in its row, and replays it as it ran.
	events := ofType(live, "event")
	if len(events) == 0 || len(events) > limits.EventPage {
		t.Fatalf("%d events: the test wants one page", len(events))
	}
	if n := ts.count(t, `SELECT count(*) FROM run_events WHERE run_id = ?`, a.ID); n != 0 {
		t.Errorf("a run of one page has %d run_events rows", n)
	}
	var blob []byte
	if err := ts.db.QueryRow(`SELECT events FROM runs WHERE id = ?`, a.ID).Scan(&blob); err != nil || !bytes.HasPrefix(blob, []byte(s2Page)) {
		t.Errorf("the row's page: %.8q (%v), want an S2 page", blob, err)
	}
	replay := ofType(readAll(t, ts.dial(t, a.ID)), "event")
	if len(replay) != len(events) {
		t.Fatalf("replay: %d events, live %d", len(replay), len(events))
	}
	for i := range replay {
		if !bytes.Equal(replay[i].Event, events[i].Event) {
			t.Fatalf("replayed event %d differs", i)
		}
	}
	if n := ts.count(t, `SELECT count(*) FROM codes`); n != 1 {
		t.Errorf("two runs of one program: %d codes rows, want 1", n)
	}
	if n := ts.count(t, `SELECT count(*) FROM runs WHERE code != ''`); n != 0 {
		t.Errorf("%d runs rows hold their code themselves", n)
	}
	for _, id := range []string{a.ID, b.ID} {
		code, body := ts.do(t, "GET", "/api/runs/"+id, nil)
		var rec record
		if code != 200 || json.Unmarshal(body, &rec) != nil || rec.Code != mesh {
			t.Errorf("GET %s: %d, code %d bytes, want the program's %d", id, code, len(rec.Code), len(mesh))
		}
	}
	// Past the budget an unwatched run of another program is evicted by
	// the next one, and its code with it; the mesh code stays for a and b.
	other := loopCode(t, 3)
	p := ts.post(t, map[string]any{"code": other, "ranks": 2, "seed": 1})
	if !waitFor(20*time.Second, func() bool { return ts.stored(t, p.ID) }) {
		t.Fatalf("run %s never stored", p.ID)
	}
	q := ts.post(t, map[string]any{"code": loopCode(t, 4), "ranks": 2, "seed": 1})
	if !waitFor(20*time.Second, func() bool { return ts.stored(t, q.ID) && !ts.stored(t, p.ID) }) {
		t.Fatalf("run %s was not evicted by %s", p.ID, q.ID)
	}
	if n := ts.count(t, `SELECT count(*) FROM codes WHERE hash = ?`, codeHash(other)); n != 0 {
		t.Errorf("the evicted run's code is still stored")
	}
	if n := ts.count(t, `SELECT count(*) FROM codes WHERE hash = ?`, codeHash(mesh)); n != 1 || !ts.stored(t, a.ID) {
		t.Errorf("the pinned run's code: %d rows, run stored %v", n, ts.stored(t, a.ID))
	}
}

// TestMigrateV2: a version 2 store (each run's code in its row) opens,
// is upgraded to the current version, and answers every request on its runs with
// the bytes it answered before; a new run of the same program stores
// the code in codes beside it.
func TestMigrateV2(t *testing.T) {
	// A real run, from a current server, copied into a version 2 file.
	src := start(t, "")
	code := loopCode(t, 600)
	pr, live := src.watch(t, map[string]any{"code": code, "ranks": 2, "seed": 4})
	status, recJSON := src.do(t, "GET", "/api/runs/"+pr.ID, nil)
	_, eventsText := src.do(t, "GET", "/api/runs/"+pr.ID+"/events", nil)
	if status != 200 || len(ofType(live, "event")) == 0 {
		t.Fatalf("GET: %d, %d events", status, len(ofType(live, "event")))
	}
	sr, ok, err := getRun(context.Background(), src.db, pr.ID)
	if err != nil || !ok {
		t.Fatalf("the source row: %v %v", ok, err)
	}
	var size int64
	if err := src.db.QueryRow(`SELECT size FROM runs WHERE id = ?`, pr.ID).Scan(&size); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(schemaV2); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO runs VALUES (?, ?, ?, ?, ?, x'', ?, ?, ?, 1, 0)`, sr.ID, sr.Code, sr.Settings, sr.Status,
		sr.Result, sr.EventCount, sr.Created, size+int64(len(sr.Code))); err != nil {
		t.Fatal(err)
	}
	// Its events in gzip pages, as version 2 wrote them.
	var lines [][]byte
	for _, m := range ofType(live, "event") {
		lines = append(lines, m.Event)
	}
	pages := 0
	for len(lines) > 0 {
		n := min(len(lines), limits.EventPage)
		blob, err := gzipLines(lines[:n])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO run_events VALUES (?, ?, ?, ?)`, pr.ID, pages, n, blob); err != nil {
			t.Fatal(err)
		}
		lines = lines[n:]
		pages++
	}
	if pages < 1 {
		t.Fatal("no events")
	}
	if _, err := db.Exec(`UPDATE runs SET pages = ? WHERE id = ?`, pages, pr.ID); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ts := start(t, dir)
	if v := ts.count(t, `SELECT version FROM schema_version`); v != schemaVersion {
		t.Errorf("schema version %d, want %d", v, schemaVersion)
	}
	if got, b := ts.do(t, "GET", "/api/runs/"+pr.ID, nil); got != 200 || !bytes.Equal(b, recJSON) {
		t.Errorf("GET the migrated run: %d\n%.300s\nwant\n%.300s", got, b, recJSON)
	}
	if got, b := ts.do(t, "GET", "/api/runs/"+pr.ID+"/events", nil); got != 200 || !bytes.Equal(b, eventsText) {
		t.Errorf("GET the migrated run's events: %d, %d bytes, want %d", got, len(b), len(eventsText))
	}
	if got, _ := ts.do(t, "GET", "/r/"+pr.ID, nil); got != 200 {
		t.Errorf("the old link: %d", got)
	}
	if re := ofType(readAll(t, ts.dial(t, pr.ID)), "event"); len(re) != len(ofType(live, "event")) {
		t.Errorf("replay of the migrated run: %d events, want %d", len(re), len(ofType(live, "event")))
	}
	// The same program again: its code goes into codes, the old row keeps
	// its own, and both answer with it.
	again, _ := ts.watch(t, map[string]any{"code": code, "ranks": 2, "seed": 5})
	if n := ts.count(t, `SELECT count(*) FROM codes WHERE hash = ?`, codeHash(code)); n != 1 {
		t.Errorf("the new run's code: %d codes rows", n)
	}
	for _, id := range []string{pr.ID, again.ID} {
		_, b := ts.do(t, "GET", "/api/runs/"+id, nil)
		var rec record
		if json.Unmarshal(b, &rec) != nil || rec.Code != code {
			t.Errorf("GET %s: code %d bytes, want %d", id, len(rec.Code), len(code))
		}
	}
	// A second open of the upgraded file changes nothing.
	ts.stop(t)
	reopened := start(t, dir)
	if got, b := reopened.do(t, "GET", "/api/runs/"+pr.ID, nil); got != 200 || !bytes.Equal(b, recJSON) {
		t.Errorf("reopened: %d", got)
	}
}

// gzipLines compresses JSON lines as versions 1 and 2 stored a page.
func gzipLines(lines [][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for _, l := range lines {
		zw.Write(l)
		zw.Write([]byte{'\n'})
	}
	err := zw.Close()
	return buf.Bytes(), err
}
