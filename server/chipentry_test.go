package server

import (
	"encoding/json"
	"strings"
	"testing"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/floats"
)

// TestRunChipEntry runs a program with no HOST level through the run API:
// the entry field picks one of its chip orchestrations, which runs on one
// chip; without it the run ends with E0412 naming both; at two ranks with
// E0519.
func TestRunChipEntry(t *testing.T) {
	ts := start(t, "")
	code := readFile(t, "../engine/check/testdata/ok/l2_only.py")
	_, ms := ts.watch(t, map[string]any{"code": code, "entry": "Blend.blend", "fill": "ones"})
	if st := ofType(ms, "status"); len(st) == 0 || st[0].Ranks != 1 {
		t.Fatalf("status messages %v, want a run at 1 rank", st)
	}
	outs := ofType(ms, "output")
	if len(outs) != 1 || outs[0].Name != "out" {
		t.Fatalf("outputs %v, want out", outs)
	}
	var tens floats.TensorJSON
	if err := json.Unmarshal(outs[0].Tensor, &tens); err != nil || len(tens.Data) != 8*32 {
		t.Fatalf("tensor = %+v (%v)", tens, err)
	}
	const x, w = float32(1), float32(1) // the ones fill
	for i, v := range tens.Data {
		if float32(v) != x*w+x {
			t.Fatalf("out[%d] = %v, want x*w + x = %v", i, v, x*w+x)
		}
	}
	var d doneMsg
	if err := json.Unmarshal(ms[len(ms)-1].raw, &d); err != nil || d.Status != "ok" {
		t.Fatalf("done = %s", ms[len(ms)-1].raw)
	}

	for _, c := range []struct {
		body      map[string]any
		code      string
		mentioned []string
	}{
		{map[string]any{"code": code}, "E0412", []string{"'Blend.blend'", "'Blend.distance'", "entry field"}},
		{map[string]any{"code": code, "entry": "Blend.distance", "ranks": 2}, "E0519", []string{"runs on one chip"}},
	} {
		_, ms := ts.watch(t, c.body)
		var d doneMsg
		if err := json.Unmarshal(ms[len(ms)-1].raw, &d); err != nil || d.Status != "compile_error" {
			t.Errorf("%v: done = %s, want compile_error", c.body, ms[len(ms)-1].raw)
			continue
		}
		diags := ofType(ms, "diagnostic")
		if len(diags) != 1 {
			t.Errorf("%v: %d diagnostics, want 1", c.body, len(diags))
			continue
		}
		var dg diag.Diagnostic
		if err := json.Unmarshal(diags[0].Diagnostic, &dg); err != nil || dg.Code != c.code || dg.Span.Start.Line == 0 {
			t.Errorf("%v: diagnostic %s, want a positioned %s", c.body, diags[0].Diagnostic, c.code)
			continue
		}
		for _, m := range c.mentioned {
			if !strings.Contains(dg.Msg+" "+dg.Hint, m) {
				t.Errorf("%v: %q does not say %s", c.body, dg.Msg+" hint: "+dg.Hint, m)
			}
		}
	}
}

// TestIRChipEntry: the IR view of a program with no HOST level, at the
// entry named, and its no-default diagnostic without one.
func TestIRChipEntry(t *testing.T) {
	ts := start(t, "")
	code := readFile(t, "../engine/check/testdata/ok/l2_only.py")
	var out irResponse
	status, b := ts.do(t, "POST", "/api/ir", map[string]any{"code": code, "entry": "Blend.distance"})
	if err := json.Unmarshal(b, &out); status != 200 || err != nil || !strings.Contains(out.IR, "orchestration distance(") || strings.Contains(out.IR, "incore mix(") {
		t.Errorf("IR at Blend.distance: %d %.300s", status, b)
	}
	out = irResponse{}
	status, b = ts.do(t, "POST", "/api/ir", map[string]any{"code": code})
	if err := json.Unmarshal(b, &out); status != 200 || err != nil || out.IR != "" || len(out.Diagnostics) != 1 || out.Diagnostics[0].Code != "E0412" {
		t.Errorf("IR without an entry: %d %.300s, want E0412", status, b)
	}
}
