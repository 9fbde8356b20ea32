package emu_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// TestDeadlock: every rank waits for its left neighbour before notifying
// its right one. The run must stop at once with every rank named.
func TestDeadlock(t *testing.T) {
	const P = 4
	prog := compileFile(t, "testdata/faults.py", "ring_deadlock", P)
	start := time.Now()
	res := run(t, prog, nil)
	if took := time.Since(start); took > 200*time.Millisecond {
		t.Errorf("deadlock took %v to report", took)
	}
	if res.Status != emu.StatusDeadlock || res.Deadlock == nil {
		t.Fatalf("status %s, want deadlock (error %v)", res.Status, res.Error)
	}
	if len(res.Deadlock.Ranks) != P {
		t.Fatalf("%d blocked ranks, want %d: %+v", len(res.Deadlock.Ranks), P, res.Deadlock)
	}
	for r, b := range res.Deadlock.Ranks {
		left := (r + P - 1) % P
		want := emu.Blocked{Rank: r, Line: lineOf(t, "testdata/faults.py", "pld.system.wait(ready"), Cell: "ready[" + itoa(left) + ", 0]", Value: 0, Cmp: "Ge", Expected: 1, NotifiedBy: []int{}}
		if !reflect.DeepEqual(b, want) {
			t.Errorf("blocked rank %d: got %+v, want %+v", r, b, want)
		}
	}
	js, _ := json.Marshal(res)
	if !strings.Contains(string(js), `"notified_by":[]`) || !strings.Contains(string(js), `"status":"deadlock"`) {
		t.Errorf("JSON of the result: %s", js)
	}
	if res.Error == nil || res.Error.Code != "E0513" || !strings.Contains(res.Error.Message, fmt.Sprintf("rank 3 waits at line %d for ready[2, 0] >= 1 (it is 0)", res.Deadlock.Ranks[0].Line)) {
		t.Errorf("error %+v", res.Error)
	}
}

func itoa(i int) string { return fmt.Sprint(i) }

// lineOf returns the 1-based line of the first line of path containing sub.
func lineOf(t *testing.T, path, sub string) int {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, sub) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line containing %q", path, sub)
	return 0
}

// TestNotifiedBy: a deadlock report lists who notified the blocked cell.
func TestNotifiedBy(t *testing.T) {
	src := `
import pypto.language as pl
import pypto.language.distributed as pld

@pl.jit.incore
def greedy(tally: pld.DistributedTensor[[1, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(tally)
    me = pld.rank(ctx)
    pld.system.notify(tally, 0, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    if me == 0:
        pld.system.wait(tally, [0, 0], 5, cmp=pld.WaitCmp.Eq)

@pl.jit
def greedy_dev(tally: pld.DistributedTensor[[1, 1], pl.INT32]):
    greedy(tally)

@pl.jit.host
def host():
    buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        tally = pld.window(buf, [1, 1], dtype=pl.INT32)
        greedy_dev(tally, device=r)
`
	prog := compile(t, "greedy.py", src, "host", 3)
	res := run(t, prog, nil)
	if res.Status != emu.StatusDeadlock {
		t.Fatalf("status %s, want deadlock", res.Status)
	}
	want := []emu.Blocked{{Rank: 0, Line: 11, Cell: "tally[0, 0]", Value: 3, Cmp: "Eq", Expected: 5, NotifiedBy: []int{0, 1, 2}}}
	if !reflect.DeepEqual(res.Deadlock.Ranks, want) {
		t.Errorf("got %+v, want %+v", res.Deadlock.Ranks, want)
	}
}

// TestNegativePeer: (me - 1) % n is -1 at rank 0 (truncating %), and a peer
// outside [0, P) stops the run naming rank, line and value (ruling 14).
func TestNegativePeer(t *testing.T) {
	prog := compileFile(t, "testdata/faults.py", "negative_peer", 4)
	res := run(t, prog, nil)
	if res.Status != emu.StatusRuntimeError || res.Error == nil {
		t.Fatalf("status %s, want runtime_error", res.Status)
	}
	e := res.Error
	if e.Rank != 0 || e.Line != lineOf(t, "testdata/faults.py", "got = pld.tile.remote_load") || e.Code != "E0501" || !strings.Contains(e.Message, "peer -1 out of range [0, 4)") {
		t.Errorf("got %+v", e)
	}
	if want := fmt.Sprintf("rank 0, line %d: pld.tile.remote_load: peer -1 out of range [0, 4)", e.Line); e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	if !strings.Contains(e.Hint, "(my_rank - 1 + nranks) % nranks") {
		t.Errorf("hint %q does not show the fix", e.Hint)
	}
}

// TestStepBudget: a runaway loop ends with a run-time error, not a hang.
func TestStepBudget(t *testing.T) {
	prog := compileFile(t, "testdata/faults.py", "runaway", 4)
	res := emu.Run(context.Background(), prog, emu.Options{MaxSteps: 200_000})
	if res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0504" {
		t.Fatalf("status %s, error %+v: want the step budget", res.Status, res.Error)
	}
	if res.Error.Line != lineOf(t, "testdata/faults.py", "count = count + 1") || res.Error.Rank != 0 || !strings.Contains(res.Error.Message, "200000") {
		t.Errorf("error %+v", res.Error)
	}
	if res.Stats.Steps != 200_001 {
		t.Errorf("%d steps counted, want 200001", res.Stats.Steps)
	}
}

// TestStepBudgetEveryStatement stops a barrier at P = 2 after every
// statement in turn: each budget ends the run at the next statement
// (rank, line:col) at that simulated time, whichever statements the
// interpreter runs together (a comparison and the if on it, compareIf).
func TestStepBudgetEveryStatement(t *testing.T) {
	prog := compileFile(t, "testdata/bench.py", "build_bench_barrier(2).barrier_host", 2)
	// Statement b+1 of the run, for b = 1, 2, ...: rank:line:col ns.
	want := strings.Fields(`-1:114:31@0 -1:114:13@1 -1:115:25@1 -1:116:17@2
		-1:114:13@2 -1:115:25@2 -1:116:17@3 0:109:13@3 0:98:19@4 0:99:18@5
		0:100:13@5 0:101:20@6 0:101:20@7 0:100:13@7 0:101:20@7 0:101:20@8
		0:102:21@8 1:109:13@8 1:98:19@8 1:99:18@8 1:100:13@8 1:101:20@8
		1:101:20@8 1:102:21@8 1:100:13@28 1:101:20@28 1:101:20@28 1:103:13@29
		1:104:20@29 1:104:20@30 1:105:21@30 0:103:13@30 0:104:20@30 0:104:20@30
		0:103:13@30 0:104:20@30 0:104:20@31 0:105:21@31 1:103:13@529
		1:104:20@529 1:104:20@529`)
	for b := int64(1); b <= int64(len(want))+1; b++ {
		res := emu.Run(context.Background(), prog, emu.Options{MaxSteps: b})
		if b > int64(len(want)) {
			if res.Status != emu.StatusOK || res.Stats.Steps != b {
				t.Errorf("budget %d: status %s after %d steps, want ok after %d", b, res.Status, res.Stats.Steps, b)
			}
			continue
		}
		got := ""
		if e := res.Error; e != nil && e.Code == "E0504" {
			got = fmt.Sprintf("%d:%d:%d@%d", e.Rank, e.Line, e.Col, res.Stats.SimTimeNs)
		}
		if got != want[b-1] || res.Stats.Steps != b+1 {
			t.Errorf("budget %d: stopped at %q after %d steps, want %s after %d", b, got, res.Stats.Steps, want[b-1], b+1)
		}
	}
}

// TestDefaultBudget: the default budget stops the same loop by itself.
func TestDefaultBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 50 million statements")
	}
	prog := compileFile(t, "testdata/faults.py", "runaway", 2)
	start := time.Now()
	res := emu.Run(context.Background(), prog, emu.Options{})
	if res.Status != emu.StatusRuntimeError || res.Error.Code != "E0504" {
		t.Fatalf("status %s, error %+v", res.Status, res.Error)
	}
	t.Logf("%d statements in %v (%.1f ns each)", res.Stats.Steps, time.Since(start), float64(time.Since(start).Nanoseconds())/float64(res.Stats.Steps))
}

// TestOutOfBounds: a run-time offset past the end of a tensor.
func TestOutOfBounds(t *testing.T) {
	prog := compileFile(t, "testdata/faults.py", "out_of_bounds", 4)
	res := run(t, prog, fill(prog, "index", 1))
	if res.Status != emu.StatusRuntimeError || res.Error == nil {
		t.Fatalf("status %s, want runtime_error", res.Status)
	}
	e := res.Error
	if e.Rank != 1 || e.Line != lineOf(t, "testdata/faults.py", "t = pl.load(x, [0, start]") || e.Code != "E0502" || !strings.Contains(e.Message, "pl.load reads [0:1, 1:9] of x[1] [1, 8] FP32") {
		t.Errorf("got %+v", e)
	}
}

// TestDivideByZero: an integer // by a run-time zero names the values.
func TestDivideByZero(t *testing.T) {
	prog := compileFile(t, "testdata/faults.py", "divide_by_zero", 4)
	res := run(t, prog, nil)
	if res.Status != emu.StatusRuntimeError || res.Error == nil {
		t.Fatalf("status %s, want runtime_error", res.Status)
	}
	e := res.Error
	if e.Rank != 0 || e.Line != lineOf(t, "testdata/faults.py", "share = 64 // parts") || e.Code != "E0507" || e.Message != "64 // 0: integer division by zero" {
		t.Errorf("got %+v", e)
	}
}

// TestCancel: canceling the context stops a runaway run within
// milliseconds.
func TestCancel(t *testing.T) {
	prog := compileFile(t, "testdata/faults.py", "runaway", 2)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	res := emu.Run(ctx, prog, emu.Options{MaxSteps: 1 << 62})
	took := time.Since(start)
	if res.Status != emu.StatusCanceled || res.Error == nil || res.Error.Code != "E0506" {
		t.Fatalf("status %s, error %+v: want canceled", res.Status, res.Error)
	}
	if took > 300*time.Millisecond {
		t.Errorf("cancel took effect after %v", took)
	}
}

// TestTimeout: the wall-clock limit ends a run with status timeout.
func TestTimeout(t *testing.T) {
	prog := compileFile(t, "testdata/faults.py", "runaway", 2)
	start := time.Now()
	res := emu.Run(context.Background(), prog, emu.Options{MaxSteps: 1 << 62, Timeout: 30 * time.Millisecond})
	if res.Status != emu.StatusTimeout || res.Error == nil || res.Error.Code != "E0505" || res.Error.Line < lineOf(t, "testdata/faults.py", "for i in pl.range(1000000000)") {
		t.Fatalf("status %s, error %+v: want timeout in the loop", res.Status, res.Error)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("timeout of 30ms took %v", took)
	}
}

// traceOf runs prog and returns the JSON of its result, its trace as JSON
// lines and its outputs.
func traceOf(t *testing.T, prog *ir.Program, in map[string]*emu.Tensor) (string, string, map[string]*emu.Tensor) {
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, OnEvent: w.Sink()})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(js), buf.String(), res.Outputs
}

// TestDeterminism: two runs give identical results, outputs and traces,
// byte for byte.
func TestDeterminism(t *testing.T) {
	progs := []*struct {
		path, entry string
		P           int
	}{
		{"testdata/rma.py", "rma_host", 4},
		{"../testdata/programs/10_allreduce_ring.py", "build_ring_allreduce(8).ring_sum", 8},
		{"testdata/faults.py", "ring_deadlock", 4},
	}
	for _, p := range progs {
		prog := compileFile(t, p.path, p.entry, p.P)
		in := fill(prog, "randn", 3)
		j1, t1, o1 := traceOf(t, prog, in)
		j2, t2, o2 := traceOf(t, prog, in)
		if j1 != j2 {
			t.Errorf("%s: results differ:\n%s\n%s", p.entry, j1, j2)
		}
		if t1 != t2 || len(t1) == 0 {
			t.Errorf("%s: traces differ (or are empty): %d and %d bytes", p.entry, len(t1), len(t2))
		}
		if !reflect.DeepEqual(o1, o2) {
			t.Errorf("%s: outputs differ", p.entry)
		}
		events, err := trace.Read(strings.NewReader(t1))
		if err != nil {
			t.Fatal(err)
		}
		checkTrace(t, p.entry, events)
	}
}

// checkTrace checks the invariants of a trace: per-rank sequence numbers
// count from 0, time never runs backwards within an event, every wait's
// releasing notify exists, wrote that cell and does not end after it.
func checkTrace(t *testing.T, what string, events []trace.Event) {
	next := map[int]int64{}
	byRef := map[trace.Ref]trace.Event{}
	for _, e := range events {
		if e.Seq != next[e.Rank] {
			t.Errorf("%s: rank %d event %d has seq %d", what, e.Rank, next[e.Rank], e.Seq)
		}
		next[e.Rank]++
		if e.EndNs < e.StartNs {
			t.Errorf("%s: event %+v ends before it starts", what, e)
		}
		byRef[trace.Ref{Rank: e.Rank, Seq: e.Seq}] = e
		if e.Op == "pld.system.wait" && e.ReleasedBy != nil {
			n, ok := byRef[*e.ReleasedBy]
			if !ok || n.Op != "pld.system.notify" || n.Cell != e.Cell || *n.Peer != e.Rank {
				t.Errorf("%s: wait %+v released by %+v", what, e, n)
			}
		}
	}
}

// TestNoGoroutineLeak: nothing Run starts outlives it, whatever the
// outcome.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	ring := compileFile(t, "../testdata/programs/10_allreduce_ring.py", "build_ring_allreduce(4).ring_sum", 4)
	spin := compileFile(t, "testdata/faults.py", "runaway", 2)
	stuck := compileFile(t, "testdata/faults.py", "ring_deadlock", 4)
	for i := 0; i < 5; i++ {
		run(t, ring, fill(ring, "index", 0))
		run(t, stuck, nil)
		emu.Run(context.Background(), spin, emu.Options{MaxSteps: 1000})
		emu.Run(context.Background(), spin, emu.Options{MaxSteps: 1 << 62, Timeout: time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		emu.Run(ctx, spin, emu.Options{MaxSteps: 1 << 62})
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// TestPanicIsRuntimeError: a malformed program that trips the interpreter
// gives a runtime_error, not a crash.
func TestPanicIsRuntimeError(t *testing.T) {
	host := &ir.Func{Name: "broken", Level: ir.Host, Body: &ir.Block{}}
	host.Body.Add(&ir.Op{Name: "pl.add", Site: ir.Site{Span: ir.Span{Line: 3}}})
	prog := &ir.Program{Name: "broken", Ranks: 2, Platform: "910B", Funcs: []*ir.Func{host}, Entry: host}
	res := emu.Run(context.Background(), prog, emu.Options{})
	if res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0599" || !strings.Contains(res.Error.Message, "internal error") {
		t.Fatalf("status %s, error %+v", res.Status, res.Error)
	}
}

// TestInputErrors: missing and mismatched inputs are reported before the
// run starts.
func TestInputErrors(t *testing.T) {
	prog := compileFile(t, "../testdata/programs/07_dynamic_rank_count.py", "pull_next", 3)
	cases := []struct {
		in   map[string]*emu.Tensor
		want string
	}{
		{nil, "missing input tensor x"},
		{map[string]*emu.Tensor{"x": emu.Zeros(ir.FP16, 3, 1, 64)}, "input x is FP16, want FP32"},
		{map[string]*emu.Tensor{"x": emu.Zeros(ir.FP32, 3, 2, 64)}, "input x has shape [3, 2, 64], want [3, 1, 64]"},
	}
	for _, c := range cases {
		res := run(t, prog, c.in)
		if res.Status != emu.StatusRuntimeError || res.Error == nil || !strings.Contains(res.Error.Message, c.want) {
			t.Errorf("got %s %+v, want an error containing %q", res.Status, res.Error, c.want)
		}
	}
	// NR comes from the input: the same program runs at 3 ranks with a
	// leading dimension of 3, and its output has that shape.
	res := run(t, prog, map[string]*emu.Tensor{"x": emu.Iota(ir.FP32, 3, 1, 64)})
	mustOK(t, "pull_next", res)
	if got := res.Outputs["y"].Shape; !reflect.DeepEqual(got, []int{3, 1, 64}) {
		t.Errorf("y has shape %v", got)
	}
}

// TestConcurrentRuns: Run does not modify the program, nor Compiled.Run
// the compiled one, so a server may run one program for several clients
// at once (go test -race checks it), each run as it goes alone.
func TestConcurrentRuns(t *testing.T) {
	prog := compileFile(t, "testdata/rma.py", "rma_host", 4)
	in := fill(prog, "randn", 2)
	want, wantTrace, _ := traceOf(t, prog, in)
	cp := emu.Compile(prog)
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			w := trace.NewWriter(&buf)
			res := cp.Run(context.Background(), emu.Options{Inputs: in, OnEvent: w.Sink()})
			w.Flush()
			js, _ := json.Marshal(res)
			if string(js) != want || buf.String() != wantTrace {
				errs <- string(js)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a concurrent run differs: %s", e)
	}
}
