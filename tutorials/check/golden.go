package check

import (
	"math"
	"slices"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/kernels"
)

// Golden is what a kernel entry's outputs must be, computed in plain Go
// from the run's inputs, independently of the engine: none of these
// functions looks at the IR or at the emulator's outputs.
type Golden struct {
	// Exact says the outputs are copies (or integers) and must match bit
	// for bit; otherwise floats compare with the torch.allclose tolerance
	// the upstream harnesses use, |got - want| <= 1e-5 + 1e-5*|want|.
	Exact bool
	// Want returns the expected value of every pl.Out host tensor, by
	// parameter name, at p ranks.
	Want func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor
}

// The root of both broadcasts (ROOT in 12_broadcast_hand.py and
// 12_broadcast_builtin.py) and of step 16's (ROOT in
// 16_putting_it_together.py).
const (
	broadcastRoot = 1
	pipelineRoot  = 1
)

// GoldenOf returns the golden of one entry of a kernel, the entry as
// written in its header ("{P}" unexpanded). A bug variant (NN_..._bug)
// takes, by naming rule, the golden of the entry of the same name in its
// step's solution or builtin kernels: the bug computes what the solution
// computes, but for its mistake. goldens lists a bug only where its entry
// is its own (TestBugGoldensByRule keeps it so).
func GoldenOf(kernel, entry string) (Golden, bool) {
	key, ok := goldenKey(kernel, entry)
	return goldens[key], ok
}

// goldenKey is the key of goldens (and of goldensPy) that holds the golden
// of kernel's entry: its own, or for a bug variant without one its step's
// solution's or builtin's of the same entry.
func goldenKey(kernel, entry string) (string, bool) {
	if key := kernel + "/" + entry; goldens[key].Want != nil {
		return key, true
	}
	return solutionGolden(kernel, entry)
}

// solutionGolden is the naming rule of GoldenOf.
func solutionGolden(kernel, entry string) (string, bool) {
	k, ok := kernels.Get(kernel)
	if !ok || !k.IsBug() {
		return "", false
	}
	s, _ := StepOf(k.Step())
	for _, name := range slices.Concat(s.Solution, s.Builtin) {
		if key := name + "/" + entry; goldens[key].Want != nil {
			return key, true
		}
	}
	return "", false
}

// Goldens returns every golden, keyed by "kernel name/entry as written in
// its header": the table's and the bug variants' by the naming rule.
func Goldens() map[string]Golden {
	out := make(map[string]Golden, len(goldens))
	for k, g := range goldens {
		out[k] = g
	}
	for _, k := range kernels.Bugs() {
		for _, e := range k.Entries {
			if g, ok := GoldenOf(k.Name, e); ok {
				out[k.Name+"/"+e] = g
			}
		}
	}
	return out
}

// goldens maps "kernel name/entry as written in its header" to the golden
// of that entry. TestRun fails for an entry missing here, so a new kernel
// cannot slip in untested.
var goldens = map[string]Golden{
	"01_hello_rank/hello_rank": {Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", mapRows(in["x"], func(r int, row []float64) []float64 {
			return each(row, func(v float64) float64 { return v + float64(r) })
		}))
	}},
	"02_three_levels/three_levels": {Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", mapRows(in["x"], func(r int, row []float64) []float64 {
			return each(row, func(v float64) float64 { return v * float64(r+1) })
		}))
	}},
	"03_window_roundtrip/window_roundtrip": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", in["x"].Clone())
	}},
	"04_barrier_hand/barrier_tally": {Exact: true, Want: func(p int, _ map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("tally", barrierTally(p))
	}},
	"05_remote_load_store/shift_by_load": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(r int) int { return (r + 1) % p }))
	}},
	"05_remote_load_store/shift_by_store": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(r int) int { return (r + 1) % p }))
	}},
	"06_put_get/pass_by_put": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(r int) int { return (r - 1 + p) % p }))
	}},
	"06_put_get/pass_by_get": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(r int) int { return (r - 1 + p) % p }))
	}},
	"07_dynamic_rank_count/across_by_put": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(r int) int { return (r - p/2 + p) % p }))
	}},
	"07_dynamic_rank_count/across_by_get": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(r int) int { return (r + p/2) % p }))
	}},
	"08_allreduce_mesh/mesh_allreduce":                                {Want: AllreduceSum},
	"09_allreduce_two_phase/build_two_phase_allreduce({P}).two_phase": {Want: AllreduceSum},
	"10_allreduce_ring/build_ring_allreduce({P}).ring_allreduce":      {Want: AllreduceSum},
	"12_broadcast_hand/broadcast_hand": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(int) int { return broadcastRoot }))
	}},
	"13_allgather_hand/allgather_hand": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", allgather(in["x"]))
	}},
	"14_reduce_scatter_hand/reduce_scatter_pull": {Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", reduceScatter(in["x"]))
	}},
	"14_reduce_scatter_hand/reduce_scatter_push": {Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", reduceScatter(in["x"]))
	}},
	"15_all_to_all_hand/all_to_all_push": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", transpose01(in["x"]))
	}},
	"15_all_to_all_hand/all_to_all_pull": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", transpose01(in["x"]))
	}},

	// The bug variants whose entry is their own: what each was meant to
	// compute, which its bug prevents. The others take their solution's
	// golden by GoldenOf's naming rule.
	"03_window_roundtrip_bug/peek_right": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(r int) int { return (r + 1) % p }))
	}},
	"04_barrier_bug/barrier_twice": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		right := func(r int) int { return (r + 1) % p }
		return map[string]*emu.Tensor{"first": fromRank(in["x"], right), "second": fromRank(in["z"], right)}
	}},
	"11_allreduce_reveal_bug/build_ring_reveal({P}).allreduce": {Want: AllreduceSum},
	"15_all_to_all_bug/all_to_all_aliased": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", transpose01(in["x"]))
	}},
	"18_three_ways_bug/build_host_allreduce({P}).host_builtin": {Want: AllreduceSum},

	// The lab's three programs repaired: the goldens of the files they fix.
	"20_debugging_lab/count_with_set": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		right := func(r int) int { return (r + 1) % p }
		return map[string]*emu.Tensor{"first": fromRank(in["x"], right), "second": fromRank(in["z"], right)}
	}},
	"20_debugging_lab/reduce_twice": {Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		want := reusedTwice(in["x"], 1, 1)
		delete(want, "tally") // the hand-rolled tally is not an output here
		return want
	}},
	"20_debugging_lab/sum_in_turn": {Want: AllreduceSum},

	// The builtin variants: the same goldens as their hand-rolled steps.
	"04_barrier_builtin/barrier_then_read": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return map[string]*emu.Tensor{
			"y":     fromRank(in["x"], func(r int) int { return (r + p - 1) % p }),
			"tally": emu.Zeros(ir.INT32, p, p, 1), // the builtin's epilogue hands every credit back
		}
	}},
	"05_remote_load_store_builtin/shift_by_load": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(r int) int { return (r + 1) % p }))
	}},
	"05_remote_load_store_builtin/shift_by_store": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(r int) int { return (r + 1) % p }))
	}},
	`11_allreduce_reveal/build_allreduce_reveal({P}, "mesh", "sum").allreduce`: {Want: AllreduceSum},
	`11_allreduce_reveal/build_allreduce_reveal({P}, "ring", "sum").allreduce`: {Want: AllreduceSum},
	`11_allreduce_reveal/build_allreduce_reveal({P}, "mesh", "max").allreduce`: {Exact: true, Want: allreduceWith(math.Max)},
	`11_allreduce_reveal/build_allreduce_reveal({P}, "ring", "min").allreduce`: {Exact: true, Want: allreduceWith(math.Min)},
	"12_broadcast_builtin/broadcast_builtin": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", fromRank(in["x"], func(int) int { return broadcastRoot }))
	}},
	"13_allgather_builtin/build_allgather({P}).allgather_builtin": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", allgather(in["x"]))
	}},
	"14_reduce_scatter_builtin/build_reduce_scatter({P}).reduce_scatter_builtin": {Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", reduceScatter(in["x"]))
	}},
	"15_all_to_all_builtin/build_all_to_all({P}).all_to_all_builtin": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return only("y", transpose01(in["x"]))
	}},
	"16_putting_it_together/build_pipeline({P}).pipeline": {Want: pipeline},
	"17_many_cores/build_many_cores({P}).with_lanes":      {Want: AllreduceSum},
	"18_three_ways/build_three_ways({P}).hand_rolled":     {Want: AllreduceSum},
	"18_three_ways/build_three_ways({P}).incore_builtin":  {Want: AllreduceSum},
	"18_three_ways/build_three_ways({P}).host_builtin":    {Want: AllreduceSum},

	// Step 19 sweeps its size; the ladder runs it at 1024 elements.
	`19_mesh_or_ring/build_allreduce({P}, 1024, "mesh").run`: {Want: AllreduceSum},
	`19_mesh_or_ring/build_allreduce({P}, 1024, "ring").run`: {Want: AllreduceSum},
	"20_signal_reuse/build_signal_reuse({P}).twice_in_kernel": {Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return reusedTwice(in["x"], p, 1)
	}},
	`20_signal_reuse/build_signal_reuse({P}, "ring").twice_in_kernel`: {Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		return reusedTwice(in["x"], 2*(p-1), p)
	}},
	// Two HOST barriers on one signal: each ends with its self-clearing
	// epilogue (upstream 9533ae36b), so the signal is all zero at the end
	// (kernels/reuse_test.go follows the cells through the trace).
	"20_signal_reuse/build_signal_reuse({P}).twice_on_host": {Exact: true, Want: func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		right := func(r int) int { return (r + 1) % p }
		return map[string]*emu.Tensor{"first": fromRank(in["x"], right), "second": fromRank(in["z"], right),
			"tally": emu.Zeros(ir.INT32, p, 1, p)}
	}},
}

func only(name string, t *emu.Tensor) map[string]*emu.Tensor {
	return map[string]*emu.Tensor{name: t}
}

func each(row []float64, f func(float64) float64) []float64 {
	out := make([]float64, len(row))
	for i, v := range row {
		out[i] = f(v)
	}
	return out
}

// mapRows builds a tensor of x's shape whose rank-r slice is f(r, x[r]).
func mapRows(x *emu.Tensor, f func(r int, row []float64) []float64) *emu.Tensor {
	out := emu.Zeros(x.DType, x.Shape...)
	for r := 0; r < x.Shape[0]; r++ {
		copy(out.Row(r), f(r, x.Row(r)))
	}
	return out
}

// fromRank returns y with y[r] = x[src(r)]: shifts and broadcasts.
func fromRank(x *emu.Tensor, src func(r int) int) *emu.Tensor {
	return mapRows(x, func(r int, _ []float64) []float64 { return x.Row(src(r)) })
}

// AllreduceSum is the golden of every all-reduce: y[r] = sum over k of x[k].
func AllreduceSum(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
	x := in["x"]
	total := make([]float64, len(x.Row(0)))
	for k := 0; k < p; k++ {
		for i, v := range x.Row(k) {
			total[i] += v
		}
	}
	return only("y", mapRows(x, func(int, []float64) []float64 { return total }))
}

// allreduceWith is the golden of an all-reduce with an exact reduction
// (maximum, minimum): y[r][j] = f over k of x[k][j].
func allreduceWith(f func(a, b float64) float64) func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
	return func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
		x := in["x"]
		folded := append([]float64(nil), x.Row(0)...)
		for k := 1; k < p; k++ {
			for i, v := range x.Row(k) {
				folded[i] = f(folded[i], v)
			}
		}
		return only("y", mapRows(x, func(int, []float64) []float64 { return folded }))
	}
}

// sumRows returns the element-wise sum over ranks of g(x[k]).
func sumRows(x *emu.Tensor, g func(float64) float64) []float64 {
	total := make([]float64, len(x.Row(0)))
	for k := 0; k < x.Shape[0]; k++ {
		for i, v := range x.Row(k) {
			total[i] += g(v)
		}
	}
	return total
}

// pipeline is step 16's golden: scaled[r] = (sum over k of x[k]) * w[ROOT]
// and table[r, s] = x[s] + w[ROOT], the same on every rank. The other
// ranks' rows of w must not matter.
func pipeline(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor {
	x, w := in["x"], in["w"].Row(pipelineRoot)
	total := sumRows(x, func(v float64) float64 { return v })
	scaled := mapRows(x, func(int, []float64) []float64 {
		out := make([]float64, len(total))
		for j := range total {
			out[j] = total[j] * w[j]
		}
		return out
	})
	n := len(w)
	table := emu.Zeros(x.DType, p, p, n)
	for r := 0; r < p; r++ {
		for s := 0; s < p; s++ {
			for j := 0; j < n; j++ {
				table.Set(x.At(s, 0, j)+w[j], r, s, j)
			}
		}
	}
	return map[string]*emu.Tensor{"scaled": scaled, "table": table}
}

// reusedTwice is the golden of 20_signal_reuse's kernel entries: the sum
// over ranks of x, then of x*x (FP32 products), and a signal window of
// rows x cols that the builtins left all zero.
func reusedTwice(x *emu.Tensor, rows, cols int) map[string]*emu.Tensor {
	p := x.Shape[0]
	sum := sumRows(x, func(v float64) float64 { return v })
	squares := sumRows(x, func(v float64) float64 { return float64(float32(v * v)) })
	return map[string]*emu.Tensor{
		"first":  mapRows(x, func(int, []float64) []float64 { return sum }),
		"second": mapRows(x, func(int, []float64) []float64 { return squares }),
		"tally":  emu.Zeros(ir.INT32, p, rows, cols),
	}
}

// barrierTally is the signal column every rank sees after one hand-rolled
// barrier: a 1 from every peer, a 0 in its own row. Shape [P, P, 1].
func barrierTally(p int) *emu.Tensor {
	t := emu.Zeros(ir.INT32, p, p, 1)
	for r := 0; r < p; r++ {
		for i := 0; i < p; i++ {
			if i != r {
				t.Set(1, r, i, 0)
			}
		}
	}
	return t
}

// allgather turns x [P, 1, N] into y [P, P, N] with y[r, s] = x[s, 0]:
// every rank holds every slice, in rank order.
func allgather(x *emu.Tensor) *emu.Tensor {
	p, n := x.Shape[0], x.Shape[2]
	y := emu.Zeros(x.DType, p, p, n)
	for r := 0; r < p; r++ {
		for s := 0; s < p; s++ {
			for j := 0; j < n; j++ {
				y.Set(x.At(s, 0, j), r, s, j)
			}
		}
	}
	return y
}

// reduceScatter turns x [P, P, N] into y [P, 1, N] with
// y[r, 0, j] = sum over k of x[k, r, j]: rank r gets chunk r, reduced.
func reduceScatter(x *emu.Tensor) *emu.Tensor {
	p, n := x.Shape[0], x.Shape[2]
	y := emu.Zeros(x.DType, p, 1, n)
	for r := 0; r < p; r++ {
		for j := 0; j < n; j++ {
			sum := 0.0
			for k := 0; k < p; k++ {
				sum += x.At(k, r, j)
			}
			y.Floats()[r*n+j] = sum // unrounded: the tolerance absorbs FP32 order effects
		}
	}
	return y
}

// transpose01 swaps the first two dimensions of x [P, P, N]: the
// all-to-all, y[r, s, j] = x[s, r, j].
func transpose01(x *emu.Tensor) *emu.Tensor {
	p, n := x.Shape[0], x.Shape[2]
	y := emu.Zeros(x.DType, p, p, n)
	for r := 0; r < p; r++ {
		for s := 0; s < p; s++ {
			for j := 0; j < n; j++ {
				y.Set(x.At(s, r, j), r, s, j)
			}
		}
	}
	return y
}
