package emu

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"pldworkbench/engine/ir"
)

// TestRegionName renders byte ranges as element boxes of the view.
func TestRegionName(t *testing.T) {
	for _, c := range []struct {
		shape  []int
		lo, hi int // in elements of 4 bytes
		want   string
	}{
		{[]int{1, 64}, 0, 64, "part[0, 0:64]"},
		{[]int{1, 64}, 16, 32, "part[0, 16:32]"},
		{[]int{4, 1}, 2, 3, "part[2, 0]"},
		{[]int{4, 64}, 64, 192, "part[1:3, 0:64]"},
		{[]int{4, 64}, 0, 256, "part[0:4, 0:64]"},
		{[]int{2, 3, 8}, 24, 48, "part[1, 0:3, 0:8]"},
		{[]int{2, 3, 8}, 32, 40, "part[1, 1, 0:8]"},
		{[]int{4, 64}, 60, 70, "part (elements 60:70 of [4, 64], flat)"},
		{[]int{16}, 5, 6, "part[5]"},
	} {
		if got := regionName("part", c.shape, 4, c.lo*4, c.hi*4); got != c.want {
			t.Errorf("regionName(%v, %d:%d) = %q, want %q", c.shape, c.lo, c.hi, got, c.want)
		}
	}
	// A view of another element size rounds outward to whole elements.
	if got := regionName("bytes", []int{1, 16}, 8, 4, 12); got != "bytes[0, 0:2]" {
		t.Errorf("misaligned range: %q", got)
	}
}

// TestShadowMatchesBytes drives the shadow with random accesses from four
// threads with random clocks (a third of them to the bytes of the one
// before, where shadow.exact takes most fresh ones; shadow.carve takes
// many others) and compares every
// verdict with a model that
// keeps the entries of each byte separately: ranges are only a
// compression, so the races found, byte for byte, must be the same, and
// the segments must stay sorted, disjoint and merged.
func TestShadowMatchesBytes(t *testing.T) {
	const size, threads = 96, 4
	rng := rand.New(rand.NewPCG(1, 2))
	spilled := 0 // segments seen with their entries in the spill table
	exacts := 0  // accesses shadow.exact recorded
	carves := 0  // and shadow.carve
	for round := 0; round < 200; round++ {
		var sh shadow
		lastLo, lastHi := 0, 0
		bytes := make([][]cellAcc, size)
		clk := make([]uint32, threads)
		applied := map[cellAcc]bool{} // the accesses recorded so far
		for step := 0; step < 40; step++ {
			tid := int32(rng.IntN(threads))
			if clk[tid] == 0 || rng.IntN(2) == 0 {
				clk[tid]++ // else another access in the same epoch
			}
			h := &hbThread{tid: tid, own: clk[tid], base: &vclock{v: make([]uint32, threads), refs: 1}}
			for o := range h.base.v {
				if int32(o) != tid {
					h.base.v[o] = uint32(rng.IntN(int(clk[o]) + 1))
				}
			}
			lo := rng.IntN(size)
			hi := lo + 1 + rng.IntN(min(24, size-lo))
			if step > 0 && rng.IntN(3) == 0 {
				lo, hi = lastLo, lastHi // a segment's exact bytes, most often: exact's case
			}
			lastLo, lastHi = lo, hi
			site := uint32(1 + rng.IntN(5)) // one of five sites
			cur := cellAcc{tid: tid, clk: clk[tid], sk: site<<2 | uint32(rng.IntN(4))}

			got := make([]bool, size)
			fresh := !applied[cur] // no segment holds cur yet
			applied[cur] = true
			// As touchBytes does: exact or carve first, access if they
			// decline.
			if fresh && sh.exact(lo, hi, cur, h) {
				exacts++
			} else if fresh && sh.carve(lo, hi, cur, h) {
				carves++
			} else {
				sh.access(lo, hi, cur, h, fresh, func(e cellAcc, a, b int) {
					for i := max(a, lo); i < min(b, hi); i++ {
						got[i] = true
					}
				})
			}
			for i := lo; i < hi; i++ {
				want := false
				for _, e := range bytes[i] {
					if e.tid != tid && conflicts(e.kind(), cur.kind()) && e.clk > h.at(e.tid) {
						want = true
					}
				}
				if got[i] != want {
					t.Fatalf("round %d step %d: byte %d race %v, the byte model says %v", round, step, i, got[i], want)
				}
				bytes[i] = updateEntries(bytes[i], cur)
			}
			for i := range got {
				if got[i] && (i < lo || i >= hi) {
					t.Fatalf("round %d step %d: race reported on byte %d outside [%d, %d)", round, step, i, lo, hi)
				}
			}
			segs := sh.list()
			for i, s := range segs {
				if s.lo >= s.hi || i > 0 && segs[i-1].hi > s.lo {
					t.Fatalf("segments out of order: %+v", segs)
				}
				if s.spillIndex() != 0 {
					spilled++
				}
				if i > 0 && segs[i-1].hi == s.lo && slices.Equal(sh.entries(&segs[i-1]), sh.entries(&s)) {
					t.Fatalf("adjacent equal segments not merged at %d", s.lo)
				}
				for b := s.lo; b < s.hi; b++ {
					if !sameSet(bytes[b], sh.entries(&s)) {
						t.Fatalf("byte %d: shadow %+v, model %+v", b, sh.entries(&s), bytes[b])
					}
				}
			}
		}
	}
	if spilled == 0 {
		t.Fatal("no segment had more entries than it holds in place: the spill table went untested")
	}
	if exacts < 500 || carves < 200 {
		t.Fatalf("shadow.exact recorded only %d accesses, shadow.carve %d: their paths are barely tested", exacts, carves)
	}
	t.Logf("shadow.exact recorded %d accesses, shadow.carve %d", exacts, carves)
}

func sameSet(a, b []cellAcc) bool {
	if len(a) != len(b) {
		return false
	}
	for _, e := range a {
		if !slices.Contains(b, e) {
			return false
		}
	}
	return true
}

// TestRaceCap keeps MaxRaces distinct races, counts the rest, and reports
// a pair of lines on one memory once.
func TestRaceCap(t *testing.T) {
	buf := &bufDesc{name: "w", size: 64}
	view := &tref{name: "w", dt: ir.INT32, shape: []int{16}, buf: buf}
	d := &detector{who: []threadInfo{{rank: 0}, {rank: 1}}, seen: map[raceKey]bool{}}
	op := &ir.Op{Name: "pl.store"}
	for line := 1; line <= MaxRaces+5; line++ {
		for rep := 0; rep < 3; rep++ {
			a := entry{tid: 0, clk: 1, kind: accWrite, n: &node{span: ir.Span{Line: line}, irop: op}, view: view}
			b := entry{tid: 1, clk: 1, kind: accWrite, n: &node{span: ir.Span{Line: 100}, irop: op}, view: view}
			if rep == 2 {
				a, b = b, a // the same pair found the other way round
			}
			d.report(shadowKey{buf: buf, rank: 1}, a, b, 0, 4)
		}
	}
	if len(d.races) != MaxRaces || d.omitted != 5 {
		t.Fatalf("%d races, %d omitted; want %d and 5", len(d.races), d.omitted, MaxRaces)
	}
	r := d.races[0]
	if r.A.Region != "w[0] on rank 1" || r.A.Line != 1 || r.B.Line != 100 || !strings.Contains(r.Message, "both stored these bytes") {
		t.Errorf("first race %+v", r)
	}
	res := &Result{Status: StatusOK}
	d.finish(res)
	if res.Status != StatusRace || len(res.Races) != MaxRaces || res.RacesOmitted != 5 {
		t.Errorf("finish: %s, %d races, %d omitted", res.Status, len(res.Races), res.RacesOmitted)
	}
	res = &Result{Status: StatusDeadlock}
	d.finish(res)
	if res.Status != StatusDeadlock {
		t.Errorf("a deadlock with races became %s", res.Status)
	}
}

// gridProgram launches a kernel as a grid of 4 blocks on each of 2 ranks
// (like TestBlockGrid): block 3 writes y[0, 3] and notifies its rank's
// cell, block 0 writes y[0, 0] — after waiting for that notify when
// ordered is set. With sameCell both blocks write y[0, 0].
func gridProgram(t *testing.T, sameCell, ordered bool) *ir.Program {
	row := &ir.Tensor{Shape: ir.ConstShape(1, 4), DType: ir.INT32}
	sigT := &ir.DistributedTensor{Shape: ir.ConstShape(1, 1), DType: ir.INT32}
	index := &ir.Scalar{DType: ir.INDEX}
	ky, ksig := v("y", row), v("sig", sigT)
	b, b1, b32 := v("b", index), v("b1", index), v("b32", &ir.Scalar{DType: ir.INT32})
	is0, is3 := v("is0", ir.Bool), v("is3", ir.Bool)
	kernel := &ir.Func{Name: "mark", Level: ir.InCore, Params: []*ir.Param{{Var: ky, Dir: ir.Out}, {Var: ksig}}, Body: &ir.Block{}}
	ctx, me := v("ctx", &ir.CommCtx{}), v("me", &ir.Scalar{DType: ir.INT32})
	kernel.Body.Add(&ir.Op{Name: "pld.get_comm_ctx", Args: []ir.Operand{ksig}, Result: ctx, Site: ir.Site{Span: ir.Span{Line: 1}}})
	kernel.Body.Add(&ir.Op{Name: "pld.rank", Args: []ir.Operand{ctx}, Result: me, Site: ir.Site{Span: ir.Span{Line: 2}}})
	kernel.Body.Add(&ir.Op{Name: "pl.get_block_idx", Result: b, Site: ir.Site{Span: ir.Span{Line: 3}}})
	kernel.Body.Add(&ir.Bin{Op: ir.Eq, X: b, Y: idx(3), Result: is3})
	kernel.Body.Add(&ir.Bin{Op: ir.Add, X: b, Y: idx(1), Result: b1})
	kernel.Body.Add(&ir.Op{Name: "pl.cast", Args: []ir.Operand{b1}, Attrs: []ir.Attr{{Key: "target_type", Value: ir.DTypeAttr(ir.INT32)}}, Result: b32, Site: ir.Site{Span: ir.Span{Line: 4}}})
	var col ir.Operand = b
	if sameCell {
		col = idx(0)
	}
	write := &ir.Op{Name: "pl.write", Args: []ir.Operand{ky, list(idx(0), col), b32}, Site: ir.Site{Span: ir.Span{Line: 10}}}
	notify := &ir.Op{Name: "pld.system.notify", Args: []ir.Operand{ksig, me, list(idx(0), idx(0)), idx(7)},
		Attrs: []ir.Attr{{Key: "op", Value: ir.EnumAttr{Type: "pld.NotifyOp", Member: "Set", V: 1}}}, Site: ir.Site{Span: ir.Span{Line: 11}}}
	wait := &ir.Op{Name: "pld.system.wait", Args: []ir.Operand{ksig, list(idx(0), idx(0)), idx(7)},
		Attrs: []ir.Attr{{Key: "cmp", Value: ir.EnumAttr{Type: "pld.WaitCmp", Member: "Eq", V: 0}}}, Site: ir.Site{Span: ir.Span{Line: 12}}}
	kernel.Body.Add(&ir.If{Cond: is3, Then: &ir.Block{Stmts: []ir.Stmt{write, notify}}})
	kernel.Body.Add(&ir.Bin{Op: ir.Eq, X: b, Y: idx(0), Result: is0})
	then := []ir.Stmt{write}
	if ordered {
		then = []ir.Stmt{wait, write}
	}
	kernel.Body.Add(&ir.If{Cond: is0, Then: &ir.Block{Stmts: then}})
	oy, osig := v("y", row), v("sig", sigT)
	wrapper := &ir.Func{Name: "launch", Level: ir.Orchestration, Params: []*ir.Param{{Var: oy, Dir: ir.Out}, {Var: osig}}, Body: &ir.Block{}}
	wrapper.Body.Add(&ir.Call{Callee: kernel, Args: []ir.Operand{oy, osig}, Blocks: 4})
	hostT := &ir.Tensor{Shape: ir.ConstShape(2, 1, 4), DType: ir.INT32}
	hy, r, yr := v("y", hostT), v("r", index), v("%0", row)
	buf, view := v("sig_buf", &ir.Ptr{Bytes: ir.ConstDim(4)}), v("sig", sigT)
	loop := &ir.For{Var: r, Start: idx(0), Stop: idx(2), Step: idx(1), Body: &ir.Block{}}
	loop.Body.Add(&ir.Op{Name: "pld.window", Args: []ir.Operand{buf, list(idx(1), idx(1))}, Attrs: []ir.Attr{{Key: "dtype", Value: ir.DTypeAttr(ir.INT32)}}, Result: view})
	loop.Body.Add(&ir.Index{X: hy, Index: r, Result: yr})
	loop.Body.Add(&ir.Call{Callee: wrapper, Args: []ir.Operand{yr, view}, Device: r})
	entry := &ir.Func{Name: "probe", Level: ir.Host, Params: []*ir.Param{{Var: hy, Dir: ir.Out}}, Body: &ir.Block{}}
	entry.Body.Add(&ir.Op{Name: "pld.alloc_window_buffer", Args: []ir.Operand{idx(4)}, Result: buf})
	entry.Body.Add(loop)
	prog := &ir.Program{Name: "grid", Ranks: 2, Platform: "910B", Funcs: []*ir.Func{entry, wrapper, kernel}, Entry: entry}
	if err := ir.Verify(prog); err != nil {
		t.Fatal(err)
	}
	return prog
}

// TestGridRaces: blocks of one rank are threads of their own. Block 0
// and block 3 writing one cell race unless block 0 waits for block 3's
// notify; writing different cells never races.
func TestGridRaces(t *testing.T) {
	for _, c := range []struct {
		same, ordered bool
		races         int
	}{{false, false, 0}, {true, true, 0}, {true, false, 1}} {
		prog := gridProgram(t, c.same, c.ordered)
		for _, sched := range []string{"fair", "adversarial", "random:5"} {
			res := Run(context.Background(), prog, Options{Schedule: sched})
			what := fmt.Sprintf("same cell %v, ordered %v, %s", c.same, c.ordered, sched)
			if len(res.Races) != c.races {
				t.Errorf("%s: %s with races %+v, want %d", what, res.Status, res.Races, c.races)
				continue
			}
			if c.races == 0 {
				if res.Status != StatusOK {
					t.Errorf("%s: %s %v", what, res.Status, res.Error)
				}
				continue
			}
			r := res.Races[0]
			blocks := []int{r.A.Block, r.B.Block}
			slices.Sort(blocks)
			if res.Status != StatusRace || r.A.Rank != r.B.Rank || !slices.Equal(blocks, []int{0, 3}) ||
				r.A.Region != fmt.Sprintf("y[%d, 0, 0] on the host", r.A.Rank) || !strings.Contains(r.Message, fmt.Sprintf("rank %d block 3", r.A.Rank)) {
				t.Errorf("%s: %s %+v, want blocks 0 and 3 of one rank on y[r, 0, 0]", what, res.Status, r)
			}
		}
	}
}

// TestRaceMessages: the advice follows the source order of a read and a
// write, whichever ran first; blocks are named.
func TestRaceMessages(t *testing.T) {
	d := &detector{who: []threadInfo{{rank: 0}, {rank: 1}, {rank: 1, block: 2, grid: true}}}
	at := func(tid int32, kind accessKind, line int, op string) entry {
		return entry{tid: tid, kind: kind, n: &node{span: ir.Span{Line: line}, op: ir.KindOf(op), irop: &ir.Op{Name: op}}}
	}
	side := func(e entry) RaceAccess { return RaceAccess{Line: e.n.line()} }
	for _, c := range []struct {
		a, b entry
		want string
	}{
		{at(0, accWrite, 10, "pl.store"), at(1, accRead, 20, "pld.tile.remote_load"),
			"rank 1 read at line 20 what rank 0 stored at line 10; no notify/wait orders them: put a barrier between the store and the read " +
				"(rank 0 notifies after the store, rank 1 waits for that notify before the read)"},
		{at(1, accRead, 20, "pld.tile.remote_load"), at(0, accWrite, 10, "pl.store"),
			"rank 1 read at line 20 before rank 0's store at line 10 wrote the same bytes, so it saw the old data; no notify/wait orders them: " +
				"put a barrier between the store and the read (rank 0 notifies after the store, rank 1 waits for that notify before the read)"},
		{at(0, accRead, 10, "pl.load"), at(2, accWrite, 20, "pld.tile.remote_store"),
			"rank 1 block 2 stored at line 20 over what rank 0 read at line 10; no notify/wait orders them: put a barrier between the read and the store " +
				"(rank 0 notifies after the read, rank 1 block 2 waits for that notify before the store)"},
		{at(2, accWrite, 20, "pld.tile.remote_store"), at(0, accRead, 10, "pl.load"),
			"rank 1 block 2's store at line 20 overwrote the bytes before rank 0 read them at line 10, so it saw the new data; no notify/wait orders them: " +
				"put a barrier between the read and the store (rank 0 notifies after the read, rank 1 block 2 waits for that notify before the store)"},
		{at(0, accWrite, 10, "pld.tensor.put"), at(1, accAtomicWrite, 12, "pld.system.notify"),
			"rank 0 (line 10) and rank 1 (line 12) both put and notified these bytes; no notify/wait orders them, so which value stays depends on timing: " +
				"give each rank its own region, or order the put and the notify with a notify/wait"},
		{at(0, accWrite, 10, "pld.tensor.put"), at(1, accWrite, 10, "pld.tensor.put"),
			"rank 0 (line 10) and rank 1 (line 10) both put these bytes; no notify/wait orders them, so which value stays depends on timing: " +
				"give each rank its own region, or order the two puts with a notify/wait, or, if the values are meant to add up, put with atomic=pld.AtomicType.Add"},
		{at(0, accWrite, 10, "pld.tensor.put"), at(1, accAtomicWrite, 10, "pld.tensor.put"),
			"rank 0 (line 10) and rank 1 (line 10) both put and added into these bytes; no notify/wait orders them, so which value stays depends on timing: " +
				"give each rank its own region, or order the put and the atomic put with a notify/wait"},
	} {
		if got := d.message(c.a, c.b, side(c.a), side(c.b)); got != c.want {
			t.Errorf("message:\n got %s\nwant %s", got, c.want)
		}
	}
}

// TestClocksMatchModel drives the copy-on-write clocks (shared bases, the
// O(1) joins of a snapshot whose base a thread has or was copied from,
// pooled vclocks) with random releases, acquires, direct joins and
// accesses among five threads, and compares every entry of every clock
// with plain vector clocks after each step: sharing is only a saving, so
// the clocks must be exactly the model's.
func TestClocksMatchModel(t *testing.T) {
	const threads, cells = 5, 3
	rng := rand.New(rand.NewPCG(3, 4))
	copies := 0
	for round := 0; round < 300; round++ {
		d := &detector{}
		zero := &vclock{v: make([]uint32, threads), refs: threads}
		ms := make([]*machine, threads)
		model := make([][]uint32, threads)
		for i := range ms {
			ms[i] = &machine{hb: hbThread{tid: int32(i), own: 1, base: zero}}
			model[i] = make([]uint32, threads)
		}
		cs := make([]cellRace, cells)
		cellModel := make([]map[int32][]uint32, cells) // per cell, the clocks by notifier
		for i := range cellModel {
			cellModel[i] = map[int32][]uint32{}
		}
		full := func(i int) []uint32 { // thread i's clock with its own epoch
			v := slices.Clone(model[i])
			v[i] = ms[i].hb.own
			return v
		}
		joinModel := func(i int, v []uint32) {
			for j := range v {
				if j != i {
					model[i][j] = max(model[i][j], v[j])
				}
			}
		}
		for step := 0; step < 60; step++ {
			i := rng.IntN(threads)
			h := &ms[i].hb
			switch op := rng.IntN(5); op {
			case 0: // an access
				h.epoch()
			case 1, 2: // a notify: Set or AtomicAdd
				c := rng.IntN(cells)
				set := op == 1
				d.release(ms[i], &cs[c], set)
				if set {
					clear(cellModel[c])
				}
				cellModel[c][int32(i)] = full(i)
			case 3: // a wait that passed
				c := rng.IntN(cells)
				h.advance() // as the wait's own access would
				d.acquire(ms[i], &cs[c])
				for _, v := range cellModel[c] {
					joinModel(i, v)
				}
				clear(cellModel[c]) // a rank thread's acquire lets go, as the detector does
			case 4: // a fork or join edge from thread j
				j := rng.IntN(threads)
				if j == i {
					continue
				}
				v := full(j)
				d.join(h, ms[j].hb.view())
				joinModel(i, v)
			}
			for a := range ms {
				for b := 0; b < threads; b++ {
					if b == a {
						continue
					}
					if got, want := ms[a].hb.at(int32(b)), model[a][b]; got != want {
						t.Fatalf("round %d step %d: thread %d knows thread %d at %d, the model says %d", round, step, a, b, got, want)
					}
				}
			}
			checkCellClocks(t, d, cs)
		}
		copies += d.copyJoinCount()
	}
	if copies == 0 {
		t.Error("no join was a copy: the lineage path went untested")
	}
	t.Logf("%d joins were copies", copies)
}

// TestCellStateCompact keeps a signal cell's detector state at 32 bytes
// without a pointer: a barrier at P = 4096 has 16.7 million of them, a
// pointer would have the garbage collector scan every one, and at 32
// bytes no state spans two cache lines.
func TestCellStateCompact(t *testing.T) {
	if got := unsafe.Sizeof(cellRace{}); got != 32 {
		t.Errorf("cellRace is %d bytes, want 32", got)
	}
	var hasPtr func(reflect.Type) bool
	hasPtr = func(ty reflect.Type) bool {
		switch ty.Kind() {
		case reflect.Struct:
			for i := 0; i < ty.NumField(); i++ {
				if hasPtr(ty.Field(i).Type) {
					return true
				}
			}
			return false
		case reflect.Array:
			return hasPtr(ty.Elem())
		}
		return ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map ||
			ty.Kind() == reflect.String || ty.Kind() == reflect.Interface || ty.Kind() == reflect.Func || ty.Kind() == reflect.Chan
	}
	if hasPtr(reflect.TypeOf(cellRace{})) {
		t.Error("cellRace holds a pointer")
	}
	// What an access (and signalFast, after a plain access to its
	// buffer) reads of a shadow is in its first cache line, of a
	// 128-byte object (so 128-aligned).
	var sh shadow
	end := max(unsafe.Offsetof(sh.segs)+unsafe.Sizeof(sh.segs), unsafe.Offsetof(sh.hint)+4)
	if end > 64 || unsafe.Sizeof(sh) != 128 {
		t.Errorf("a shadow is %d bytes with its signal and segment fields ending at %d; want them in the first 64 of 128", unsafe.Sizeof(sh), end)
	}
}

// TestVclockIDs checks the ids cells name clocks by: a vclock let go of
// past the pool's bound gives its id back, and the next vclock a cell
// holds reuses it, so the id table stays as large as the clocks alive.
func TestVclockIDs(t *testing.T) {
	d := &detector{}
	n := vclockPoolMax + 10
	vs := make([]*vclock, n)
	for i := range vs {
		vs[i] = d.alloc(3)
		if id := d.vcID(vs[i]); id != uint32(i+1) || d.vcs[id] != vs[i] {
			t.Fatalf("vclock %d got id %d", i, id)
		}
	}
	for _, v := range vs {
		d.drop(v)
	}
	if len(d.pool) != vclockPoolMax || len(d.freeIDs) != 10 {
		t.Fatalf("pool %d, free ids %d; want %d and 10", len(d.pool), len(d.freeIDs), vclockPoolMax)
	}
	for _, v := range vs[vclockPoolMax:] {
		if v.id != 0 {
			t.Errorf("a vclock let go of keeps id %d", v.id)
		}
	}
	for _, v := range d.pool {
		if d.vcs[v.id] != v {
			t.Errorf("pooled vclock lost its id %d", v.id)
		}
	}
	d.pool = nil
	v := d.alloc(3)
	id := d.vcID(v)
	if id == 0 || id > uint32(n) || d.vcs[id] != v || len(d.freeIDs) != 9 {
		t.Errorf("a new vclock got id %d (table %d, free %d), want a reused one", id, len(d.vcs), len(d.freeIDs))
	}
}

// TestClocksMatchModelRing is TestClocksMatchModel with ring-shaped
// traffic, where most joins take the copy path (joinCopy), many of them
// taking the snapshot's vclock over: thread i notifies thread i+1's cell
// and waits on its own, with random direct joins and accesses mixed in,
// and every clock must be the model's (a vclock taken over while a cell
// still held it would show in the clocks of a later wait on that cell).
func TestClocksMatchModelRing(t *testing.T) {
	const threads = 6
	rng := rand.New(rand.NewPCG(5, 6))
	copies, takes := 0, 0
	for round := 0; round < 1000; round++ {
		d := &detector{}
		zero := &vclock{v: make([]uint32, threads), refs: threads}
		ms := make([]*machine, threads)
		model := make([][]uint32, threads)
		for i := range ms {
			ms[i] = &machine{hb: hbThread{tid: int32(i), own: 1, base: zero}}
			model[i] = make([]uint32, threads)
		}
		cs := make([]cellRace, threads) // cell i is waited on by thread i
		cellModel := make([]map[int32][]uint32, threads)
		for i := range cellModel {
			cellModel[i] = map[int32][]uint32{}
		}
		full := func(i int) []uint32 {
			v := slices.Clone(model[i])
			v[i] = ms[i].hb.own
			return v
		}
		joinModel := func(i int, v []uint32) {
			for j := range v {
				if j != i {
					model[i][j] = max(model[i][j], v[j])
				}
			}
		}
		notify := func(i int) {
			c := (i + 1) % threads
			set := rng.IntN(3) == 0
			d.release(ms[i], &cs[c], set)
			if set {
				clear(cellModel[c])
			}
			cellModel[c][int32(i)] = full(i)
		}
		wait := func(i int) {
			ms[i].hb.advance()
			d.acquire(ms[i], &cs[i])
			for _, v := range cellModel[i] {
				joinModel(i, v)
			}
			clear(cellModel[i])
		}
		// Every other round starts in lockstep, the benchmark ring's
		// order: each thread in turn notifies its right neighbour, then
		// waits for its left one, who has moved on to a new clock since
		// its notify, so the cell alone holds that one and the wait takes
		// it over.
		lockstep := 0
		if round%2 == 0 {
			lockstep = 60
		}
		for step := 0; step < 120; step++ {
			i := rng.IntN(threads)
			h := &ms[i].hb
			r := rng.IntN(20)
			if step < lockstep {
				i, h, r = step%threads, &ms[step%threads].hb, 20
			}
			switch {
			case r == 20:
				notify(i)
				wait(i)
			case r < 9: // notify the right neighbour
				notify(i)
			case r < 17: // wait on the own cell
				wait(i)
			case r < 18:
				h.epoch()
			default:
				j := rng.IntN(threads)
				if j == i {
					continue
				}
				v := full(j)
				d.join(h, ms[j].hb.view())
				joinModel(i, v)
			}
			for a := range ms {
				for b := 0; b < threads; b++ {
					if b == a {
						continue
					}
					if got, want := ms[a].hb.at(int32(b)), model[a][b]; got != want {
						t.Fatalf("round %d step %d: thread %d knows thread %d at %d, the model says %d", round, step, a, b, got, want)
					}
				}
			}
			checkCellClocks(t, d, cs)
			// A clock a cell keeps is never written (taken over only once
			// the cell alone holds it, as the cell lets go).
			for c := range cs {
				for _, sn := range d.snaps(&cs[c], nil) {
					want := cellModel[c][sn.tid]
					for b := range want {
						got := sn.own
						if b != int(sn.tid) {
							got = sn.base.v[b]
						}
						if got != want[b] {
							t.Fatalf("round %d step %d: cell %d's clock of thread %d knows thread %d at %d, the model says %d", round, step, c, sn.tid, b, got, want[b])
						}
					}
				}
			}
		}
		copies += d.copyJoinCount()
		takes += d.takeCount()
	}
	if copies < 1000 {
		t.Errorf("only %d joins were copies: the copy path is barely tested", copies)
	}
	if takes < 10000 {
		t.Errorf("only %d of %d copy joins took the snapshot's vclock over: that path is barely tested", takes, copies)
	}
	t.Logf("%d joins were copies, %d of them took the vclock over", copies, takes)
}

// checkCellClocks checks the detector's count of cells holding a clock,
// which lets a dispatch join skip the walk over every cell state when it
// is zero: it must be the number of cells whose inline clock is set.
func checkCellClocks(t *testing.T, d *detector, cs []cellRace) {
	t.Helper()
	n := 0
	for i := range cs {
		if cs[i].holdsClock(d) {
			n++
		}
	}
	if n != d.cellClocks {
		t.Fatalf("%d cells hold a clock, the detector counts %d", n, d.cellClocks)
	}
}

// list returns the segments in order (for tests).
func (s *shadow) list() []segment {
	out := make([]segment, 0, s.nsegs())
	for i := 0; i < s.nsegs(); i++ {
		out = append(out, *s.at(i))
	}
	return out
}
