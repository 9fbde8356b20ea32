package server

import (
	"encoding/json"
	"strings"
	"testing"

	"pldworkbench/engine/diag"
)

// noEntryDiag says whether ds is the one positioned E0412 that names both
// chip orchestrations of l2_only.py.
func noEntryDiag(ds diag.List) bool {
	return len(ds) == 1 && ds[0].Code == "E0412" && ds[0].Span.Start.Line > 0 &&
		strings.Contains(ds[0].Msg, "'Blend.blend'") && strings.Contains(ds[0].Msg, "'Blend.distance'")
}

// TestSchedulesNoEntry: POST /api/schedules of a file with two chip
// orchestrations and no host, with no entry, answers the coded E0412 as
// diagnostics (the error string beside it), as a run of it ends.
func TestSchedulesNoEntry(t *testing.T) {
	ts := start(t, "")
	code := readFile(t, "../engine/check/testdata/ok/l2_only.py")
	status, b := ts.do(t, "POST", "/api/schedules", map[string]any{"code": code, "n": 2})
	var out schedulesResponse
	if err := json.Unmarshal(b, &out); status != 200 || err != nil {
		t.Fatalf("POST /api/schedules: %d %.300s (%v)", status, b, err)
	}
	if !noEntryDiag(out.Diagnostics) || out.Error == "" || out.Ran != 0 {
		t.Errorf("schedules without an entry: %.400s, want E0412 naming both entries, an error and no seed run", b)
	}
	// With the entry the answer has no diagnostics field at all.
	status, b = ts.do(t, "POST", "/api/schedules", map[string]any{"code": code, "n": 2, "entry": "Blend.blend"})
	if status != 200 || strings.Contains(string(b), `"diagnostics"`) || !strings.Contains(string(b), `"fair":"ok"`) {
		t.Errorf("schedules at Blend.blend: %d %.300s, want ok with no diagnostics field", status, b)
	}
}

// TestCompareNoEntry: a compare side with no default entry is compared
// like a side that does not compile: 200, that side compile_error with
// the coded E0412, and its side run stored as POST /api/runs stores it.
func TestCompareNoEntry(t *testing.T) {
	ts := start(t, "")
	code := readFile(t, "../engine/check/testdata/ok/l2_only.py")
	status, b := ts.do(t, "POST", "/api/compare", map[string]any{
		"a": map[string]any{"code": code},
		"b": map[string]any{"code": code, "entry": "Blend.blend"},
	})
	var cr struct {
		Verdict string `json:"verdict"`
		A       struct {
			Status      string    `json:"status"`
			Diagnostics diag.List `json:"diagnostics"`
			Error       *struct {
				Code string `json:"code"`
			} `json:"error"`
		} `json:"a"`
		B struct {
			Status string `json:"status"`
		} `json:"b"`
		RunA string `json:"run_a"`
	}
	if err := json.Unmarshal(b, &cr); status != 200 || err != nil {
		t.Fatalf("POST /api/compare: %d %.300s (%v)", status, b, err)
	}
	if cr.Verdict != "different" || cr.A.Status != "compile_error" || !noEntryDiag(cr.A.Diagnostics) ||
		cr.A.Error == nil || cr.A.Error.Code != "E0412" || cr.B.Status != "ok" {
		t.Errorf("compare with side a lacking an entry: %.600s, want a compile_error with E0412, b ok", b)
	}
	ms := readAll(t, ts.dial(t, cr.RunA))
	if done := ms[len(ms)-1]; done.Status != "compile_error" {
		t.Errorf("run_a %s: done %s, want compile_error", cr.RunA, done.Status)
	}
	var dg diag.Diagnostic
	if ds := ofType(ms, "diagnostic"); len(ds) != 1 || json.Unmarshal(ds[0].Diagnostic, &dg) != nil || !noEntryDiag(diag.List{dg}) {
		t.Errorf("run_a %s: diagnostics %v, want the E0412", cr.RunA, ds)
	}
	if pr := ts.post(t, map[string]any{"code": code}); pr.ID != cr.RunA {
		t.Errorf("POST /api/runs of side a: id %s, want %s (the compare's side run)", pr.ID, cr.RunA)
	}
}
