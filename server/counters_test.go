package server

import (
	"encoding/json"
	"reflect"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/limits"
)

// startCounting starts a server whose engine work is counted: the
// counters ride on its base context, from which every handler and run
// derives its own.
func startCounting(t *testing.T) (*testServer, *limits.Counters) {
	t.Helper()
	c := &limits.Counters{}
	ts := startHooked(t, Options{}, func(s *Server) { s.base = limits.WithCounters(s.base, c) })
	return ts, c
}

// TestRunParsesOnce holds POST /api/runs to one parse and one compile of
// the code (the entry pick, the rank count and the run share the one
// *engine.Program), and a second post of the same code with another seed
// to none: the program comes from the cache.
func TestRunParsesOnce(t *testing.T) {
	ts, c := startCounting(t)
	mesh := kernelSource(t, "08_allreduce_mesh")
	_, ms := ts.watch(t, map[string]any{"code": mesh, "ranks": 4})
	if done := ofType(ms, "done"); len(done) != 1 || done[0].Status != "ok" {
		t.Fatalf("run did not end ok: %+v", done)
	}
	if p, k, r := c.Parses.Load(), c.Compiles.Load(), c.Runs.Load(); p != 1 || k != 1 || r != 1 {
		t.Errorf("POST /api/runs: %d parses, %d compiles, %d emulator runs; want 1, 1, 1", p, k, r)
	}
	ts.watch(t, map[string]any{"code": mesh, "ranks": 4, "seed": 9})
	if p, k, r := c.Parses.Load(), c.Compiles.Load(), c.Runs.Load(); p != 1 || k != 1 || r != 2 {
		t.Errorf("after a second run of the same code: %d parses, %d compiles, %d emulator runs; want 1, 1, 2", p, k, r)
	}
}

// TestCompareParsesEachSideOnce holds POST /api/compare to one parse per
// side and two emulator runs in all: the side runs it starts share the
// compiled programs and are the comparison's own runs, handed over with
// their events (each watched to its end here, and checked to be the run
// POST /api/runs makes of that code).
func TestCompareParsesEachSideOnce(t *testing.T) {
	ts, c := startCounting(t)
	code, b := ts.do(t, "POST", "/api/compare", map[string]any{
		"a":     map[string]any{"code": kernelSource(t, "12_broadcast_hand")},
		"b":     map[string]any{"kernel": "12_broadcast_builtin"},
		"ranks": 4,
	})
	if code != 200 {
		t.Fatalf("POST /api/compare: %d %s", code, b)
	}
	var cr struct {
		Verdict string `json:"verdict"`
		RunA    string `json:"run_a"`
		RunB    string `json:"run_b"`
	}
	if err := json.Unmarshal(b, &cr); err != nil {
		t.Fatal(err)
	}
	if cr.Verdict != "equal" {
		t.Fatalf("verdict %q", cr.Verdict)
	}
	var sides [2][]msg
	for i, id := range []string{cr.RunA, cr.RunB} {
		sides[i] = readAll(t, ts.dial(t, id))
		if done := ofType(sides[i], "done"); len(done) != 1 || done[0].Status != "ok" || len(ofType(sides[i], "event")) == 0 {
			t.Fatalf("side run %s: %d events, done %+v", id, len(ofType(sides[i], "event")), done)
		}
	}
	if p, k, r := c.Parses.Load(), c.Compiles.Load(), c.Runs.Load(); p != 2 || k != 2 || r != 2 {
		t.Errorf("the comparison and its side runs: %d parses, %d compiles, %d emulator runs; want 2, 2, 2", p, k, r)
	}
	// The handed-over side run is the run a post of its code makes: the
	// same events and outputs, run afresh on another server.
	other := start(t, "")
	_, fresh := other.watch(t, map[string]any{"code": kernelSource(t, "12_broadcast_hand"), "ranks": 4})
	for _, typ := range []string{"event", "output"} {
		got, want := ofType(sides[0], typ), ofType(fresh, typ)
		if len(got) != len(want) || !reflect.DeepEqual(got, want) {
			t.Errorf("side run A's %s messages differ from a fresh POST /api/runs: %d vs %d", typ, len(got), len(want))
		}
	}
}

// TestProgramCacheBounded: the cache keeps programs within its bytes,
// dropping the least recently used, a hit moves a program to the front,
// putting a key again replaces its program, and a program larger than
// the whole bound is not kept.
func TestProgramCacheBounded(t *testing.T) {
	const size = 1000 // each program's footprint here
	c := newProgramCache(2 * (size + entryCost))
	keys := []programKey{{entry: "a"}, {entry: "b"}, {entry: "c"}}
	progs := make([]*engine.Program, len(keys))
	for i := range progs {
		progs[i] = &engine.Program{Entry: keys[i].entry}
	}
	c.put(keys[0], progs[0], size)
	c.put(keys[1], progs[1], size)
	if p, ok := c.get(keys[0]); !ok || p != progs[0] { // a is now the most recent
		t.Fatalf("get a: %v %v", p, ok)
	}
	c.put(keys[2], progs[2], size) // drops b, the least recently used
	if _, ok := c.get(keys[1]); ok {
		t.Error("b is still cached past the bound")
	}
	for _, i := range []int{0, 2} {
		if p, ok := c.get(keys[i]); !ok || p != progs[i] {
			t.Errorf("%s dropped: %v %v", keys[i].entry, p, ok)
		}
	}
	if c.ll.Len() != 2 || len(c.by) != 2 || c.used != 2*(size+entryCost) {
		t.Errorf("%d entries, %d keys, %d bytes; want 2, 2, %d", c.ll.Len(), len(c.by), c.used, 2*(size+entryCost))
	}
	again := &engine.Program{Entry: "a"}
	c.put(keys[0], again, size) // replaces a's program, counted once
	if p, _ := c.get(keys[0]); p != again || c.used != 2*(size+entryCost) {
		t.Errorf("a put again: %p (want %p), %d bytes", p, again, c.used)
	}
	c.put(keys[1], progs[1], 2*size+entryCost+1) // larger than the cache: not kept, nothing dropped
	if _, ok := c.get(keys[1]); ok || c.ll.Len() != 2 {
		t.Errorf("a program over the bound was kept (%d entries)", c.ll.Len())
	}
	c.put(keys[1], progs[1], 2*size+entryCost) // fills the cache alone
	if c.ll.Len() != 1 || c.used != 2*(size+entryCost) {
		t.Errorf("%d entries, %d bytes; want only b", c.ll.Len(), c.used)
	}
}

// TestStepCheckParsesOnce: POST /api/steps/8/check runs the code at every
// rank count the step lists, under two schedules each, from one parse:
// one compile per rank count, two emulator runs per compile.
func TestStepCheckParsesOnce(t *testing.T) {
	ts, c := startCounting(t)
	code, b := ts.do(t, "POST", "/api/steps/8/check", map[string]any{"code": kernelSource(t, "08_allreduce_mesh")})
	if code != 200 {
		t.Fatalf("POST /api/steps/8/check: %d %s", code, b)
	}
	var rep struct {
		OK       bool              `json:"ok"`
		Verdicts []json.RawMessage `json:"verdicts"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || !rep.OK || len(rep.Verdicts) < 2 {
		t.Fatalf("step check: %s", b)
	}
	n := int64(len(rep.Verdicts))
	if p, k, r := c.Parses.Load(), c.Compiles.Load(), c.Runs.Load(); p != 1 || k != n || r != 2*n {
		t.Errorf("%d verdicts: %d parses, %d compiles, %d emulator runs; want 1, %d, %d", n, p, k, r, n, 2*n)
	}
}
