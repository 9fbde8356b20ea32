package server

import (
	"encoding/base64"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pldworkbench/engine/diag"
)

// TestExport: POST /api/export answers the script `workbench export`
// writes, the step's golden in it, the randn inputs beside it, and a
// program that breaks an NPU rule with its diagnostics and no script.
func TestExport(t *testing.T) {
	ts := start(t, "")
	src := kernelSource(t, "08_allreduce_mesh")
	code, b := call(t, ts.Server, "POST", "/api/export", jsonBody(t, map[string]any{"code": src, "kernel": "08_allreduce_mesh", "fill": "randn", "seed": 3}))
	var got exportResponse
	if err := json.Unmarshal(b, &got); err != nil || code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	data, err := base64.StdEncoding.DecodeString(got.Data)
	if !strings.Contains(got.Script, src) || !strings.Contains(got.Script, "Golden: y[r] == sum") || got.Filename != "08_allreduce_mesh_pypto.py" ||
		err != nil || len(data) != 4*64*8 || got.DataName != "08_allreduce_mesh_pypto.inputs.bin" || got.Ranks != 4 {
		t.Errorf("filename %q data %q (%d bytes, %v) ranks %d\n%.400s", got.Filename, got.DataName, len(data), err, got.Ranks, got.Script)
	}

	ring := kernelSource(t, "10_allreduce_ring")
	code, b = call(t, ts.Server, "POST", "/api/export", jsonBody(t, map[string]any{"code": ring, "entry": "build_ring_allreduce({P}).ring_allreduce", "ranks": 16}))
	got = exportResponse{}
	if err := json.Unmarshal(b, &got); err != nil || code != 200 || got.Script != "" {
		t.Fatalf("%d %s", code, b)
	}
	found := false
	for _, d := range got.Diagnostics {
		found = found || d.Code == "W0301" && d.Severity == diag.Error
	}
	if !found {
		t.Errorf("the 32-byte tile rule is not an error at export: %s", b)
	}
	code, _ = call(t, ts.Server, "POST", "/api/export", jsonBody(t, map[string]any{"code": src, "platform": "910B"}))
	if code != 400 {
		t.Errorf("platform 910B: %d, want 400 (export takes PyPTO's platform names)", code)
	}
}

// TestPyPTOStatus: GET /api/pypto reports the toolchain; with the
// stand-in on PYTHONPATH its pypto and the simulators are ready, without
// it the answer says what is missing.
func TestPyPTOStatus(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	ts := start(t, "")
	standin, _ := filepath.Abs("../engine/npu/testdata/standin")
	t.Setenv("PYTHONPATH", standin)
	code, b := call(t, ts.Server, "GET", "/api/pypto", "")
	var got pyptoResponse
	if err := json.Unmarshal(b, &got); err != nil || code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	if got.PyPTO != "0.0.0+standin" || !slices.Contains(got.Ready, "a2a3sim") || !slices.Contains(got.Ready, "a5sim") {
		t.Errorf("with the stand-in: %s", b)
	}
	t.Setenv("PYTHONPATH", t.TempDir())
	_, b = call(t, ts.Server, "GET", "/api/pypto", "")
	got = pyptoResponse{}
	json.Unmarshal(b, &got)
	if got.PyPTO == "" && (len(got.Ready) != 0 || !strings.Contains(strings.Join(got.Missing, " "), "pypto is not importable")) {
		t.Errorf("without pypto: %s", b)
	}
}

// TestPyPTOCheck: POST /api/pypto/check gives the workbench's diagnostics
// and PyPTO's compile verdict (the stand-in's, which refuses on request),
// and says what is missing without PyPTO.
func TestPyPTOCheck(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	ts := start(t, "")
	src := kernelSource(t, "08_allreduce_mesh")
	standin, _ := filepath.Abs("../engine/npu/testdata/standin")
	t.Setenv("PYTHONPATH", standin)
	ask := func() pyptoCheckResponse {
		code, b := call(t, ts.Server, "POST", "/api/pypto/check", jsonBody(t, map[string]any{"code": src}))
		var got pyptoCheckResponse
		if err := json.Unmarshal(b, &got); err != nil || code != 200 {
			t.Fatalf("%d %s", code, b)
		}
		return got
	}
	if got := ask(); !got.Exported || got.Status != "compiled" || got.PyPTO != "0.0.0+standin" {
		t.Errorf("with the stand-in: %+v", got)
	}
	t.Setenv("PLD_STANDIN_COMPILE_ERROR", "refused by the stand-in")
	if got := ask(); got.Status != "error" || !strings.Contains(got.Messages, "refused by the stand-in") ||
		got.Refusal == nil || got.Refusal.Error != "ValueError: refused by the stand-in" || strings.Contains(got.Messages, "pld-pypto-") {
		t.Errorf("a refusal: %+v", got)
	}
	t.Setenv("PYTHONPATH", t.TempDir())
	if got := ask(); got.PyPTO == "" && (got.Status != "" || len(got.Missing) == 0) {
		t.Errorf("without pypto: %+v", got)
	}
}
