package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/kernels"
)

// call sends a request through app.Test (no socket needed).
func call(t *testing.T, s *Server, method, path, body string) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = "127.0.0.1" // the gate answers loopback names only
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.App().Test(req, 30_000)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func jsonBody(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSteps(t *testing.T) {
	ts := start(t, "")
	code, b := call(t, ts.Server, "GET", "/api/steps", "")
	if code != 200 {
		t.Fatalf("GET /api/steps: %d %s", code, b)
	}
	var got struct {
		Steps []map[string]any `json:"steps"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Steps) != 20 {
		t.Fatalf("%d steps, want 20", len(got.Steps))
	}
	for i, s := range got.Steps {
		for _, f := range []string{"number", "slug", "title", "teaches", "ranks", "default_ranks", "variants"} {
			if _, ok := s[f]; !ok {
				t.Errorf("step %d lacks %q", i+1, f)
			}
		}
		if int(s["number"].(float64)) != i+1 {
			t.Errorf("step %d has number %v", i+1, s["number"])
		}
	}
	if got.Steps[3]["reveals"] != "pld.tensor.barrier" {
		t.Errorf("step 4 reveals %v", got.Steps[3]["reveals"])
	}
}

func TestStepDetail(t *testing.T) {
	ts := start(t, "")
	code, b := call(t, ts.Server, "GET", "/api/steps/8", "")
	if code != 200 {
		t.Fatalf("GET /api/steps/8: %d %s", code, b)
	}
	var d struct {
		Number       int               `json:"number"`
		Slug         string            `json:"slug"`
		Ranks        []int             `json:"ranks"`
		DefaultRanks int               `json:"default_ranks"`
		Variants     []string          `json:"variants"`
		Prev         int               `json:"prev"`
		Next         int               `json:"next"`
		HTML         string            `json:"html"`
		Kernels      map[string]string `json:"kernels"`
		KernelNames  map[string]string `json:"kernel_names"`
		Hints        []string          `json:"hints"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.Number != 8 || d.Slug != "allreduce-mesh" || d.Prev != 7 || d.Next != 9 || d.DefaultRanks != 2 {
		t.Errorf("step 8: number %d slug %q prev %d next %d default_ranks %d", d.Number, d.Slug, d.Prev, d.Next, d.DefaultRanks)
	}
	if !strings.Contains(d.HTML, `<div class="cell" data-action="run" data-kernel="kernels/08_allreduce_mesh.py" data-args="--ranks 4"></div>`) {
		t.Errorf("step 8 html lacks the run cell:\n%.400s", d.HTML)
	}
	if d.KernelNames["solution"] != "08_allreduce_mesh" || d.KernelNames["bug"] != "08_allreduce_mesh_bug" || d.KernelNames["starter"] != "08_allreduce_mesh_starter" {
		t.Errorf("kernel_names = %v", d.KernelNames)
	}
	if d.Kernels["solution"] != kernelSource(t, "08_allreduce_mesh") {
		t.Errorf("kernels.solution is not the kernel file")
	}
	if len(d.Hints) != 4 || !strings.HasPrefix(d.Hints[0], "Before a rank reads") || !strings.Contains(d.Hints[3], "<code>pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)</code>") {
		t.Errorf("hints = %q", d.Hints)
	}

	// The stylesheet of the highlighted prose code.
	code, css := call(t, ts.Server, "GET", "/assets/chroma.css", "")
	if code != 200 || !bytes.Contains(css, []byte(".chroma .k {")) {
		t.Errorf("GET /assets/chroma.css: %d %.200s", code, css)
	}
}

func TestKernel(t *testing.T) {
	ts := start(t, "")
	code, b := call(t, ts.Server, "GET", "/api/kernels/08_allreduce_mesh_bug", "")
	if code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	var k kernelJSON
	if err := json.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	if k.Name != "08_allreduce_mesh_bug" || k.File != "08_allreduce_mesh_bug.py" || k.Step != 8 || k.Variant != "bug" ||
		k.Bug == "" || len(k.Entries) != 1 || k.Entries[0] != "mesh_allreduce" || len(k.Ranks) == 0 || len(k.Goldens) == 0 {
		t.Errorf("kernel = %+v", k)
	}
}

func TestCheck(t *testing.T) {
	ts := start(t, "")
	code, b := call(t, ts.Server, "POST", "/api/check", jsonBody(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh")}))
	if code != 200 || !strings.Contains(string(b), `"ok": true`) || !strings.Contains(string(b), `"diagnostics": []`) {
		t.Errorf("clean kernel: %d %s", code, b)
	}

	src := readFile(t, "../engine/testdata/errors/notify_without_op.py")
	code, b = call(t, ts.Server, "POST", "/api/check", jsonBody(t, map[string]any{"code": src}))
	var rep struct {
		OK          bool      `json:"ok"`
		Diagnostics diag.List `json:"diagnostics"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || code != 200 {
		t.Fatalf("%d %s %v", code, b, err)
	}
	if rep.OK || len(rep.Diagnostics) != 1 {
		t.Fatalf("report = %+v", rep)
	}
	d := rep.Diagnostics[0]
	if d.Code == "" || d.Span.Start.Line == 0 || d.Span.Start.Col == 0 || d.Severity != diag.Error || d.Hint == "" {
		t.Errorf("diagnostic = %+v", d)
	}
	// Byte for byte what `workbench check --json` prints (its own
	// file name aside): both call engine.Result.JSON.
	want, err := engine.Load(context.Background(), fileName, []byte(src), engine.Options{}).Check(context.Background(), engine.Options{Platform: "910B"}).JSON()
	if err != nil || !bytes.Equal(b, want) {
		t.Errorf("the answer differs from engine.Result.JSON:\n%s\n%s", b, want)
	}
}

func TestIR(t *testing.T) {
	ts := start(t, "")
	src := kernelSource(t, "11_allreduce_reveal")
	code, b := call(t, ts.Server, "POST", "/api/ir", jsonBody(t, map[string]any{"code": src, "entry": `build_allreduce_reveal({P}, "mesh", "sum").allreduce`, "ranks": 4}))
	var got irResponse
	if err := json.Unmarshal(b, &got); err != nil || code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	if !strings.Contains(got.IR, "pld.system.notify") || got.Error != "" {
		t.Errorf("lowered IR lacks the notify the builtin lowers to:\n%.600s", got.IR)
	}
	code, b = call(t, ts.Server, "POST", "/api/ir", jsonBody(t, map[string]any{"code": src, "entry": `build_allreduce_reveal({P}, "mesh", "sum").allreduce`, "ranks": 4, "after": "checked"}))
	if err := json.Unmarshal(b, &got); err != nil || code != 200 || !strings.Contains(got.IR, "pld.tensor.allreduce") {
		t.Errorf("checked IR lacks the builtin: %d %.600s", code, b)
	}
}

// TestBadInput holds the error contract: each bad request gets its status
// and an error that says what is allowed.
func TestBadInput(t *testing.T) {
	// A server that does not listen: app.Test needs none, and the panic
	// route must be registered before serving starts.
	s, err := New(Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	s.App().Get("/test/panic", func(*fiber.Ctx) error { panic("boom") })
	ts := &testServer{Server: s}
	mesh := kernelSource(t, "08_allreduce_mesh")
	tests := []struct {
		method, path, body string
		code               int
		contains           string
	}{
		{"POST", "/api/runs", `{"code": `, 400, "bad JSON"},
		{"POST", "/api/runs", ``, 400, "empty request body"},
		{"POST", "/api/runs", `{"code": 3}`, 400, "code"},
		{"POST", "/api/runs", `{"code": ""}`, 400, "code is empty"},
		{"POST", "/api/runs", jsonBody(t, map[string]any{"code": mesh, "ranks": 1000}), 400, "want 1..64"},
		{"POST", "/api/runs", jsonBody(t, map[string]any{"code": mesh, "ranks": -1}), 400, "want 1..64"},
		{"POST", "/api/runs", jsonBody(t, map[string]any{"code": mesh, "step": 8, "ranks": 0, "variant": "bogus"}), 400, "starter, solution, bug"},
		{"POST", "/api/runs", jsonBody(t, map[string]any{"code": mesh, "schedule": "sideways"}), 400, "schedule"},
		{"POST", "/api/runs", jsonBody(t, map[string]any{"code": mesh, "fill": "lots"}), 400, "index, randn, ones or zeros"},
		{"POST", "/api/runs", jsonBody(t, map[string]any{"code": mesh, "platform": "H100"}), 400, "910B"},
		{"POST", "/api/runs", jsonBody(t, map[string]any{"code": mesh, "step": 99}), 404, "no step 99"},
		{"POST", "/api/runs", jsonBody(t, map[string]any{"code": strings.Repeat("#", MaxCode+1)}), 413, "256 KiB"},
		{"POST", "/api/check", jsonBody(t, map[string]any{"code": mesh, "ranks": 65}), 400, "want 1..64"},
		{"POST", "/api/ir", jsonBody(t, map[string]any{"code": mesh, "after": "bogus"}), 400, "incore-collectives"},
		{"POST", "/api/compare", jsonBody(t, map[string]any{"a": map[string]any{"code": mesh}, "b": map[string]any{"kernel": "nope"}}), 404, "no kernel"},
		{"POST", "/api/compare", jsonBody(t, map[string]any{"a": map[string]any{"code": mesh}, "b": map[string]any{}}), 400, "b.code is empty"},
		{"GET", "/api/steps/21", "", 404, "no step"},
		{"GET", "/api/steps/x", "", 404, "no step"},
		{"GET", "/api/kernels/nope", "", 404, "no kernel"},
		{"GET", "/api/runs/nope", "", 404, "no run nope"},
		{"GET", "/api/runs/nope/trace.json", "", 404, "no run nope"},
		{"GET", "/api/runs/nope/events", "", 404, "no run nope"},
		{"GET", "/ws/runs/nope", "", 426, "websocket"},
		{"GET", "/api/nothing", "", 404, "no route"},
		{"GET", "/assets/../../go.mod", "", 404, ""},
		{"GET", "/test/panic", "", 500, "internal error"},
	}
	for _, tt := range tests {
		code, b := call(t, ts.Server, tt.method, tt.path, tt.body)
		if code != tt.code || !strings.Contains(string(b), tt.contains) {
			t.Errorf("%s %s %.60s: %d %s; want %d containing %q", tt.method, tt.path, tt.body, code, b, tt.code, tt.contains)
			continue
		}
		if code >= 400 && tt.contains != "" {
			var e apiError
			if err := json.Unmarshal(b, &e); err != nil || e.Msg == "" {
				t.Errorf("%s %s: error body %s is not {\"error\": ...}", tt.method, tt.path, b)
			}
		}
	}
	if ts.Executions() != 0 {
		t.Errorf("bad requests executed %d runs", ts.Executions())
	}
}

// TestTooLarge sends bodies past the limits to the real server: code
// over 256 KiB, and a body over the request limit (which app.Test cannot
// send).
func TestTooLarge(t *testing.T) {
	ts := start(t, "")
	for _, body := range []map[string]any{
		{"code": strings.Repeat("#", MaxCode+1)},
		{"code": strings.Repeat("\"", 2*MaxCode)},
	} {
		code, b := ts.do(t, "POST", "/api/runs", body)
		if code != 413 || !strings.Contains(string(b), "256 KiB") {
			t.Errorf("%d %s; want 413 saying 256 KiB", code, b)
		}
	}
}

func TestPages(t *testing.T) {
	ts := start(t, "")
	for _, tt := range []struct {
		path string
		code int
	}{{"/", 200}, {"/step/8", 200}, {"/step/0", 404}, {"/r/unknown", 404}} {
		code, b := call(t, ts.Server, "GET", tt.path, "")
		if code != tt.code || !bytes.Contains(b, []byte("<html")) {
			t.Errorf("GET %s: %d %.100s; want %d and the page", tt.path, code, b, tt.code)
		}
	}
}

func TestCompare(t *testing.T) {
	ts := start(t, "")
	body := map[string]any{
		"a":     map[string]any{"code": kernelSource(t, "12_broadcast_hand")},
		"b":     map[string]any{"kernel": "12_broadcast_builtin"},
		"ranks": 4,
	}
	code, b := call(t, ts.Server, "POST", "/api/compare", jsonBody(t, body))
	if code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	var cr struct {
		Verdict string `json:"verdict"`
		Ranks   int    `json:"ranks"`
		A       struct {
			Status string    `json:"status"`
			Stats  emuStatsT `json:"stats"`
		} `json:"a"`
		B struct {
			Status string    `json:"status"`
			Stats  emuStatsT `json:"stats"`
		} `json:"b"`
		Outputs []struct {
			Name  string `json:"name"`
			Equal bool   `json:"equal"`
		} `json:"outputs"`
		IRA string `json:"ir_a"`
		IRB string `json:"ir_b"`
	}
	if err := json.Unmarshal(b, &cr); err != nil {
		t.Fatal(err)
	}
	if cr.Verdict != "equal" || cr.Ranks != 4 || cr.A.Status != "ok" || cr.B.Status != "ok" || len(cr.Outputs) == 0 || !cr.Outputs[0].Equal {
		t.Errorf("compare = %.800s", b)
	}
	if cr.A.Stats.Notifies == 0 || cr.B.Stats.Notifies == 0 {
		t.Errorf("stats missing: %+v %+v", cr.A.Stats, cr.B.Stats)
	}
	if !strings.Contains(cr.IRA, "host broadcast_hand(") || !strings.Contains(cr.IRB, "host broadcast_builtin(") {
		t.Errorf("ir_a/ir_b: %.200s / %.200s", cr.IRA, cr.IRB)
	}
}

type emuStatsT struct {
	Notifies int64 `json:"notifies"`
}

// TestCompareRuns checks that a comparison stores both sides as ordinary
// runs: run_a and run_b are the ids POST /api/runs gives for the same code
// and settings, their websockets stream each side's events to done, and a
// second identical comparison executes no run again.
func TestCompareRuns(t *testing.T) {
	ts := start(t, "")
	hand := kernelSource(t, "12_broadcast_hand")
	body := map[string]any{
		"a":     map[string]any{"code": hand},
		"b":     map[string]any{"kernel": "12_broadcast_builtin"},
		"ranks": 4,
	}
	code, b := ts.do(t, "POST", "/api/compare", body)
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
	if cr.Verdict != "equal" || cr.RunA == "" || cr.RunB == "" || cr.RunA == cr.RunB {
		t.Fatalf("verdict %q run_a %q run_b %q, want equal and two run ids", cr.Verdict, cr.RunA, cr.RunB)
	}
	for _, side := range []struct {
		name, id string
		post     map[string]any
	}{
		{"a", cr.RunA, map[string]any{"code": hand, "ranks": 4}},
		{"b", cr.RunB, map[string]any{"code": kernelSource(t, "12_broadcast_builtin"), "ranks": 4,
			"entry": mustKernel(t, "12_broadcast_builtin").EntriesAt(4)[0]}},
	} {
		ms := readAll(t, ts.dial(t, side.id))
		done := ms[len(ms)-1]
		events := len(ofType(ms, "event"))
		if done.Status != "ok" || events == 0 || done.Share != "/r/"+side.id {
			t.Errorf("run_%s %s: done %s with %d events, share %q; want ok, events, /r/%s", side.name, side.id, done.Status, events, done.Share, side.id)
		}
		pr := ts.post(t, side.post)
		if pr.ID != side.id || !pr.Cached {
			t.Errorf("POST /api/runs of side %s: id %s cached %v, want %s cached (the compare stored it)", side.name, pr.ID, pr.Cached, side.id)
		}
		t.Logf("run_%s %s: %d events, done %s", side.name, side.id, events, done.Status)
	}
	before := ts.Executions()
	code, b2 := ts.do(t, "POST", "/api/compare", body)
	var cr2 struct {
		RunA string `json:"run_a"`
		RunB string `json:"run_b"`
	}
	if code != 200 || json.Unmarshal(b2, &cr2) != nil || cr2.RunA != cr.RunA || cr2.RunB != cr.RunB {
		t.Errorf("second compare: %d %.300s, want the same run ids", code, b2)
	}
	if n := ts.Executions() - before; n != 0 {
		t.Errorf("the second identical compare executed %d runs, want 0 (both stored)", n)
	}
}

func mustKernel(t *testing.T, name string) kernels.Kernel {
	t.Helper()
	k, ok := kernels.Get(name)
	if !ok {
		t.Fatalf("no kernel %s", name)
	}
	return k
}
