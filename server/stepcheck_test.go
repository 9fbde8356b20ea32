package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"pldworkbench/kernels"
)

// stepCheckAnswer is POST /api/steps/{n}/check's answer, decoded.
type stepCheckAnswer struct {
	OK       bool   `json:"ok"`
	Variant  string `json:"variant"`
	Kernel   string `json:"kernel"`
	Bug      string `json:"bug"`
	Ranks    []int  `json:"ranks"`
	Error    string `json:"error"`
	Verdicts []struct {
		Kernel   string `json:"kernel"`
		Entry    string `json:"entry"`
		Ranks    int    `json:"ranks"`
		Pass     bool   `json:"pass"`
		Status   string `json:"status"`
		Reason   string `json:"reason"`
		Schedule string `json:"schedule"`
	} `json:"verdicts"`
}

// postStepCheck posts a step check to the real server and decodes a 200.
func postStepCheck(t *testing.T, ts *testServer, n string, body map[string]any) stepCheckAnswer {
	t.Helper()
	code, b := ts.do(t, "POST", "/api/steps/"+n+"/check", body)
	if code != 200 {
		t.Fatalf("POST /api/steps/%s/check: %d %s", n, code, b)
	}
	var a stepCheckAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return a
}

// TestStepCheckSolution checks step 8's solution source: a verdict per
// rank count the kernel lists (2, 3, 4, 8 in its header), every one
// passing under both schedules.
func TestStepCheckSolution(t *testing.T) {
	ts := start(t, "")
	k, _ := kernels.Get("08_allreduce_mesh")
	a := postStepCheck(t, ts, "8", map[string]any{"code": string(k.Source)})
	if !a.OK || a.Variant != "solution" || a.Kernel != "08_allreduce_mesh" || a.Error != "" {
		t.Errorf("ok=%v variant=%q kernel=%q error=%q, want a passing solution check of 08_allreduce_mesh", a.OK, a.Variant, a.Kernel, a.Error)
	}
	if len(a.Verdicts) != len(k.Ranks)*len(k.Entries) {
		t.Fatalf("%d verdicts, want one per rank count %v and entry %v", len(a.Verdicts), k.Ranks, k.Entries)
	}
	if !slices.Equal(a.Ranks, k.Ranks) {
		t.Errorf("ranks %v, want the kernel's %v", a.Ranks, k.Ranks)
	}
	for _, v := range a.Verdicts {
		if !v.Pass || v.Status != "ok" || v.Schedule != "" || v.Kernel != "08_allreduce_mesh" || v.Entry != "mesh_allreduce" {
			t.Errorf("verdict %+v, want a pass of mesh_allreduce", v)
		}
	}
	t.Logf("step 8 solution: %d verdicts at %v ranks, all pass", len(a.Verdicts), a.Ranks)
}

// TestStepCheckBug checks step 8's bug kernel twice: standing in for the
// solution it fails (a race, under the schedule that found it), and
// judged as the bug it fails the way its header documents.
func TestStepCheckBug(t *testing.T) {
	ts := start(t, "")
	bug := kernelSource(t, "08_allreduce_mesh_bug")
	a := postStepCheck(t, ts, "8", map[string]any{"code": bug})
	if a.OK {
		t.Errorf("the bug kernel passes the solution check: %+v", a)
	}
	failed := 0
	for _, v := range a.Verdicts {
		if !v.Pass {
			failed++
			if v.Status == "" || v.Reason == "" || (v.Schedule != "fair" && v.Schedule != "adversarial") {
				t.Errorf("failing verdict %+v lacks a status, reason or schedule", v)
			}
		}
	}
	if failed == 0 {
		t.Fatalf("no failing verdict among %d", len(a.Verdicts))
	}
	t.Logf("bug as solution: %d of %d verdicts fail, first: P=%d %s (%s): %s", failed, len(a.Verdicts),
		a.Verdicts[0].Ranks, a.Verdicts[0].Status, a.Verdicts[0].Schedule, a.Verdicts[0].Reason)

	b := postStepCheck(t, ts, "8", map[string]any{"code": bug, "variant": "bug"})
	if !b.OK || b.Variant != "bug" || b.Kernel != "08_allreduce_mesh_bug" || b.Bug == "" {
		t.Errorf("as the bug: ok=%v variant=%q kernel=%q bug=%q, want it to fail as documented", b.OK, b.Variant, b.Kernel, b.Bug)
	}
	for _, v := range b.Verdicts {
		if v.Pass {
			t.Errorf("bug verdict %+v passes", v)
		}
	}
	// The solution judged as the bug passes its checks: it does not fail
	// as the bug documents, so the bug check is not ok.
	c := postStepCheck(t, ts, "8", map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "variant": "bug"})
	if c.OK {
		t.Errorf("the solution judged as the bug is ok: %+v", c)
	}
}

// TestStepCheckCompileError checks that a program that does not compile
// gets failing verdicts with status compile_error, not a server error.
func TestStepCheckCompileError(t *testing.T) {
	ts := start(t, "")
	src := strings.Replace(kernelSource(t, "08_allreduce_mesh"), "def ", "def (", 1)
	a := postStepCheck(t, ts, "8", map[string]any{"code": src})
	if a.OK || len(a.Verdicts) == 0 {
		t.Fatalf("ok=%v with %d verdicts, want failing verdicts", a.OK, len(a.Verdicts))
	}
	for _, v := range a.Verdicts {
		if v.Pass || v.Status != "compile_error" || !strings.Contains(v.Reason, "line ") {
			t.Errorf("verdict %+v, want a compile_error with its line", v)
		}
	}
	t.Logf("compile error: %s", a.Verdicts[0].Reason)
}

// TestStepCheckVariants checks the defaults and the other variants: step
// 11 has no solution, so its check defaults to the builtin; a starter
// runs to completion with its gaps showing as wrong data; a bug kernel of
// step 20 other than the first is judged by its own header.
func TestStepCheckVariants(t *testing.T) {
	ts := start(t, "")
	a := postStepCheck(t, ts, "11", map[string]any{"code": kernelSource(t, "11_allreduce_reveal")})
	if !a.OK || a.Variant != "builtin" || a.Kernel != "11_allreduce_reveal" {
		t.Errorf("step 11: ok=%v variant=%q kernel=%q, want a passing builtin check", a.OK, a.Variant, a.Kernel)
	}
	st := postStepCheck(t, ts, "8", map[string]any{"code": kernelSource(t, "08_allreduce_mesh_starter"), "variant": "starter"})
	if !st.OK || st.Kernel != "08_allreduce_mesh" {
		t.Errorf("starter: ok=%v kernel=%q, want it to run to completion against 08_allreduce_mesh", st.OK, st.Kernel)
	}
	wrong := 0
	for _, v := range st.Verdicts {
		if v.Status == "wrong_data" {
			wrong++
		}
	}
	if wrong == 0 {
		t.Errorf("starter: no verdict shows the gaps as wrong_data: %+v", st.Verdicts)
	}
	b := postStepCheck(t, ts, "20", map[string]any{"code": kernelSource(t, "20_window_reuse_bug"), "variant": "bug", "kernel": "20_window_reuse_bug"})
	if !b.OK || b.Kernel != "20_window_reuse_bug" {
		t.Errorf("step 20 window reuse bug: ok=%v kernel=%q verdicts %+v, want it to fail as documented", b.OK, b.Kernel, b.Verdicts)
	}
}

// TestStepCheckBadInput checks the refusals: an unknown step, an unknown
// variant or kernel, no code, too much code.
func TestStepCheckBadInput(t *testing.T) {
	ts := start(t, "")
	src := kernelSource(t, "08_allreduce_mesh")
	for _, tc := range []struct {
		path string
		body any
		want int
	}{
		{"/api/steps/21/check", map[string]any{"code": src}, 404},
		{"/api/steps/x/check", map[string]any{"code": src}, 404},
		{"/api/steps/8/check", map[string]any{"code": src, "variant": "builtin"}, 400},
		{"/api/steps/8/check", map[string]any{"code": src, "variant": "bug", "kernel": "12_broadcast_bug"}, 400},
		{"/api/steps/8/check", map[string]any{"code": ""}, 400},
		{"/api/steps/8/check", `{"code": 3}`, 400},
		{"/api/steps/8/check", map[string]any{"code": strings.Repeat("#", MaxCode+1)}, 413},
	} {
		code, b := ts.do(t, "POST", tc.path, tc.body)
		if code != tc.want {
			t.Errorf("POST %s: %d %s, want %d", tc.path, code, b, tc.want)
			continue
		}
		var e struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(b, &e); err != nil || e.Error == "" {
			t.Errorf("POST %s: body %s, want an error message", tc.path, b)
		}
	}
}
