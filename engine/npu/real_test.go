package npu_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/npu"
)

// knownCompileFailures are the exported entries real PyPTO (e2d0f78ae)
// refuses for a reason on its side, by kernel name and header entry: each is listed with
// the upstream defect, so the test fails only on a new refusal (ours to
// fix in the driver) or on one of these starting to compile (then the
// entry is to come off this list).
var knownCompileFailures = map[string]string{}

// TestRealPyPTOCompileOnly exports every step's solution, builtin and
// starter at every header entry (the step's default rank count, platform
// a2a3sim) and compiles each exported script with its own --compile-only
// under the real PyPTO that PLD_PYPTO names (an interpreter that imports
// pypto and torch). Without ptoas, PyPTO's compile stops at the kernels'
// .pto and the per-rank orchestration sources, which is enough for its
// verdict. The table of counts and refusals is logged (go test -v).
func TestRealPyPTOCompileOnly(t *testing.T) {
	tc := realPyPTO(t, "the exported scripts were not compiled by PyPTO")
	list := exportAll(t, t.TempDir(), emu.FillIndex)
	compiled, known := 0, 0
	var refused strings.Builder
	for _, x := range list {
		r, err := npu.Run(t.Context(), npu.RunSpec{Script: x.res.Script, Platform: "a2a3sim", CompileOnly: true, Python: tc.Python, Timeout: 5 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		why, isKnown := knownCompileFailures[x.kernel.Name+" "+x.entry]
		ref := npu.RefusalOf(r.Stderr, x.res.Script, x.kernel.File)
		said := strings.ReplaceAll(strings.SplitN(ref.Error, "\n", 2)[0], "|", "/")
		if ref.Where != "" {
			said += " (at " + ref.Where + ")"
		}
		switch {
		case r.Status == "compiled" && isKnown:
			t.Errorf("%s %s compiles now: take it off knownCompileFailures (%s)", x.kernel.Name, x.entry, why)
			compiled++
		case r.Status == "compiled":
			compiled++
		case isKnown:
			known++
			fmt.Fprintf(&refused, "| %s | %s | %d | known upstream: %s | %s |\n", x.kernel.Name, x.entry, x.ranks, why, said)
		default:
			t.Errorf("%s %s at %d ranks: PyPTO %s says %s (exit %d):\n%s", x.kernel.Name, x.entry, x.ranks, tc.PyPTO, r.Status, r.ExitCode, npu.Messages(r.Stderr, x.res.Script, x.kernel.File))
			fmt.Fprintf(&refused, "| %s | %s | %d | NEW | %s |\n", x.kernel.Name, x.entry, x.ranks, said)
		}
	}
	t.Logf("PyPTO %s at %s (assembler %q, none found: %v), --compile-only on a2a3sim: %d entries of %d kernels exported, %d compiled, %d refused (%d of them known upstream defects)",
		tc.PyPTO, tc.PyPTOPath, tc.PTOAS, tc.NoPTOAS, len(list), countKernels(list), compiled, len(list)-compiled, known)
	if refused.Len() > 0 {
		t.Logf("refused:\n| kernel | entry | P | why | PyPTO's error |\n|---|---|---|---|---|\n%s", refused.String())
	}
}

// realPyPTO is the toolchain PLD_PYPTO names; the test skips, saying what
// was not done, without it.
func realPyPTO(t *testing.T, notDone string) npu.Toolchain {
	t.Helper()
	py := os.Getenv("PLD_PYPTO")
	if py == "" {
		t.Skip("set PLD_PYPTO to a Python interpreter that can import pypto (built from upstream sources) and torch: " + notDone)
	}
	tc := npu.Detect(t.Context(), npu.DetectOptions{Python: py})
	if !tc.Compiles() || strings.Contains(tc.PyPTOPath, "standin") {
		t.Skipf("PLD_PYPTO=%s imports no real PyPTO and torch (missing: %s): %s", py, strings.Join(tc.Missing, "; "), notDone)
	}
	return tc
}

// TestRealPyPTORunHowFar runs the exported steps 01, 04, 08 and 11 on
// a2a3sim under the real PyPTO (not --compile-only) and logs how far each
// got. A run needs the kernels PyPTO assembles with ptoas: with no
// assembler every run must stop with PyPTO's own error (the test logs it);
// with one, step 01, which has no communication ops, must run and match
// its golden.
func TestRealPyPTORunHowFar(t *testing.T) {
	tc := realPyPTO(t, "no exported step was run on PyPTO's simulator")
	for _, c := range []struct{ name, entry string }{
		{"01_hello_rank", "hello_rank"},
		{"04_barrier_builtin", "barrier_then_read"},
		{"08_allreduce_mesh", "mesh_allreduce"},
		{"11_allreduce_reveal", `build_allreduce_reveal(4, "mesh", "sum").allreduce`},
	} {
		res, k := exportOne(t, c.name, c.entry, 4, emu.FillIndex)
		r, err := npu.Run(t.Context(), npu.RunSpec{Script: res.Script, Platform: "a2a3sim", Python: tc.Python, Timeout: 10 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		ref := npu.RefusalOf(r.Stderr, res.Script, k.File)
		t.Logf("%s %s on a2a3sim: %s (exit %d, %.1fs): %s", c.name, c.entry, r.Status, r.ExitCode, r.Elapsed.Seconds(), ref.Error)
		switch {
		case tc.NoPTOAS && (r.Status != npu.StatusError || ref.Error == ""):
			t.Errorf("%s ran without an assembler? status %s:\n%s", c.name, r.Status, npu.Messages(r.Stderr, res.Script, k.File))
		case !tc.NoPTOAS && c.name == "01_hello_rank" && r.Status != "ok":
			t.Errorf("step 01 has no communication ops and should run on a2a3sim with ptoas %s: %s\n%s", tc.PTOAS, r.Status, npu.Messages(r.Stderr, res.Script, k.File))
		}
	}
}
