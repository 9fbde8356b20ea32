package engine_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/trace"
)

// The regression tests of issue 11: every program here once crashed,
// wedged or exhausted the process; each must now end with a diagnostic or
// a run error naming its limit, in well under the time a user would wait.

// crashProgram is the six-line program whose defaulted, unannotated host
// parameter made the checker evaluate a nil annotation.
const crashProgram = `import pypto.language as pl


@pl.jit.host
def h(x=1):
    pass
`

func TestDefaultedParamIsDiagnostic(t *testing.T) {
	res := engine.Load(context.Background(), "crash.py", []byte(crashProgram), engine.Options{}).Check(context.Background(), engine.Options{})
	if res.Internal != nil {
		t.Fatalf("Check panicked: %v", res.Internal)
	}
	d := firstError(t, res.Diags)
	if d.Code != "E0112" || d.Span.Start.Line != 5 || d.Span.Start.Col != 7 || !strings.Contains(d.Msg, "parameter x has a default") || d.Hint == "" {
		t.Errorf("got %s at %d:%d %q hint %q, want E0112 at 5:7 naming x with a hint", d.Code, d.Span.Start.Line, d.Span.Start.Col, d.Msg, d.Hint)
	}
	run := engine.Load(context.Background(), "crash.py", []byte(crashProgram), engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Entry: "h"}})
	if run.Status != emu.StatusCompileError || run.Internal != nil || len(run.Diags) == 0 || run.Diags[0].Code != "E0112" {
		t.Errorf("Run: status %s, diagnostics %+v, want compile_error with E0112", run.Status, run.Diags)
	}
}

// windowProgram is a host that allocates ALLOC bytes of window on every
// rank and round-trips a tile through it; N_RANKS pins P.
const windowProgram = `import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = %d
SIZE = 64


@pl.jit.incore
def park(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]], parked: pld.DistributedTensor[[1, SIZE], pl.FP32]):
    t = pl.load(x, [0, 0], [1, SIZE])
    parked = pl.store(t, [0, 0], parked)
    u = pl.load(parked, [0, 0], [1, SIZE])
    y = pl.store(u, [0, 0], y)
    return y


@pl.jit
def per_device(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]], parked: pld.DistributedTensor[[1, SIZE], pl.FP32]):
    return park(x, y, parked)


@pl.jit.host
def host(x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]]):
    buf = pld.alloc_window_buffer(%s)
    for r in pl.range(pld.world_size()):
        parked = pld.window(buf, [1, SIZE], dtype=pl.FP32)
        per_device(x[r], y[r], parked, device=r)
`

func window(ranks int, alloc string) []byte {
	return []byte(fmt.Sprintf(windowProgram, ranks, alloc))
}

func TestWindowProgramRuns(t *testing.T) {
	// The programs below differ from this one only in their numbers: it
	// must run, so what refuses them is the budget.
	res := engine.Load(context.Background(), "w.py", window(4, "SIZE * 4"), engine.Options{}).Run(context.Background(), engine.RunOptions{})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s: %v %v", res.Status, res.Error, res.Diags)
	}
}

// TestPinnedRanksRefused: host tensors that pin P=100000 are refused by
// the rank cap when there is one, and by the memory budget (per-rank
// state) when there is none, before anything is built for them.
func TestPinnedRanksRefused(t *testing.T) {
	src := window(100000, "256")
	for _, tc := range []struct {
		budget limits.Budget
		code   string
	}{
		{limits.ServerBudget(), "E0517"},
		{limits.CLIBudget(), "E0516"},
	} {
		start := time.Now()
		res := engine.Load(context.Background(), "p.py", src, engine.Options{Budget: tc.budget}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Budget: tc.budget}})
		took := time.Since(start)
		if res.Status != emu.StatusCompileError || len(res.Diags) == 0 || res.Diags[0].Code != tc.code {
			t.Errorf("MaxRanks=%d: status %s, diagnostics %+v, want compile_error %s", tc.budget.MaxRanks, res.Status, res.Diags, tc.code)
		}
		if took > 500*time.Millisecond {
			t.Errorf("MaxRanks=%d: refused after %v, want well under a second", tc.budget.MaxRanks, took)
		}
		chk := engine.Load(context.Background(), "p.py", src, engine.Options{Budget: tc.budget}).Check(context.Background(), engine.Options{Budget: tc.budget})
		if d := firstError(t, chk.Diags); d.Code != tc.code || d.Span.Start.Line != 23 {
			t.Errorf("Check, MaxRanks=%d: %s at line %d %q, want %s at the host's line 23", tc.budget.MaxRanks, d.Code, d.Span.Start.Line, d.Msg, tc.code)
		}
	}
	// An explicit rank count is held to the same cap.
	res := engine.Load(context.Background(), "p.py", window(4, "256"), engine.Options{Budget: limits.ServerBudget()}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Ranks: 200, Budget: limits.ServerBudget()}})
	if res.Status != emu.StatusCompileError || len(res.Diags) == 0 || res.Diags[0].Code != "E0517" {
		t.Errorf("ranks 200: status %s, diagnostics %+v, want E0517", res.Status, res.Diags)
	}
}

// bigWindowEnv makes the test binary, re-executed, run the 2 GiB window
// alone, so the parent can read the child's peak RSS.
const bigWindowEnv = "PLD_TEST_BIG_WINDOW_CHILD"

// TestBigWindowRefused: alloc_window_buffer(2**31 - 1) at P=4 (8 GiB in
// all) ends with the memory error before the memory is touched, in under a
// second, and the process's peak RSS stays below the budget plus 200 MiB.
func TestBigWindowRefused(t *testing.T) {
	if os.Getenv(bigWindowEnv) != "" {
		bigWindowChild(t)
		return
	}
	start := time.Now()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBigWindowRefused$", "-test.count=1")
	cmd.Env = append(os.Environ(), bigWindowEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	took := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this platform")
	}
	peak := int64(ru.Maxrss) << 10 // kilobytes on Linux
	t.Logf("child peak RSS %s, %v in all", limits.Bytes(peak), took)
	if max := int64(limits.DefaultMemory) + 200<<20; peak > max {
		t.Errorf("peak RSS %s, want below %s", limits.Bytes(peak), limits.Bytes(max))
	}
	if !strings.Contains(string(out), "E0516 alloc_window_buffer wants 8 GiB across 4 ranks; the limit is 1 GiB") {
		t.Errorf("child output lacks the memory error:\n%s", out)
	}
}

func bigWindowChild(t *testing.T) {
	start := time.Now()
	res := engine.Load(context.Background(), "w.py", window(4, "2**31 - 1"), engine.Options{Budget: limits.Budget{Memory: limits.DefaultMemory}}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Budget: limits.Budget{Memory: limits.DefaultMemory}}})
	took := time.Since(start)
	if res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0516" || res.Error.Line != 24 {
		t.Fatalf("status %s, error %+v, want runtime_error E0516 at line 24", res.Status, res.Error)
	}
	if took > time.Second {
		t.Errorf("refused after %v, want under a second", took)
	}
	fmt.Printf("%s %s\n", res.Error.Code, res.Error.Message)
}

// TestHostTensorsRefused: 1.6 GB of host tensors are refused by the budget
// before they are made.
func TestHostTensorsRefused(t *testing.T) {
	src := []byte(`import pypto.language as pl


@pl.jit.host
def host(x: pl.Tensor[[4, 100000000], pl.FP32], y: pl.Out[pl.Tensor[[4, 100000000], pl.FP32]]):
    pass
`)
	start := time.Now()
	res := engine.Load(context.Background(), "h.py", src, engine.Options{Budget: limits.Budget{Memory: limits.DefaultMemory}}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Budget: limits.Budget{Memory: limits.DefaultMemory}}})
	if res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0516" || !strings.Contains(res.Error.Message, "the limit is 1 GiB") {
		t.Fatalf("status %s, error %+v, want E0516 naming the limit", res.Status, res.Error)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("refused after %v", took)
	}
}

// TestCompileTimeMemory: module code that keeps thousands of 16 MiB
// strings is refused by the compile-time memory charge at the line that
// made the one past the budget.
func TestCompileTimeMemory(t *testing.T) {
	src := []byte(`import pypto.language as pl

BIG = "x" * ((16 << 20) - 8)
KEEP = []
for i in range(5000):
    KEEP.append(BIG + str(i))
`)
	for _, mem := range []int64{64 << 20, 256 << 20} {
		res := engine.Load(context.Background(), "s.py", src, engine.Options{Budget: limits.Budget{Memory: mem}}).Check(context.Background(), engine.Options{Budget: limits.Budget{Memory: mem}})
		d := firstError(t, res.Diags)
		want := fmt.Sprintf("the limit is %s", limits.Bytes(mem))
		if d.Code != meta.CodeMemory || d.Span.Start.Line != 6 || !strings.Contains(d.Msg, want) {
			t.Errorf("memory %s: %s at line %d %q, want %s at line 6 saying %q", limits.Bytes(mem), d.Code, d.Span.Start.Line, d.Msg, meta.CodeMemory, want)
		}
	}
}

// cpuBound are programs whose module code, factory or annotation never
// ends, each with the entry that reaches it.
var cpuBound = []struct{ name, entry, src string }{
	{"module", "", `import pypto.language as pl

x = 0
while True:
    x = x + 1
`},
	{"factory", "build(4).host", `import pypto.language as pl


def build(n):
    total = 0
    for i in range(10 ** 15):
        total = total + i

    @pl.jit.host
    def host(x: pl.Tensor[[n, 64], pl.FP32]):
        pass

    return host
`},
	{"annotation", "host", `import pypto.language as pl


def spin():
    k = 0
    while k >= 0:
        k = k + 1
    return k


@pl.jit.host
def host(x: pl.Tensor[[4, spin()], pl.FP32]):
    pass
`},
}

// TestCPUBoundFrontEndTimesOut: with the step budget out of the way, the
// wall clock ends compile-time code that never finishes, in Check, IRText
// and Run alike, within the limit plus a second.
func TestCPUBoundFrontEndTimesOut(t *testing.T) {
	const limit = time.Second
	b := limits.Budget{Timeout: limit, Steps: 1 << 60}
	for _, tc := range cpuBound {
		opts := engine.Options{Entry: tc.entry, Budget: b}
		src := []byte(tc.src)
		within := func(what string, start time.Time) {
			if took := time.Since(start); took > limit+time.Second {
				t.Errorf("%s %s: ended after %v, want within %v", tc.name, what, took, limit+time.Second)
			}
		}
		start := time.Now()
		res := engine.Load(context.Background(), tc.name+".py", src, opts).Check(context.Background(), opts)
		within("Check", start)
		if d := firstError(t, res.Diags); d.Code != meta.CodeTimeout {
			t.Errorf("%s Check: %s %q, want %s", tc.name, d.Code, d.Msg, meta.CodeTimeout)
		}
		start = time.Now()
		_, diags, err := engine.IRText(context.Background(), tc.name+".py", src, opts, "")
		within("IRText", start)
		if err != nil || !diags.HasErrors() || firstError(t, diags).Code != meta.CodeTimeout {
			t.Errorf("%s IRText: err %v, diags %v, want %s", tc.name, err, diags, meta.CodeTimeout)
		}
		start = time.Now()
		run := engine.Load(context.Background(), tc.name+".py", src, opts).Run(context.Background(), engine.RunOptions{Options: opts})
		within("Run", start)
		if run.Status != emu.StatusTimeout {
			t.Errorf("%s Run: status %s %v, want timeout", tc.name, run.Status, run.Diags)
		}
	}
}

// TestCanceledFrontEnd: a caller that gives up stops module evaluation too.
func TestCanceledFrontEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	run := engine.Load(ctx, "m.py", []byte(cpuBound[0].src), engine.Options{Budget: limits.Budget{Steps: 1 << 60}}).Run(ctx, engine.RunOptions{Options: engine.Options{Budget: limits.Budget{Steps: 1 << 60}}})
	if run.Status != emu.StatusCanceled || time.Since(start) > time.Second {
		t.Errorf("status %s after %v, want canceled within a second", run.Status, time.Since(start))
	}
}

// TestStepBudgetShared: the step budget is the whole load's: a factory
// called to find the entries spends from what module code left, and a
// copy costs its size.
func TestStepBudgetShared(t *testing.T) {
	src := []byte(`import pypto.language as pl

for i in range(400):
    pass


def build(n):
    for i in range(400):
        pass

    @pl.jit.host
    def host(x: pl.Tensor[[n, 64], pl.FP32]):
        pass

    return host
`)
	// Either loop alone fits in 1000 steps (two a round); both together
	// do not.
	res := engine.Load(context.Background(), "b.py", src, engine.Options{Budget: limits.Budget{Steps: 1000}}).Check(context.Background(), engine.Options{Budget: limits.Budget{Steps: 1000}})
	if d := firstError(t, res.Diags); d.Code != meta.CodeBudget || d.Span.Start.Line != 8 {
		t.Errorf("got %s at line %d %q, want %s at the factory's loop, line 8", d.Code, d.Span.Start.Line, d.Msg, meta.CodeBudget)
	}
	copies := []byte("S = \"x\" * (8 << 20)\nT = S + S\n")
	res = engine.Load(context.Background(), "c.py", copies, engine.Options{Budget: limits.Budget{Steps: 4096}}).Check(context.Background(), engine.Options{Budget: limits.Budget{Steps: 4096}})
	if d := firstError(t, res.Diags); d.Code != meta.CodeBudget || d.Span.Start.Line != 2 {
		t.Errorf("16 MiB copy under 4096 steps: %s at line %d %q, want %s at line 2", d.Code, d.Span.Start.Line, d.Msg, meta.CodeBudget)
	}
}

// TestTraceEventsCharged: the events a caller keeps count against the
// memory budget; the run ends with E0516 rather than keep more.
func TestTraceEventsCharged(t *testing.T) {
	src := window(4, "SIZE * 4")
	full := 0
	engine.Load(context.Background(), "w.py", src, engine.Options{}).Run(context.Background(), engine.RunOptions{OnEvent: func(trace.Event) { full++ }})
	// The least budget the run fits in without events, found by bisection,
	// plus room for half of them.
	lo, hi := int64(1), int64(1<<20)
	for lo < hi {
		mid := (lo + hi) / 2
		r := engine.Load(context.Background(), "w.py", src, engine.Options{Budget: limits.Budget{Memory: mid}}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Budget: limits.Budget{Memory: mid}}})
		if r.Status == emu.StatusOK {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	mem := lo + int64(full*limits.EventBytes/2)
	kept := 0
	res := engine.Load(context.Background(), "w.py", src, engine.Options{Budget: limits.Budget{Memory: mem}}).Run(context.Background(), engine.RunOptions{
		Options: engine.Options{Budget: limits.Budget{Memory: mem}},
		OnEvent: func(trace.Event) { kept++ },
	})
	if res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0516" || !strings.Contains(res.Error.Message, "the trace wants more than") {
		t.Fatalf("status %s, error %+v, want E0516 for the trace", res.Status, res.Error)
	}
	if kept == 0 || kept >= full {
		t.Errorf("kept %d of %d events, want some but not all", kept, full)
	}
}

func firstError(t *testing.T, l diag.List) diag.Diagnostic {
	t.Helper()
	for _, d := range l {
		if d.Severity == diag.Error {
			return d
		}
	}
	t.Fatalf("no error among %v", l)
	return diag.Diagnostic{}
}

// TestDispatchLoopPinsRanks: a host whose dispatch loop has a constant
// bound runs at that many ranks when none is asked for, even where a host
// tensor's leading dimension counts something else (rounds.py: x is
// [ROUNDS=3, 2, 1, SIZE], dispatched `for r in pl.range(2)`).
func TestDispatchLoopPinsRanks(t *testing.T) {
	src, err := os.ReadFile("testdata/heads/rounds.py")
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), "rounds.py", src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Entry: "host_orch"}})
	if res.Status != emu.StatusOK || res.Ranks != 2 {
		t.Errorf("rounds.py without ranks: status %s at %d ranks (%v), want ok at 2", res.Status, res.Ranks, res.Diags)
	}
	if chk := engine.Load(context.Background(), "rounds.py", src, engine.Options{}).Check(context.Background(), engine.Options{}); len(chk.Diags) != 0 {
		t.Errorf("Check rounds.py without ranks: %v", chk.Diags)
	}
}

// TestNoDeviceDispatchPinsOneRank: a host with no device= dispatch at all
// (its work in pl.at scopes) runs on one chip when no rank count is asked
// for; the [16, 64] leading dimension of its tensors counts rows.
func TestNoDeviceDispatchPinsOneRank(t *testing.T) {
	src, err := os.ReadFile("check/testdata/ok/at_scopes.py")
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), "at_scopes.py", src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Entry: "Inline.host_orch"}})
	if res.Status != emu.StatusOK || res.Ranks != 1 {
		t.Errorf("at_scopes.py without ranks: status %s at %d ranks (%v), want ok at 1", res.Status, res.Ranks, res.Diags)
	}
}
