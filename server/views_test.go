package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
)

// TestPassesRoute: GET /api/passes is "checked" and the engine's pass
// table in order, and POST /api/ir/lines accepts each of them and writes a
// source line on every statement it can.
func TestPassesRoute(t *testing.T) {
	ts := start(t, t.TempDir())
	code, body := ts.do(t, "GET", "/api/passes", nil)
	if code != http.StatusOK {
		t.Fatalf("GET /api/passes: %d %s", code, body)
	}
	var res struct {
		Passes []struct{ Name, Doc string } `json:"passes"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	want := append([]string{"checked"}, lower.PassNames()...)
	var got []string
	for _, p := range res.Passes {
		got = append(got, p.Name)
		if p.Doc == "" {
			t.Errorf("pass %s has no doc", p.Name)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("GET /api/passes = %v, want %v", got, want)
	}
	src := kernelSource(t, "12_broadcast_builtin")
	for _, p := range want {
		code, body := ts.do(t, "POST", "/api/ir/lines", map[string]any{"code": src, "ranks": 4, "after": p})
		var ir irResponse
		if err := json.Unmarshal(body, &ir); code != http.StatusOK || err != nil || ir.IR == "" {
			t.Fatalf("POST /api/ir/lines after %s: %d %s", p, code, body)
		}
		if !strings.Contains(ir.IR, "# line ") {
			t.Errorf("IR after %s has no line comments", p)
		}
	}
	if code, body := ts.do(t, "POST", "/api/ir/lines", map[string]any{"code": src, "after": "bogus"}); code != http.StatusBadRequest {
		t.Errorf("after bogus: %d %s, want 400", code, body)
	}
}

// TestSchedulesRoute: the mesh without its barrier fails under every seed
// it tries; n out of 1..MaxSchedules is a 400.
func TestSchedulesRoute(t *testing.T) {
	ts := start(t, t.TempDir())
	src := readFile(t, "../engine/testdata/run/mesh_without_barrier.py")
	code, body := ts.do(t, "POST", "/api/schedules", map[string]any{"code": src, "ranks": 4, "n": 5})
	var res schedulesResponse
	if err := json.Unmarshal(body, &res); code != http.StatusOK || err != nil {
		t.Fatalf("POST /api/schedules: %d %s", code, body)
	}
	if res.Ran != 5 || res.Failed != 5 || len(res.Seeds) != 5 {
		t.Errorf("mesh without barrier: ran %d, failed %d, seeds %d; want 5, 5, 5", res.Ran, res.Failed, len(res.Seeds))
	}
	for i, so := range res.Seeds {
		if so.Seed != uint64(i+1) || so.Schedule == "" || so.Why == "" {
			t.Errorf("seed %d: %+v", i+1, so)
		}
	}
	for _, n := range []int{0, limits.MaxSchedules + 1} {
		if code, body := ts.do(t, "POST", "/api/schedules", map[string]any{"code": src, "n": n}); code != http.StatusBadRequest || !strings.Contains(string(body), "out of range") {
			t.Errorf("n=%d: %d %s, want 400 out of range", n, code, body)
		}
	}
}

// TestSweepRoute: a kernel without `#! sweep:` lines, a bad size range and
// too many points are 400s with the reason; step 19's kernel at 2 ranks
// over 1K:4K gives a row per variant and size and the CLI's crossover
// sentence for that rank count.
func TestSweepRoute(t *testing.T) {
	ts := start(t, t.TempDir())
	src := kernelSource(t, "19_mesh_or_ring")
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"code": kernelSource(t, "08_allreduce_mesh")}, "no #! sweep: lines"},
		{map[string]any{"code": src, "sizes": "4K:1K"}, ""},
		{map[string]any{"code": src, "ranks": []int{2, 3, 4, 5, 6, 7, 8, 16, 32, 64}, "sizes": "1:1G"}, "more than the 512 allowed"},
		{map[string]any{"code": src, "ranks": []int{65}}, "out of range"},
	} {
		code, body := ts.do(t, "POST", "/api/sweep", tc.body)
		if code != http.StatusBadRequest || !strings.Contains(string(body), tc.want) {
			t.Errorf("POST /api/sweep %v: %d %s, want 400 %q", tc.body["sizes"], code, body, tc.want)
		}
	}
	code, body := ts.do(t, "POST", "/api/sweep", map[string]any{"code": src, "ranks": []int{2}, "sizes": "1K:4K"})
	var res sweepResponse
	if err := json.Unmarshal(body, &res); code != http.StatusOK || err != nil {
		t.Fatalf("POST /api/sweep: %d %s", code, body)
	}
	if len(res.Rows) != 2*3 || !res.Done || res.CrossoverLines[2] != res.CrossoverLine(2) {
		t.Errorf("sweep: %d rows (want 6), done %v, crossover %q", len(res.Rows), res.Done, res.CrossoverLines[2])
	}
}
