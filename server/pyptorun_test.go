package server

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/kernels"
)

// standinOutputs runs the entry on the emulator (index fill, as the export
// makes the inputs) and writes its outputs where the stand-in PyPTO reads
// them, by argument position: the "PyPTO run" then returns the emulator's
// numbers, and the driver's golden check passes.
func standinOutputs(t *testing.T, kernel, entry string, p int) string {
	t.Helper()
	k, _ := kernels.Get(kernel)
	run := engine.Load(t.Context(), k.File, k.Source, engine.Options{}).Run(t.Context(), engine.RunOptions{Options: engine.Options{Entry: entry, Ranks: p}, Fill: emu.FillIndex})
	if run.Status != "ok" {
		t.Fatalf("emulator: %s", run.Status)
	}
	outs := map[string][]float64{}
	for pos, prm := range run.Program.Entry.Params {
		if o, ok := run.Out[prm.Var.Name]; ok && prm.Dir != ir.In {
			outs[fmt.Sprint(pos)] = o.Floats()
		}
	}
	path := filepath.Join(t.TempDir(), "outs.json")
	b, _ := json.Marshal(outs)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPyPTORun: POST /api/pypto/run exports step 08's mesh, runs it
// through the stand-in PyPTO (engine/npu/testdata/standin, which records
// the calls and writes outputs and swimlane records in upstream's
// formats) and stores the result as a run: GET /api/runs/{id} has the
// driver's outputs and golden verdict, /api/runs/{id}/events the task
// slices, and the settings name the backend. The same post again finds
// it stored; without PyPTO the answer is 409 with what is missing.
func TestPyPTORun(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	ts := start(t, "")
	standin, _ := filepath.Abs("../engine/npu/testdata/standin")
	t.Setenv("PYTHONPATH", standin)
	t.Setenv("PLD_STANDIN_OUTPUTS", standinOutputs(t, "08_allreduce_mesh", "mesh_allreduce", 4))
	body := jsonBody(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "kernel": "08_allreduce_mesh", "ranks": 4, "entry": "mesh_allreduce", "platform": "a2a3sim"})
	code, b := call(t, ts.Server, "POST", "/api/pypto/run", body)
	var got pyptoRunResponse
	if err := json.Unmarshal(b, &got); err != nil || code != 200 || got.ID == "" {
		t.Fatalf("%d %s", code, b)
	}
	if got.Status != "ok" || got.PyPTO != "0.0.0+standin" || got.Events == 0 || !strings.Contains(got.Lanes, "task-level") {
		t.Errorf("the stand-in's run: %s", b)
	}
	code, b = call(t, ts.Server, "GET", "/api/runs/"+got.ID, "")
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil || code != 200 {
		t.Fatalf("GET /api/runs/%s: %d %s", got.ID, code, b)
	}
	if rec.Settings.Backend != "pypto 0.0.0+standin" || rec.Settings.Platform != "a2a3sim" || rec.Ranks != 4 {
		t.Errorf("stored settings %+v, ranks %d", rec.Settings, rec.Ranks)
	}
	if y := rec.Outputs["y"]; y == nil || len(y.Shape) == 0 || y.Shape[0] != 4 {
		t.Errorf("stored outputs %v, want y with 4 ranks", rec.OutputOrder)
	}
	if rec.Check == nil || !rec.Check.Pass || rec.Events != got.Events {
		t.Errorf("stored check %+v, events %d (the post said %d)", rec.Check, rec.Events, got.Events)
	}
	if len(rec.Diagnostics) != 1 || !strings.Contains(rec.Diagnostics[0].Msg, "task-level slices") {
		t.Errorf("the run's note: %+v", rec.Diagnostics)
	}
	code, b = call(t, ts.Server, "GET", "/api/runs/"+got.ID+"/events", "")
	if code != 200 || strings.Count(string(b), "npu.task") != got.Events {
		t.Errorf("events: %d, %d task slices in %d bytes, want %d", code, strings.Count(string(b), "npu.task"), len(b), got.Events)
	}
	code, b = call(t, ts.Server, "POST", "/api/pypto/run", body)
	var again pyptoRunResponse
	if json.Unmarshal(b, &again); code != 200 || again.ID != got.ID || !again.Cached {
		t.Errorf("the same post again: %d %s", code, b)
	}
	// Outputs the golden does not accept: the stored run's check says so
	// in the driver's words.
	t.Setenv("PLD_STANDIN_OUTPUTS", "")
	wrong := jsonBody(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "kernel": "08_allreduce_mesh", "ranks": 2, "entry": "mesh_allreduce", "platform": "a5sim"})
	code, b = call(t, ts.Server, "POST", "/api/pypto/run", wrong)
	var bad pyptoRunResponse
	if json.Unmarshal(b, &bad); code != 200 || bad.Status != "mismatch" {
		t.Fatalf("outputs left as they were: %d %s", code, b)
	}
	_, b = call(t, ts.Server, "GET", "/api/runs/"+bad.ID, "")
	rec = record{}
	json.Unmarshal(b, &rec)
	if rec.Check == nil || rec.Check.Pass || rec.Check.Status != "wrong_data" || !strings.Contains(rec.Check.Reason, "elements wrong") {
		t.Errorf("a mismatch's stored check: %+v", rec.Check)
	}
	t.Setenv("PYTHONPATH", t.TempDir())
	code, b = call(t, ts.Server, "POST", "/api/pypto/run", body)
	if code != 409 || !strings.Contains(string(b), "pypto is not importable") {
		t.Errorf("without pypto: %d %s", code, b)
	}
}
