package npu_test

import (
	"strings"
	"testing"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/npu"
)

// TestRealPyPTOCompileOnly compiles every exported step with the real
// PyPTO's --compile-only when python3 imports one (PYTHONPATH as the
// environment gives it), and reports how many compiled; it skips, saying
// so, when there is no PyPTO. Without ptoas, PyPTO's compile stops at the
// kernels' .pto and the per-rank orchestration sources, which is enough
// for its verdict.
func TestRealPyPTOCompileOnly(t *testing.T) {
	py := python(t)
	tc := npu.Detect(t.Context(), npu.DetectOptions{Python: py})
	if tc.PyPTO == "" || tc.Torch == "" || strings.Contains(tc.PyPTO, "standin") {
		t.Skipf("no real PyPTO importable by %s (missing: %s): the exported steps were not compiled by PyPTO", py, strings.Join(tc.Missing, "; "))
	}
	list := exportAll(t, t.TempDir(), engine.FillIndex)
	compiled := 0
	for _, x := range list {
		if x.starter {
			continue
		}
		r, err := npu.Run(t.Context(), npu.RunSpec{Script: x.res.Script, Platform: "a2a3sim", CompileOnly: true, Python: tc.Python, Timeout: 10 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "compiled" {
			t.Errorf("%s %s: PyPTO %s says %s:\n%s", x.kernel.Name, x.entry, tc.PyPTO, r.Status, r.Stderr)
			continue
		}
		compiled++
	}
	t.Logf("PyPTO %s at %s compiled %d exported entries", tc.PyPTO, tc.PyPTOPath, compiled)
}
