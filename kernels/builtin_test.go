package kernels_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/compare"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/lower"
	"pldworkbench/engine/trace"
	"pldworkbench/kernels"
	"pldworkbench/tutorials/check"
)

// builtinsUsed lists, per kernel entry, the builtin collectives its checked
// (not yet lowered) program calls, as "level op" in function and statement
// order. An entry missing here must call none: the hand-rolled kernels stay
// hand-rolled, and every builtin variant really uses its builtin, at the
// level it claims.
var builtinsUsed = map[string][]string{
	"04_barrier_builtin/barrier_then_read":                                       {"incore pld.tensor.barrier"},
	"05_remote_load_store_builtin/shift_by_load":                                 {"incore pld.tensor.barrier"},
	"05_remote_load_store_builtin/shift_by_store":                                {"incore pld.tensor.barrier"},
	"12_broadcast_builtin/broadcast_builtin":                                     {"incore pld.tensor.broadcast"},
	"13_allgather_builtin/build_allgather({P}).allgather_builtin":                {"incore pld.tensor.allgather"},
	"14_reduce_scatter_builtin/build_reduce_scatter({P}).reduce_scatter_builtin": {"incore pld.tensor.reduce_scatter"},
	"15_all_to_all_builtin/build_all_to_all({P}).all_to_all_builtin":             {"incore pld.tensor.all_to_all"},
	`11_allreduce_reveal/build_allreduce_reveal({P}, "mesh", "sum").allreduce`:   {"incore pld.tensor.allreduce"},
	`11_allreduce_reveal/build_allreduce_reveal({P}, "ring", "sum").allreduce`:   {"incore pld.tensor.allreduce"},
	`11_allreduce_reveal/build_allreduce_reveal({P}, "mesh", "max").allreduce`:   {"incore pld.tensor.allreduce"},
	`11_allreduce_reveal/build_allreduce_reveal({P}, "ring", "min").allreduce`:   {"incore pld.tensor.allreduce"},
	"16_putting_it_together/build_pipeline({P}).pipeline": {
		"incore pld.tensor.broadcast", "incore pld.tensor.allreduce", "incore pld.tensor.allgather"},
	"17_many_cores/build_many_cores({P}).with_lanes":     {"host pld.tensor.allreduce"},
	"18_three_ways/build_three_ways({P}).incore_builtin": {"incore pld.tensor.allreduce"},
	"18_three_ways/build_three_ways({P}).host_builtin":   {"host pld.tensor.allreduce"},
	"20_signal_reuse/build_signal_reuse({P}).twice_in_kernel": {
		"incore pld.tensor.allreduce", "incore pld.tensor.allreduce"},
	`20_signal_reuse/build_signal_reuse({P}, "ring").twice_in_kernel`: {
		"incore pld.tensor.allreduce", "incore pld.tensor.allreduce"},
	"20_signal_reuse/build_signal_reuse({P}).twice_on_host": {"host pld.tensor.barrier", "host pld.tensor.barrier"},

	`19_mesh_or_ring/build_allreduce({P}, 1024, "mesh").run`: {"incore pld.tensor.allreduce"},
	`19_mesh_or_ring/build_allreduce({P}, 1024, "ring").run`: {"incore pld.tensor.allreduce"},
}

// collectiveCalls lists the builtin collectives of prog as "level op",
// with the source line of each call. What counts as a collective is
// lower.Collectives's business, asked one function at a time.
func collectiveCalls(prog *ir.Program) (calls []string, lines []int) {
	for _, f := range prog.Funcs {
		for _, op := range lower.Collectives(&ir.Program{Funcs: []*ir.Func{f}}) {
			calls = append(calls, f.Level.String()+" "+op.Name)
			lines = append(lines, op.Span.Line)
		}
	}
	return calls, lines
}

// TestLowering: every kernel entry lowers at every rank count it lists; no
// collective is left; the checked program called exactly the builtins
// builtinsUsed names; and each of those calls left lowered statements that
// name it, at its line, as their origin (what `workbench ir` prints as
// "# from pld.tensor.X (line N)").
func TestLowering(t *testing.T) {
	keys := map[string]bool{}
	for _, in := range instances() {
		keys[in.key()] = true
		prog := compile(t, in)
		calls, lines := collectiveCalls(prog)
		if want := builtinsUsed[in.key()]; !slices.Equal(calls, want) {
			t.Errorf("%s: the checked program calls %q, want %q", in, calls, want)
		}
		low := lowered(t, prog)
		if err := ir.Verify(low); err != nil {
			t.Errorf("%s: the lowered program does not verify: %v", in, err)
		}
		origins := map[string]int{}
		for _, f := range low.Funcs {
			ir.Walk(f.Body, func(s ir.Stmt) bool {
				if o := s.Origin(); o != nil {
					origins[fmt.Sprintf("%s@%d", o.Op, o.Span.Line)]++
				}
				return true
			})
		}
		for i, c := range calls {
			key := fmt.Sprintf("%s@%d", strings.Fields(c)[1], lines[i])
			if origins[key] == 0 {
				t.Errorf("%s: no lowered statement names %s as its origin; origins: %v", in, key, origins)
			}
		}
	}
	for k := range builtinsUsed {
		if !keys[k] {
			t.Errorf("builtinsUsed names %s, which is no kernel entry", k)
		}
	}
}

// noGrids is the reason a multi-core test skips.
const noGrids = "the emulator does not run block grids yet: a kernel launched with ir.Call.Blocks > 1 " +
	"(the HOST allreduce with core_num > 1) runs as block 0 only, so its result cannot be checked; " +
	"this test turns itself on when emu launches every block"

var gridProbe struct {
	once sync.Once
	ok   bool
}

// emuRunsGrids reports whether the emulator launches a kernel called with
// ir.Call.Blocks = 4 as four blocks: on one rank, each block writes its
// pl.get_block_idx() + 1 into its own cell of the output, which must read
// 1, 2, 3, 4. The answer is computed once.
func emuRunsGrids(t testing.TB) bool {
	gridProbe.once.Do(func() {
		idx := &ir.Scalar{DType: ir.INDEX}
		cells := &ir.Tensor{Shape: ir.ConstShape(1, 4), DType: ir.INDEX}
		ky, b, b1 := &ir.Var{Name: "cells", Type: cells}, &ir.Var{Name: "b", Type: idx}, &ir.Var{Name: "b1", Type: idx}
		kernel := &ir.Func{Name: "stamp", Level: ir.InCore, Params: []*ir.Param{{Var: ky, Dir: ir.Out}}, Body: &ir.Block{Stmts: []ir.Stmt{
			&ir.Op{Name: ir.BlockIdxOp, Result: b},
			&ir.Bin{Op: ir.Add, X: b, Y: ir.IntConst(1, ir.INDEX), Result: b1},
			&ir.Op{Name: "pl.write", Args: []ir.Operand{ky, &ir.ListOp{Elems: []ir.Operand{ir.IntConst(0, ir.INDEX), b}}, b1}},
		}}}
		wy := &ir.Var{Name: "cells", Type: cells}
		wrapper := &ir.Func{Name: "stamp_grid", Level: ir.Orchestration, Params: []*ir.Param{{Var: wy, Dir: ir.Out}}, Body: &ir.Block{Stmts: []ir.Stmt{
			&ir.Call{Callee: kernel, Args: []ir.Operand{wy}, Blocks: 4},
		}}}
		hy := &ir.Var{Name: "cells", Type: &ir.Tensor{Shape: ir.ConstShape(1, 1, 4), DType: ir.INDEX}}
		r, slice := &ir.Var{Name: "r", Type: idx}, &ir.Var{Name: "%0", Type: cells, Temp: true}
		entry := &ir.Func{Name: "grid_probe", Level: ir.Host, Params: []*ir.Param{{Var: hy, Dir: ir.Out}}, Body: &ir.Block{Stmts: []ir.Stmt{
			&ir.For{Var: r, Start: ir.IntConst(0, ir.INDEX), Stop: ir.IntConst(1, ir.INDEX), Step: ir.IntConst(1, ir.INDEX), Body: &ir.Block{Stmts: []ir.Stmt{
				&ir.Index{X: hy, Index: r, Result: slice},
				&ir.Call{Callee: wrapper, Args: []ir.Operand{slice}, Device: r},
			}}},
		}}}
		prog := &ir.Program{Name: "grid_probe", Ranks: 1, Platform: "910B", Funcs: []*ir.Func{entry, wrapper, kernel}, Entry: entry}
		if err := ir.Verify(prog); err != nil {
			t.Fatalf("the grid probe does not verify: %v", err)
		}
		res := emu.Run(context.Background(), prog, emu.Options{})
		gridProbe.ok = res.Status == emu.StatusOK && slices.Equal(res.Outputs["cells"].Floats(), []float64{1, 2, 3, 4})
	})
	return gridProbe.ok
}

// launchesGrid reports whether p launches any kernel as a block grid.
func launchesGrid(p *ir.Program) bool {
	grid := false
	for _, f := range p.Funcs {
		ir.Walk(f.Body, func(s ir.Stmt) bool {
			if c, ok := s.(*ir.Call); ok && c.Blocks > 1 {
				grid = true
			}
			return true
		})
	}
	return grid
}

// tile is one 256-element tile of the HOST allreduce: its first element
// and its length.
type tile struct{ base, n int }

// blockTiles is the block-cyclic split of n elements over cores blocks,
// computed here from pld-spec §4.8.3 and nothing else: block b takes the
// 256-element tiles b, b + cores, b + 2*cores, ...; the last tile may be
// short.
func blockTiles(n, cores int) [][]tile {
	const width = 256
	out := make([][]tile, cores)
	for b := range cores {
		for base := b * width; base < n; base += cores * width {
			out[b] = append(out[b], tile{base, min(width, n-base)})
		}
	}
	return out
}

var cellRE = regexp.MustCompile(`\[(\d+), (\d+)\]$`)

// TestManyCores checks step 17 beyond its golden: the lowered host
// orchestrator launches the all-reduce as a grid of core_num blocks (3 on
// the explicit [P, 4] signal, 4 on the signal the compiler synthesizes,
// which must be [P, 4]), and the trace shows the block-cyclic split: every
// block of every rank reads from each peer exactly the tiles blockTiles
// gives it, and signals only on its own lane (column b of the signal).
func TestManyCores(t *testing.T) {
	k, ok := kernels.Get("17_many_cores")
	if !ok {
		t.Fatal("no kernel 17_many_cores")
	}
	const n = 1152
	for _, c := range []struct {
		entry string
		cores int
	}{{"build_many_cores({P}).with_lanes", 3}} {
		for _, p := range k.Ranks {
			in := instance{k, c.entry, p}
			t.Run(in.String(), func(t *testing.T) {
				prog := compile(t, in)
				low := lowered(t, prog)
				var grids []int
				var synth []string
				for _, f := range low.Funcs {
					ir.Walk(f.Body, func(s ir.Stmt) bool {
						switch s := s.(type) {
						case *ir.Call:
							if s.Blocks > 1 {
								grids = append(grids, s.Blocks)
							}
						case *ir.Op:
							if s.Name == "pld.window" && s.From != nil && s.From.Op == "pld.tensor.allreduce" {
								synth = append(synth, s.Result.Type.String())
							}
						}
						return true
					})
				}
				if !slices.Equal(grids, []int{c.cores}) {
					t.Fatalf("lowered program launches grids %v, want one of %d blocks", grids, c.cores)
				}
				// The explicit lane signal is the call's own: the
				// lowering synthesizes none.
				if len(synth) != 0 {
					t.Fatalf("synthesized signal windows %q, want none", synth)
				}
				if !emuRunsGrids(t) {
					t.Skip(noGrids)
				}
				params := hostParams(t, prog, p)
				inputs := makeInputs(in, params)
				var events trace.Collector
				res := runProgram(t, prog, inputs, emu.Options{OnEvent: events.Sink()})
				if res.Status != emu.StatusOK {
					t.Fatalf("%s", describe(res))
				}
				if err := compareOutputs(params, inputs, res.Outputs, check.AllreduceSum(p, inputs), false); err != nil {
					t.Fatal(err)
				}
				checkTileSplit(t, events.Events, p, blockTiles(n, c.cores))
			})
		}
	}
}

// checkTileSplit compares the remote reads and the signal lanes of the
// all-reduce grid in events with the split want (per block).
func checkTileSplit(t *testing.T, events []trace.Event, p int, want [][]tile) {
	t.Helper()
	got := map[[2]int][]int{} // (rank, block) -> bytes of each remote_load
	for _, e := range events {
		if e.Rank < 0 {
			continue
		}
		switch e.Op {
		case "pld.tile.remote_load":
			got[[2]int{e.Rank, e.Block}] = append(got[[2]int{e.Rank, e.Block}], int(e.Bytes))
		case "pld.system.notify", "pld.system.wait":
			m := cellRE.FindStringSubmatch(e.Cell)
			if m == nil {
				t.Fatalf("rank %d block %d: %s on cell %q, want a [row, lane] cell", e.Rank, e.Block, e.Op, e.Cell)
			}
			if lane, _ := strconv.Atoi(m[2]); lane != e.Block {
				t.Errorf("rank %d block %d: %s on %s, want lane %d", e.Rank, e.Block, e.Op, e.Cell, e.Block)
			}
		}
	}
	for r := range p {
		for b, tiles := range want {
			var bytes []int
			for _, tl := range tiles {
				for range p - 1 {
					bytes = append(bytes, tl.n*4)
				}
			}
			have := got[[2]int{r, b}]
			sort.Ints(have)
			sort.Ints(bytes)
			if !slices.Equal(have, bytes) {
				t.Errorf("rank %d block %d read %v bytes per remote_load, want %v (tiles %v from %d peers)", r, b, have, bytes, tiles, p-1)
			}
			delete(got, [2]int{r, b})
		}
	}
	for rb, bytes := range got {
		t.Errorf("rank %d block %d read %v, but the split gives that block nothing", rb[0], rb[1], bytes)
	}
}

// comparePairs are the hand-rolled kernels and their builtin counterparts:
// same host signature, same job. builtin names the collective whose origin
// the lowered diff must show.
var comparePairs = []struct {
	fileA, entryA, fileB, entryB, builtin string
}{
	{"12_broadcast_hand", "broadcast_hand", "12_broadcast_builtin", "broadcast_builtin", "broadcast"},
	{"05_remote_load_store", "shift_by_load", "05_remote_load_store_builtin", "shift_by_load", "barrier"},
	{"05_remote_load_store", "shift_by_store", "05_remote_load_store_builtin", "shift_by_store", "barrier"},
	{"13_allgather_hand", "allgather_hand", "13_allgather_builtin", "build_allgather({P}).allgather_builtin", "allgather"},
	{"14_reduce_scatter_hand", "reduce_scatter_pull", "14_reduce_scatter_builtin", "build_reduce_scatter({P}).reduce_scatter_builtin", "reduce_scatter"},
	{"15_all_to_all_hand", "all_to_all_push", "15_all_to_all_builtin", "build_all_to_all({P}).all_to_all_builtin", "all_to_all"},
	{"08_allreduce_mesh", "mesh_allreduce", "11_allreduce_reveal", `build_allreduce_reveal({P}, "mesh", "sum").allreduce`, "allreduce"},
	{"10_allreduce_ring", "build_ring_allreduce({P}).ring_allreduce", "11_allreduce_reveal", `build_allreduce_reveal({P}, "ring", "sum").allreduce`, "allreduce"},
	{"18_three_ways", "build_three_ways({P}).hand_rolled", "18_three_ways", "build_three_ways({P}).incore_builtin", "allreduce"},
	{"18_three_ways", "build_three_ways({P}).hand_rolled", "18_three_ways", "build_three_ways({P}).host_builtin", "allreduce"},
}

// TestCompareHandAndBuiltin runs each pair through compare.Programs (what
// `workbench compare` prints) on the same random inputs at P = 4 and 2: the
// verdict must be "equal", and the diff of the lowered kernels must show
// the builtin's lowered statements against the hand-rolled code.
func TestCompareHandAndBuiltin(t *testing.T) {
	for _, c := range comparePairs {
		a, okA := kernels.Get(c.fileA)
		b, okB := kernels.Get(c.fileB)
		if !okA || !okB {
			t.Fatalf("missing kernel %s or %s", c.fileA, c.fileB)
		}
		for _, p := range []int{4, 2} {
			ea, eb := strings.ReplaceAll(c.entryA, "{P}", strconv.Itoa(p)), strings.ReplaceAll(c.entryB, "{P}", strconv.Itoa(p))
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			opts := engine.Options{Ranks: p}
			compile := func(name string, src []byte, entry string) *engine.Program {
				m := engine.Load(ctx, name, src, opts)
				prog, _ := m.Compile(ctx, entry, opts)
				return prog
			}
			cr := compare.Programs(ctx, compile(a.File, a.Source, ea), compile(b.File, b.Source, eb),
				compare.Options{RunOptions: engine.RunOptions{Options: opts, Fill: emu.FillRandn, Seed: 11}})
			cancel()
			what := fmt.Sprintf("%s --entry %s vs %s --entry %s at P=%d", a.File, ea, b.File, eb, p)
			if cr.A.Status != emu.StatusOK || cr.B.Status != emu.StatusOK {
				t.Errorf("%s: statuses %s, %s (%v, %v)", what, cr.A.Status, cr.B.Status, cr.A.Error, cr.B.Error)
				continue
			}
			if cr.Verdict != "equal" || len(cr.Outputs) == 0 {
				t.Errorf("%s: verdict %q, outputs %+v", what, cr.Verdict, cr.Outputs)
			}
			from := "# from pld.tensor." + c.builtin
			if !strings.Contains(cr.KernelDiff, "\n+") || !strings.Contains(cr.KernelDiff, "\n-") || !strings.Contains(cr.KernelDiff, from) {
				t.Errorf("%s: the lowered-kernel diff lacks removed lines, added lines or %q:\n%s", what, from, cr.KernelDiff)
			}
		}
	}
}
