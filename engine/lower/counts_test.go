package lower_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"pldworkbench/engine/ir"
)

// The structural tests: a small walker executes only the control flow and
// scalar arithmetic of a lowered kernel, as one rank (and one block) at a
// time, and counts the lowered operations it passes. The counts must match
// the formulas of pld-spec §4.8, and the credits every collective adds to
// each signal cell must sum, over all ranks, to zero: the epilogue leaves
// the signal as it found it. That holds for the HOST builtins too, as it
// does at upstream HEAD (9533ae36b).

type walker struct {
	t            *testing.T
	rank, P, blk int
	vals         map[*ir.Var]int64
	counts       map[string]int   // lowered op name (and "notify Set") -> executions
	credit       map[string]int64 // "rank r: signal[i, j]" -> AtomicAdd total
	loads        []string         // offsets of the lowered pl.load ops, in order
}

func (w *walker) val(o ir.Operand) int64 {
	switch o := o.(type) {
	case *ir.Const:
		return o.Int
	case *ir.Var:
		v, ok := w.vals[o]
		if !ok {
			w.t.Fatalf("walker: %s has no scalar value", o.Name)
		}
		return v
	}
	w.t.Fatalf("walker: cannot evaluate %s", o)
	return 0
}

func (w *walker) list(o ir.Operand) string {
	l := o.(*ir.ListOp)
	parts := make([]string, len(l.Elems))
	for i, e := range l.Elems {
		parts[i] = fmt.Sprint(w.val(e))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func isScalar(v *ir.Var) bool {
	_, ok := v.Type.(*ir.Scalar)
	return ok
}

func (w *walker) block(b *ir.Block) {
	for _, s := range b.Stmts {
		w.stmt(s)
	}
}

func (w *walker) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Op:
		w.op(s)
	case *ir.Bin:
		x, y := w.val(s.X), w.val(s.Y)
		var r int64
		switch s.Op {
		case ir.Add:
			r = x + y
		case ir.Sub:
			r = x - y
		case ir.Mul:
			r = x * y
		case ir.FloorDiv:
			r = x / y // truncation, as on the device; operands are >= 0 here
		case ir.Mod:
			r = x % y
		case ir.Lt:
			r = b2i(x < y)
		case ir.Eq:
			r = b2i(x == y)
		case ir.Ne:
			r = b2i(x != y)
		default:
			w.t.Fatalf("walker: operator %s", s.Op)
		}
		w.vals[s.Result] = r
	case *ir.Unary:
		w.vals[s.Result] = -w.val(s.X)
	case *ir.Assign:
		if isScalar(s.Dst) {
			w.vals[s.Dst] = w.val(s.Src)
		}
	case *ir.For:
		for i := w.val(s.Start); i < w.val(s.Stop); i += w.val(s.Step) {
			w.vals[s.Var] = i
			w.block(s.Body)
		}
	case *ir.If:
		if w.val(s.Cond) != 0 {
			w.block(s.Then)
		} else if s.Else != nil {
			w.block(s.Else)
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (w *walker) op(s *ir.Op) {
	switch s.Name {
	case "pld.rank":
		w.vals[s.Result] = int64(w.rank)
	case "pld.nranks":
		w.vals[s.Result] = int64(w.P)
	case ir.BlockIdxOp:
		w.vals[s.Result] = int64(w.blk)
	case "pl.read":
		if isScalar(s.Result) {
			w.vals[s.Result] = 5 // a data value; only all_to_all_v's counts reach control flow
		}
	}
	if s.From == nil {
		return
	}
	name := s.Name
	switch s.Name {
	case "pld.system.notify":
		if e, _ := s.Attr("op").(ir.EnumAttr); e.Member == "Set" {
			name += " Set"
			break
		}
		sig := s.Args[0].(*ir.Var).Name
		key := fmt.Sprintf("rank %d: %s%s", w.val(s.Args[1]), sig, w.list(s.Args[2]))
		w.credit[key] += w.val(s.Args[3])
	case "pld.system.wait":
		w.list(s.Args[1])
		w.val(s.Args[2])
	case "pl.load":
		w.loads = append(w.loads, w.list(s.Args[1]))
	}
	w.counts[name]++
}

// run walks every lowered kernel of p on every rank and block and returns
// the per-rank counts of rank 0, every rank's, and the summed credits.
type walk struct {
	perRank []map[string]int
	credit  map[string]int64
	loads   [][]string // per rank
}

func walkProgram(t *testing.T, p *ir.Program) walk {
	t.Helper()
	blocks := map[*ir.Func]int{}
	for _, f := range p.Funcs {
		ir.Walk(f.Body, func(s ir.Stmt) bool {
			if c, ok := s.(*ir.Call); ok && c.Blocks > blocks[c.Callee] {
				blocks[c.Callee] = c.Blocks
			}
			return true
		})
	}
	res := walk{credit: map[string]int64{}}
	for r := range p.Ranks {
		counts := map[string]int{}
		var loads []string
		for _, f := range p.Funcs {
			if f.Level != ir.InCore || !lowers(f) {
				continue
			}
			for b := range max(1, blocks[f]) {
				w := &walker{t: t, rank: r, P: p.Ranks, blk: b, vals: map[*ir.Var]int64{}, counts: counts, credit: res.credit}
				w.block(f.Body)
				loads = append(loads, w.loads...)
			}
		}
		res.perRank = append(res.perRank, counts)
		res.loads = append(res.loads, loads)
	}
	return res
}

// lowers reports whether f holds statements a pass emitted.
func lowers(f *ir.Func) bool {
	found := false
	ir.Walk(f.Body, func(s ir.Stmt) bool {
		found = found || s.Origin() != nil
		return true
	})
	return found
}

// countCase is one program and the per-rank counts the formulas give.
type countCase struct {
	in   instance
	want func(P int) map[string]int
}

func TestOpCountsMatchTheFormulas(t *testing.T) {
	prog := "../testdata/programs/"
	mesh := func(chunks int) func(P int) map[string]int {
		return func(P int) map[string]int {
			return map[string]int{"pld.tile.remote_load": (P - 1) * chunks, "pl.load": chunks, "pl.store": chunks,
				"pld.system.notify": (P - 1) * (chunks + 2), "pld.system.wait": (P - 1) * (chunks + 1)}
		}
	}
	ring := func(P int) map[string]int {
		// Every segment non-empty, one sub-chunk per round: 2(P-1) rounds
		// of ready + read-done barriers, one remote_load each, and an
		// epilogue over the 2(P-1) rows.
		r := 2 * (P - 1)
		return map[string]int{"pld.tile.remote_load": r, "pl.load": P - 1, "pl.store": r,
			"pld.system.notify": r*2*(P-1) + r*(P-1), "pld.system.wait": r * 2 * (P - 1)}
	}
	cases := []countCase{
		{instance{prog + "05_remote_load_store.py", "pull_from_left", 2}, func(P int) map[string]int {
			return map[string]int{"pld.system.notify": 2 * (P - 1), "pld.system.wait": P - 1}
		}},
		{instance{prog + "11_allreduce_reveal.py", `build_reveal_allreduce(2, "mesh").allreduce_host`, 2}, mesh(1)},
		{instance{prog + "11_allreduce_reveal.py", `build_reveal_allreduce(4, "mesh").allreduce_host`, 4}, mesh(1)},
		{instance{"testdata/shapes.py", `build_shapes(3, 1, 5000, "mesh", "min").host_orch`, 3}, mesh(2)},
		{instance{prog + "11_allreduce_reveal.py", `build_reveal_allreduce(2, "ring").allreduce_host`, 2}, ring},
		{instance{prog + "11_allreduce_reveal.py", `build_reveal_allreduce(3, "ring").allreduce_host`, 3}, ring},
		{instance{prog + "11_allreduce_reveal.py", `build_reveal_allreduce(4, "ring").allreduce_host`, 4}, ring},
		{instance{prog + "11_allreduce_reveal.py", `build_reveal_allreduce(5, "ring").allreduce_host`, 5}, ring},
		{instance{prog + "12_broadcast.py", "build_broadcast(4, True).host_orch", 4}, func(P int) map[string]int {
			return map[string]int{"pld.tensor.get": 1, "pld.system.notify": 2 * (P - 1), "pld.system.wait": P - 1}
		}},
		{instance{prog + "13_allgather.py", "build_allgather(4, True).host_orch", 4}, func(P int) map[string]int {
			return map[string]int{"pld.tensor.put": P, "pld.system.notify": 2 * (P - 1), "pld.system.wait": P - 1}
		}},
		{instance{prog + "14_reduce_scatter.py", "build_reduce_scatter(4, True).host_orch", 4}, func(P int) map[string]int {
			return map[string]int{"pld.tile.remote_load": P - 1, "pl.load": 1, "pl.store": 1,
				"pld.system.notify": 3 * (P - 1), "pld.system.wait": 2 * (P - 1)}
		}},
		{instance{prog + "15_all_to_all.py", "build_all_to_all(4, True).host_orch", 4}, func(P int) map[string]int {
			return map[string]int{"pld.tensor.put": P, "pld.system.notify": 2 * (P - 1), "pld.system.wait": P - 1}
		}},
		{instance{"testdata/alltoallv.py", "build_alltoallv(3).host_orch", 3}, func(P int) map[string]int {
			return map[string]int{"pld.tensor.put": P, "pl.read": P, "pld.system.notify Set": P,
				"pld.system.notify": 2 * (P - 1), "pld.system.wait": P - 1}
		}},
		// HOST mesh allreduce, 960 floats = 4 tiles of 256, on 4 blocks per
		// rank: every tile once, each with P-1 remote loads, a lane barrier
		// per block and a read-done barrier per tile, and each block's
		// epilogue over its lane.
		{instance{"testdata/host_reduce.py", `build_host_reduce(3, 960, 4, "mesh", "sum").host_orch`, 3}, func(P int) map[string]int {
			return map[string]int{"pld.tile.remote_load": 4 * (P - 1), "pl.load": 4, "pl.store": 4,
				"pld.system.notify": (P - 1) * (4 + 4 + 4), "pld.system.wait": (P - 1) * (4 + 4)}
		}},
		{instance{"testdata/host_reduce.py", `build_host_reduce(4, 960, 1, "ring", "sum").host_orch`, 4}, func(P int) map[string]int {
			// chunk 240 in one tile per step; 2(P-1) round barriers, the
			// return barrier, and the epilogue over all those rows.
			return map[string]int{"pld.tile.remote_load": 2 * (P - 1), "pl.load": P - 1, "pl.store": 2 * (P - 1),
				"pld.system.notify": 2 * (2*(P-1) + 1) * (P - 1), "pld.system.wait": (2*(P-1) + 1) * (P - 1)}
		}},
		{instance{"testdata/host_data.py", "build_host_data(4).bcast_orch", 4}, func(P int) map[string]int {
			// A HOST barrier (barrier and epilogue), then a one-tile
			// broadcast (the tile's barrier and the epilogue). No Set
			// anywhere.
			return map[string]int{"pl.load": 1, "pld.tile.remote_load": 1, "pl.store": 2,
				"pld.system.notify": 4 * (P - 1), "pld.system.notify Set": 0, "pld.system.wait": 2 * (P - 1)}
		}},
	}
	for _, c := range cases {
		p := lowered(t, c.in)
		w := walkProgram(t, p)
		for r, got := range w.perRank {
			want := c.want(p.Ranks)
			// Ranks differ only where the protocol says so (the root of a
			// HOST broadcast copies, the others fetch).
			if c.in.entry == "build_host_data(4).bcast_orch" {
				if r == 1 {
					want["pld.tile.remote_load"], want["pl.store"] = 0, 1
				} else {
					want["pl.load"], want["pl.store"] = 0, 1
				}
			}
			for op, n := range want {
				if got[op] != n {
					t.Errorf("%s rank %d: %d × %s, want %d", c.in, r, got[op], op, n)
				}
			}
		}
		var dirty []string
		for cell, v := range w.credit {
			if v != 0 {
				dirty = append(dirty, fmt.Sprintf("%s=%d", cell, v))
			}
		}
		sort.Strings(dirty)
		if len(dirty) > 0 {
			t.Errorf("%s: the epilogue leaves credits behind: %v", c.in, dirty)
		}
		if len(w.credit) == 0 {
			t.Errorf("%s: no AtomicAdd credit was counted", c.in)
		}
	}
}

// TestBlockCyclicTiles: the blocks of a HOST mesh allreduce share the
// 256-element tiles block-cyclically, every tile exactly once per rank.
func TestBlockCyclicTiles(t *testing.T) {
	for _, c := range []struct {
		entry string
		want  []string
	}{
		{`build_host_reduce(2, 960, 4, "mesh", "sum").host_orch`, []string{"[0, 0]", "[0, 256]", "[0, 512]", "[0, 768]"}},
		{`build_host_reduce(2, 960, 2, "mesh", "max").host_orch`, []string{"[0, 0]", "[0, 512]", "[0, 256]", "[0, 768]"}},
		{`build_host_reduce(2, 64, 1, "mesh", "prod").host_orch`, []string{"[0, 0]"}},
	} {
		p := lowered(t, instance{"testdata/host_reduce.py", c.entry, 2})
		w := walkProgram(t, p)
		for r, loads := range w.loads {
			if got := strings.Join(loads, " "); got != strings.Join(c.want, " ") {
				t.Errorf("%s rank %d: tiles loaded by block order %s, want %s", c.entry, r, got, strings.Join(c.want, " "))
			}
		}
	}
}
