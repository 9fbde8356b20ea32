package server

import (
	"encoding/json"
	"testing"

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
// side: the comparison and the side runs it starts share the compiled
// programs. The emulator runs twice for the comparison and once more for
// each side run (each watched to its end here); the issue asks for two
// in all, which needs the side runs fed from the comparison's own.
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
	for _, id := range []string{cr.RunA, cr.RunB} {
		readAll(t, ts.dial(t, id))
	}
	if p, k, r := c.Parses.Load(), c.Compiles.Load(), c.Runs.Load(); p != 2 || k != 2 || r != 4 {
		t.Errorf("the comparison and its side runs: %d parses, %d compiles, %d emulator runs; want 2, 2, 4", p, k, r)
	}
}
