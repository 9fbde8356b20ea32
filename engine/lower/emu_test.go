package lower_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
)

// The semantic tests: the lowered programs run on the emulator, which knows
// only the primitives, on index inputs (element i of every input tensor is
// i), and their outputs must equal goldens computed here in Go from the
// same inputs.

// golden computes the expected outputs at P ranks from the inputs.
type golden func(P int, in map[string]*emu.Tensor) map[string][]float64

// slices splits a host tensor [P, ...] into its per-rank slices.
func slices(t *emu.Tensor) [][]float64 {
	n := t.Shape[0]
	w := len(t.Floats()) / n
	out := make([][]float64, n)
	for r := range out {
		out[r] = t.Floats()[r*w : (r+1)*w]
	}
	return out
}

// everyRank repeats one slice for every rank.
func everyRank(P int, s []float64) []float64 {
	var out []float64
	for range P {
		out = append(out, s...)
	}
	return out
}

// fold reduces the per-rank slices of x element-wise with f.
func fold(x *emu.Tensor, f func(a, b float64) float64) []float64 {
	s := slices(x)
	out := append([]float64(nil), s[0]...)
	for _, row := range s[1:] {
		for j := range out {
			out[j] = f(out[j], row[j])
		}
	}
	return out
}

func sum(a, b float64) float64  { return a + b }
func prod(a, b float64) float64 { return a * b }

var reducers = map[string]func(a, b float64) float64{"sum": sum, "max": math.Max, "min": math.Min, "prod": prod}

// reduced: output y is the reduction of input x on every rank.
func reduced(op string) golden {
	return func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"y": everyRank(P, fold(in["x"], reducers[op]))}
	}
}

// shifted: y[r] = x[(r + by) mod P].
func shifted(by int) golden {
	return func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		s := slices(in["x"])
		var y []float64
		for r := range P {
			y = append(y, s[((r+by)%P+P)%P]...)
		}
		return map[string][]float64{"y": y}
	}
}

// rowOf returns row k of a [rows, cols] slice.
func rowOf(s []float64, k, cols int) []float64 { return s[k*cols : (k+1)*cols] }

// semantic lists, per source file and entry template, the golden of every
// program the semantic tests run.
var semantic = map[string]map[string]golden{
	"05_remote_load_store.py": {
		"pull_from_left": shifted(-1),
		"push_to_left":   shifted(1),
	},
	"07_dynamic_rank_count.py": {
		"pull_next":             shifted(1),
		"barrier_then_get_prev": shifted(-1),
	},
	"11_allreduce_reveal.py": {
		`build_reveal_allreduce({P}, "mesh").allreduce_host`:               reduced("sum"),
		`build_reveal_allreduce({P}, "ring").allreduce_host`:               reduced("sum"),
		`build_reveal_allreduce({P}, "mesh", True).allreduce_host`:         reduced("max"),
		`build_reveal_allreduce({P}, "ring", use_max=True).allreduce_host`: reduced("max"),
	},
	"12_broadcast.py": {"build_broadcast({P}, True).host_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"out": everyRank(P, slices(in["inp"])[1])}
	}},
	"13_allgather.py": {"build_allgather({P}, True).host_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		var all []float64
		for _, s := range slices(in["inp"]) {
			all = append(all, s...)
		}
		return map[string][]float64{"out": everyRank(P, all)}
	}},
	"14_reduce_scatter.py": {"build_reduce_scatter({P}, True).host_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		total := fold(in["inp"], sum) // [1, P*SIZE]: chunk r is rank r's
		return map[string][]float64{"out": total}
	}},
	"15_all_to_all.py": {"build_all_to_all({P}, True).host_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		s := slices(in["inp"])
		size := len(s[0]) / P
		var out []float64
		for r := range P {
			for src := range P {
				out = append(out, rowOf(s[src], r, size)...)
			}
		}
		return map[string][]float64{"out": out}
	}},
	"16_compose.py": {"build_compose({P}).host_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		bias := in["bias"].Floats()
		total := fold(in["inp"], sum)
		var joined []float64
		for _, s := range slices(in["inp"]) {
			for j, v := range s {
				joined = append(joined, v*bias[j])
			}
		}
		for j := range total {
			total[j] += bias[j]
		}
		return map[string][]float64{"summed": everyRank(P, total), "joined": everyRank(P, joined)}
	}},
	"reuse.py": {
		`build_reuse({P}, "mesh").host_orch`: reuse,
		`build_reuse({P}, "ring").host_orch`: reuse,
	},
	"shapes.py": {
		`build_shapes({P}, 2, 24, "mesh", "sum").host_orch`:   reduced("sum"),
		`build_shapes({P}, 2, 24, "ring", "max").host_orch`:   reduced("max"),
		`build_shapes({P}, 1, 5000, "mesh", "min").host_orch`: reduced("min"),
		`build_shapes({P}, 1, 5000, "ring", "sum").host_orch`: reduced("sum"),
		`build_shapes({P}, 4, 8, "mesh", "prod").host_orch`:   reduced("prod"),
	},
	"alltoallv.py": {"build_alltoallv({P}).host_orch": alltoallv},
	"host_reduce.py": {
		`build_host_reduce({P}, 960, 4, "mesh", "sum").host_orch`: reduced("sum"),
		`build_host_reduce({P}, 960, 2, "mesh", "max").host_orch`: reduced("max"),
		`build_host_reduce({P}, 64, 1, "mesh", "prod").host_orch`: reduced("prod"),
		`build_host_reduce({P}, 300, 1, "mesh", "min").host_orch`: reduced("min"),
		`build_host_reduce({P}, 960, 1, "ring", "sum").host_orch`: reduced("sum"),
	},
	"host_data.py": {
		"build_host_data({P}).bcast_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
			return map[string][]float64{"y": everyRank(P, slices(in["x"])[1])}
		},
		"build_host_data({P}).gather_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
			var all []float64
			for _, s := range slices(in["x"]) {
				all = append(all, s...)
			}
			return map[string][]float64{"y": everyRank(P, all)}
		},
		// HEAD's HOST reduce_scatter reduces row r only, on rank r; the
		// other rows of rank r's window keep rank r's own input.
		"build_host_data({P}).scatter_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
			s, total := slices(in["x"]), fold(in["x"], sum)
			size := len(total) / P
			var out []float64
			for r := range P {
				for k := range P {
					if k == r {
						out = append(out, rowOf(total, k, size)...)
					} else {
						out = append(out, rowOf(s[r], k, size)...)
					}
				}
			}
			return map[string][]float64{"y": out}
		},
		"build_host_data({P}).swap_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
			s := slices(in["x"])
			size := len(s[0]) / P
			var out []float64
			for r := range P {
				for src := range P {
					out = append(out, rowOf(s[src], r, size)...)
				}
			}
			return map[string][]float64{"y": out}
		},
	},
}

// reuse: three allreduces in a row give S, P*S and P*P*S.
func reuse(P int, in map[string]*emu.Tensor) map[string][]float64 {
	s := fold(in["x"], sum)
	var row []float64
	for k := range 3 {
		for _, v := range s {
			row = append(row, v*math.Pow(float64(P), float64(k)))
		}
	}
	return map[string][]float64{"y": everyRank(P, row)}
}

// alltoallv: rank r's box holds, in rows q*MAX_RECV.., rank q's block for r;
// got[r, q] is rank q's count for r, capped at MAX_RECV = 2.
func alltoallv(P int, in map[string]*emu.Tensor) map[string][]float64 {
	const maxRecv, size = 2, 64
	x := slices(in["x"])
	counts := slices(in["counts"])
	var box, got []float64
	for r := range P {
		for q := range P {
			for i := range maxRecv {
				box = append(box, rowOf(x[q], r*maxRecv+i, size)...)
			}
		}
		for q := range P {
			got = append(got, math.Min(counts[q][r], maxRecv))
		}
	}
	return map[string][]float64{"box_out": box, "got": got}
}

// unsupported reports whether a failed run stopped at an operation of the
// lowered IR the emulator does not run yet (pl.tensor.view,
// pl.get_block_idx), which turns the test into a skip until it does.
func unsupported(res *emu.Result) bool {
	return res.Error != nil && res.Error.Code == "E0509" &&
		(strings.Contains(res.Error.Message, ir.ViewOp) || strings.Contains(res.Error.Message, ir.BlockIdxOp))
}

// emuRunsGrids reports whether the emulator launches a kernel called with
// ir.Call.Blocks > 1 as that many blocks: it runs a one-rank program whose
// four blocks each write their index + 1 into their own cell.
func emuRunsGrids(t *testing.T) bool {
	row := &ir.Tensor{Shape: ir.ConstShape(1, 4), DType: ir.INT32}
	host := &ir.Tensor{Shape: ir.ConstShape(1, 1, 4), DType: ir.INT32}
	idx := &ir.Scalar{DType: ir.INDEX}
	ky, b, b1 := &ir.Var{Name: "y", Type: row}, &ir.Var{Name: "b", Type: idx}, &ir.Var{Name: "b1", Type: idx}
	kernel := &ir.Func{Name: "mark", Level: ir.InCore, Params: []*ir.Param{{Var: ky, Dir: ir.Out}}, Body: &ir.Block{Stmts: []ir.Stmt{
		&ir.Op{Name: ir.BlockIdxOp, Result: b},
		&ir.Bin{Op: ir.Add, X: b, Y: ir.IntConst(1, ir.INDEX), Result: b1},
		&ir.Op{Name: "pl.write", Args: []ir.Operand{ky, &ir.ListOp{Elems: []ir.Operand{ir.IntConst(0, ir.INDEX), b}}, b1}},
	}}}
	oy := &ir.Var{Name: "y", Type: row}
	wrapper := &ir.Func{Name: "launch", Level: ir.Orchestration, Params: []*ir.Param{{Var: oy, Dir: ir.Out}}, Body: &ir.Block{Stmts: []ir.Stmt{
		&ir.Call{Callee: kernel, Args: []ir.Operand{oy}, Blocks: 4},
	}}}
	hy, r, yr := &ir.Var{Name: "y", Type: host}, &ir.Var{Name: "r", Type: idx}, &ir.Var{Name: "%0", Type: row, Temp: true}
	entry := &ir.Func{Name: "probe", Level: ir.Host, Params: []*ir.Param{{Var: hy, Dir: ir.Out}}, Body: &ir.Block{Stmts: []ir.Stmt{
		&ir.For{Var: r, Start: ir.IntConst(0, ir.INDEX), Stop: ir.IntConst(1, ir.INDEX), Step: ir.IntConst(1, ir.INDEX), Body: &ir.Block{Stmts: []ir.Stmt{
			&ir.Index{X: hy, Index: r, Result: yr},
			&ir.Call{Callee: wrapper, Args: []ir.Operand{yr}, Device: r},
		}}},
	}}}
	prog := &ir.Program{Name: "probe", Ranks: 1, Platform: "910B", Funcs: []*ir.Func{entry, wrapper, kernel}, Entry: entry}
	if err := ir.Verify(prog); err != nil {
		t.Fatal(err)
	}
	res := emu.Run(context.Background(), prog, emu.Options{})
	if res.Status != emu.StatusOK {
		return false
	}
	i, ok := allclose(res.Outputs["y"].Floats(), []float64{1, 2, 3, 4}, 0, 0)
	return ok && i == 0
}

// launchesGrid reports whether p launches a kernel as a block grid.
func launchesGrid(p *ir.Program) bool {
	for _, f := range p.Funcs {
		for _, s := range f.Body.Stmts {
			if c, ok := s.(*ir.Call); ok && c.Blocks > 1 {
				return true
			}
		}
	}
	return false
}

// TestLoweredProgramsRun runs every instance of semantic at the ranks its
// header lists (plus 5 for the ring allreduce of step 11) and compares every
// output with its golden.
func TestLoweredProgramsRun(t *testing.T) {
	ran, skipped := 0, map[string]int{}
	grids := emuRunsGrids(t)
	for _, in := range semanticInstances(t) {
		prog := lowered(t, in.instance)
		if !grids && launchesGrid(prog) {
			skipped["a kernel launched as a block grid (ir.Call.Blocks > 1)"]++
			continue
		}
		inputs := indexInputs(prog)
		res := emu.Run(context.Background(), prog, emu.Options{Inputs: inputs})
		if res.Status != emu.StatusOK && unsupported(res) {
			skipped[res.Error.Message]++
			continue
		}
		if res.Status != emu.StatusOK {
			msg := string(res.Status)
			if res.Error != nil {
				msg = res.Error.Error()
			}
			t.Errorf("%s: %s", in.instance, msg)
			continue
		}
		for name, w := range semantic[filepath.Base(in.file)][in.template](in.ranks, inputs) {
			got := res.Outputs[name]
			if got == nil {
				t.Errorf("%s: no output %s", in.instance, name)
				continue
			}
			if i, ok := allclose(got.Floats(), w, 1e-5, 1e-5); !ok {
				if i < 0 {
					t.Errorf("%s: %s has %d elements, want %d", in.instance, name, len(got.Floats()), len(w))
				} else {
					t.Errorf("%s: %s[%d] = %g, want %g", in.instance, name, i, got.Floats()[i], w[i])
				}
			}
		}
		ran++
	}
	t.Logf("%d lowered programs ran on the emulator and matched their goldens", ran)
	for msg, n := range skipped {
		t.Logf("SKIPPED %d programs until the emulator runs it: %s", n, msg)
	}
}

type semInstance struct {
	instance
	template string
}

func semanticInstances(t *testing.T) []semInstance {
	var out []semInstance
	for _, dir := range []string{"../testdata/programs", "testdata"} {
		for file, entries := range semantic {
			path := filepath.Join(dir, file)
			if m, _ := filepath.Glob(path); len(m) == 0 {
				continue
			}
			h := readHeader(t, path)
			for tmpl := range entries {
				ranks := h.ranks
				if strings.Contains(tmpl, `"ring"`) && file == "11_allreduce_reveal.py" {
					ranks = append(ranks[:len(ranks):len(ranks)], 5)
				}
				for _, p := range ranks {
					out = append(out, semInstance{instance{file: path, entry: expand(tmpl, p), ranks: p}, tmpl})
				}
			}
		}
	}
	return out
}

// indexInputs fills every non-Out host tensor parameter with its flat
// element index (`--fill index`).
func indexInputs(prog *ir.Program) map[string]*emu.Tensor {
	in := map[string]*emu.Tensor{}
	for _, p := range emu.HostParams(prog) {
		if p.Scalar || p.Dir == ir.Out {
			continue
		}
		in[p.Name] = emu.Iota(p.DType, p.Shape...)
	}
	return in
}

// allclose reports whether got matches want within |got-want| <= atol +
// rtol*|want|, and the first index where it does not (-1: lengths differ).
func allclose(got, want []float64, rtol, atol float64) (int, bool) {
	if len(got) != len(want) {
		return -1, false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > atol+rtol*math.Abs(want[i]) {
			return i, false
		}
	}
	return 0, true
}
