package lower

import (
	"pldworkbench/engine/ir"
)

// The bodies of the HOST builtin kernels (pld-spec §4.8.3), one function
// per builtin, as upstream HEAD writes them (since its commit 9533ae36b).
// They work in tiles of 256 elements, signal with AtomicAdd credits, and end
// with a self-clearing epilogue that takes back, from each rank's own copy,
// every credit its peers added during the call. Once every rank has run it
// the signal is all zero again, so one signal window serves any number of
// calls, back to back or in a loop. The credits per peer cell per call, and
// so each epilogue's subtraction:
//
//	barrier, allgather, all_to_all(_v)  1 (one barrier)
//	allreduce mesh                      read_done_expected - 1 (ready + one per tile of the lane)
//	allreduce ring                      1 in each of the 2(P-1)+1 round rows
//	broadcast                           one per tile (expected - 1)
//	reduce_scatter                      2 (ready + read-complete)
//
// Every epilogue is an AtomicAdd, never a Set(0): a fast peer may already be
// in its next call and have added the next credit, which a Set would wipe.

// windows looks up a kernel's window operands by name, in the order given;
// the first one missing is the error.
func (k *hostKernel) windows(names ...string) ([]*ir.Var, error) {
	vs := make([]*ir.Var, len(names))
	for i, name := range names {
		if vs[i] = k.param[name]; vs[i] == nil {
			return nil, k.b.errorf("has no %s operand (the checker should have rejected it)", name)
		}
	}
	return vs, nil
}

// onTargetSignal is the body of a kernel on the target and signal windows,
// as most are: it looks them up, with the target's type, before f runs.
func onTargetSignal(f func(k *hostKernel, target, signal *ir.Var, tt *ir.DistributedTensor) error) func(*hostKernel) error {
	return func(k *hostKernel) error {
		w, err := k.windows("target", "signal")
		if err != nil {
			return err
		}
		return f(k, w[0], w[1], dist(w[0]))
	}
}

// hostTiles returns the width of the tiles a kernel walks an n-element
// stream of dtype d in (256, or for a smaller static stream the
// 32-byte-aligned width that covers it) and their type.
func hostTiles(n ir.Operand, d ir.DType) (int64, *ir.Tile) {
	width := int64(hostTile)
	if nc, ok := constOf(n); ok && nc > 0 && nc < hostTile {
		width = roundUp(nc, alignElems(d))
	}
	return width, rowTile(width, d)
}

// rowTile is the [1, width] tile of dtype d a kernel moves a stream in.
func rowTile(width int64, d ir.DType) *ir.Tile {
	return &ir.Tile{Shape: ir.ConstShape(1, width), DType: d}
}

// tileValid returns how many elements of the tile at base are real:
// min(width, n - base), folded to width when every tile is full.
func (b *builder) tileValid(n, base ir.Operand, width int64) ir.Operand {
	if nc, ok := constOf(n); ok && nc%width == 0 {
		return idx(width)
	}
	return b.minOf("chunk", idx(width), b.minus(n, base))
}

// counter declares an INDEX variable starting at v (countedBarrier bumps it).
func (b *builder) counter(hint string, v int64) *ir.Var {
	c := b.newVar(hint, index)
	b.assign(c, idx(v))
	return c
}

// countedBarrier is the barrier of a kernel that adds one credit per tile:
// wait for every cell to reach expected, then expect one more next time.
func (b *builder) countedBarrier(c comm, signal ir.Operand, at cell, expected *ir.Var) {
	b.barrier(c, signal, at, expected)
	b.bin(expected, ir.Add, expected, idx(1))
}

// hostBarrier: AtomicAdd 1 into every peer's cell, wait for every cell
// >= 1, then the epilogue (-1 per cell).
func hostBarrier(k *hostKernel) error {
	w, err := k.windows("signal")
	if err != nil {
		return err
	}
	signal := w[0]
	c := k.b.setup(signal)
	k.b.oneShot(c, signal, hostCell(signal))
	return nil
}

// oneShot is the single barrier of the barrier, allgather and all_to_all
// kernels with its epilogue: one credit per peer cell, taken back.
func (b *builder) oneShot(c comm, signal ir.Operand, at cell) {
	b.barrier(c, signal, at, idx(1))
	b.epilogue(c, signal, at, idx(1))
}

// hostAllreduce dispatches on mode.
func hostAllreduce(k *hostKernel, target, signal *ir.Var, tt *ir.DistributedTensor) error {
	if attrStr(k.op, "mode", "mesh") == "ring" {
		return hostAllreduceRing(k, target, signal, tt)
	}
	return hostAllreduceMesh(k, target, signal, tt)
}

// hostAllreduceMesh is the kernel one block of the core_num-block grid
// runs. Block b owns lane b of every rank's signal row: a ready barrier on
// it, then the 256-element tiles b, b+core_num, b+2*core_num, ...
// (block-cyclic); each tile is reduced over every rank, followed by a
// read-done barrier on the lane (>= 2, 3, ... per tile of this block), then
// stored. A block with no tile still joins the ready barrier. The epilogue
// takes back the lane's read_done_expected - 1 credits.
func hostAllreduceMesh(k *hostKernel, target, signal *ir.Var, tt *ir.DistributedTensor) error {
	b := k.b
	reduce, ok := reduceOps[attrEnum(k.op, "op")]
	if !ok {
		return b.errorf("op=%s is not a pld.ReduceOp (the checker should have rejected it)", attrEnum(k.op, "op"))
	}
	st := dist(signal)
	cores := attrInt(k.op, "core_num", 1)
	// A lane per block: block b of rank r signals cell r*stride + b. The
	// checker ensures stride >= core_num, so every block is active.
	if cores > 1 && (len(st.Shape) != 2 || !st.Shape[1].IsStatic() || st.Shape[1].N < cores) {
		return b.errorf("core_num=%d needs a [ws, stride >= %d] signal, got %s (the checker should have rejected it)", cores, cores, st)
	}
	c := b.setup(target)
	var blk ir.Operand = idx(0)
	if cores > 1 {
		blk = b.value(b.newVar("block", index), ir.OpBlockIdx, nil)
	}
	at := laneCell(signal, blk)
	flat, n, err := b.flatten(target, tt)
	if err != nil {
		return err
	}
	width, tile := hostTiles(n, tt.DType)

	b.barrier(c, signal, at, idx(1))
	expected := b.counter("read_done_expected", 2)
	b.loop("base", b.mul(blk, idx(hostTile)), n, idx(cores*hostTile), func(lb *builder, base *ir.Var) {
		r := tileRegion(base, width, lb.tileValid(n, base, width))
		acc := lb.load(lb.newVar("acc", tile), flat, r)
		lb.loop("peer", idx(0), c.nranks, idx(1), func(pb *builder, peer *ir.Var) {
			pb.when(pb.cmp(ir.Ne, peer, c.me), func(t *builder) {
				recv := t.remoteLoad(t.newVar("recv", tile), flat, peer, r)
				t.value(acc, reduce, nil, acc, recv)
			})
		})
		lb.countedBarrier(c, signal, at, expected)
		lb.store(flat, acc, r)
	})
	b.epilogue(c, signal, at, b.named("barrier_count", ir.Sub, expected, idx(1)))
	return nil
}

// hostAllreduceRing: the payload in NR equal chunks (the checker ensures
// N divides by NR). Reduce-scatter steps t = 1..P-1 barrier on row t-1 and
// add the left neighbour's chunk (me - t - 1) into the own; all-gather
// steps barrier on row P-1+t-1 and copy the left neighbour's chunk (me - t);
// a last barrier on row 2(P-1) keeps any rank from returning while a peer
// still reads from it. Every row is used once: AtomicAdd 1, wait >= 1; the
// epilogue takes 1 back from every peer cell of the 2(P-1)+1 rows.
func hostAllreduceRing(k *hostKernel, target, signal *ir.Var, tt *ir.DistributedTensor) error {
	b := k.b
	st := dist(signal)
	total, ok := tt.Shape.NumElems()
	p := int64(k.prog.Ranks)
	if len(st.Shape) == 2 && st.Shape[1].IsStatic() {
		p = st.Shape[1].N
	}
	if !ok || p <= 0 || total%p != 0 {
		return b.errorf("ring needs a static target whose %d elements divide by %d ranks (the checker should have rejected it)", total, p)
	}
	chunk := total / p
	width := min(chunk, hostTile)
	tile := rowTile(width, tt.DType)

	c := b.setup(target)
	flat, _, err := b.flatten(target, tt)
	if err != nil {
		return err
	}
	left := b.named("left", ir.Mod, b.add(b.minus(c.me, idx(1)), c.nranks), c.nranks)
	nr1 := b.named("nr_minus_one", ir.Sub, c.nranks, idx(1))

	// step walks chunk idx(t) in tiles after the barrier on row(t).
	step := func(name string, row func(*builder, ir.Operand) ir.Operand, back int64, reduceStep bool) {
		b.loop(name+"_step", idx(1), c.nranks, idx(1), func(sb *builder, t *ir.Var) {
			sb.barrier(c, signal, rowCell(row(sb, t)), idx(1))
			ch := sb.named(name+"_chunk_idx", ir.Mod, sb.add(sb.minus(sb.minus(c.me, t), idx(back)), c.nranks), c.nranks)
			sb.loop("off", idx(0), idx(chunk), idx(width), func(tb *builder, off *ir.Var) {
				r := tileRegion(tb.add(tb.mul(ch, idx(chunk)), off), width, tb.tileValid(idx(chunk), off, width))
				recv := tb.remoteLoad(tb.newVar("recv", tile), flat, left, r)
				if reduceStep {
					acc := tb.load(tb.newVar("acc", tile), flat, r)
					tb.value(acc, ir.OpAdd, nil, acc, recv)
					tb.store(flat, acc, r)
				} else {
					tb.store(flat, recv, r)
				}
			})
		})
	}
	step("rs", func(sb *builder, t ir.Operand) ir.Operand { return sb.named("rs_round", ir.Sub, t, idx(1)) }, 1, true)
	step("ag", func(sb *builder, t ir.Operand) ir.Operand {
		return sb.named("ag_round", ir.Sub, sb.add(nr1, t), idx(1))
	}, 0, false)
	last := b.named("return_round", ir.Mul, idx(2), nr1)
	b.barrier(c, signal, rowCell(last), idx(1))
	rounds := b.named("expected_rounds", ir.Add, last, idx(1))
	b.loop("reset_round", idx(0), rounds, idx(1), func(rb *builder, row *ir.Var) {
		rb.epilogue(c, signal, rowCell(row), idx(1))
	})
	return nil
}

// hostBroadcast: for every 256-element tile, root re-copies its own tile,
// then a barrier (>= 1, 2, 3, ... per tile), then every other rank copies
// root's tile into its own; the epilogue takes back the one credit per
// tile. Upstream's commit message (9533ae36b) also announces a final
// read-complete round, but its kernel, there and at e2d0f78ae, has none
// (its comment says a one-sided round deadlocked on silicon), and neither
// has this lowering. The emulator needs none either: the host joins every
// rank at the end of each dispatch loop (pld-spec §5.2), so no call or
// kernel after this one can touch root's window while a peer still copies
// the last tile.
func hostBroadcast(k *hostKernel, target, signal *ir.Var, tt *ir.DistributedTensor) error {
	b := k.b
	root := idx(attrInt(k.op, "root", 0))
	c := b.setup(target)
	flat, n, err := b.flatten(target, tt)
	if err != nil {
		return err
	}
	width, tile := hostTiles(n, tt.DType)
	at := hostCell(signal)
	expected := b.counter("expected", 1)
	b.loop("base", idx(0), n, idx(hostTile), func(lb *builder, base *ir.Var) {
		r := tileRegion(base, width, lb.tileValid(n, base, width))
		lb.when(lb.cmp(ir.Eq, c.me, root), func(t *builder) {
			stage := t.load(t.newVar("stage", tile), flat, r)
			t.store(flat, stage, r)
		})
		lb.countedBarrier(c, signal, at, expected)
		lb.when(lb.cmp(ir.Ne, c.me, root), func(t *builder) {
			recv := t.remoteLoad(t.newVar("recv", tile), flat, root, r)
			t.store(flat, recv, r)
		})
	})
	b.epilogue(c, signal, at, b.named("tiles", ir.Sub, expected, idx(1)))
	return nil
}

// hostReduceScatter, as HEAD's kernel: a ready barrier (>= 1), then rank r
// walks its own row r in 256-element tiles, adding every peer's row r into
// it, and stores each tile; a read-complete barrier (>= 2) keeps it from
// returning while a peer still reads its row; the epilogue takes back the
// 2 credits. Rank r writes only row r of its own window and reads only row
// r of its peers', so the stores need no barrier of their own; rows other
// than r keep what they held.
func hostReduceScatter(k *hostKernel, target, signal *ir.Var, tt *ir.DistributedTensor) error {
	b := k.b
	if len(tt.Shape) < 2 {
		return b.errorf("target %s is not [NR, SIZE] (the checker should have rejected it)", tt)
	}
	c := b.setup(target)
	flat, _, err := b.flatten(target, tt)
	if err != nil {
		return err
	}
	rowElems := dimOperand(tt.Shape[len(tt.Shape)-1])
	width, tile := hostTiles(rowElems, tt.DType)
	at := hostCell(signal)
	b.barrier(c, signal, at, idx(1))
	myRow := b.named("my_row", ir.Mul, c.me, rowElems)
	b.loop("off", idx(0), rowElems, idx(hostTile), func(lb *builder, off *ir.Var) {
		r := tileRegion(lb.add(myRow, off), width, lb.tileValid(rowElems, off, width))
		acc := lb.load(lb.newVar("acc", tile), flat, r)
		lb.loop("peer", idx(0), c.nranks, idx(1), func(pb *builder, peer *ir.Var) {
			pb.when(pb.cmp(ir.Ne, peer, c.me), func(t *builder) {
				recv := t.remoteLoad(t.newVar("recv", tile), flat, peer, r)
				t.value(acc, ir.OpAdd, nil, acc, recv)
			})
		})
		lb.store(flat, acc, r)
	})
	b.barrier(c, signal, at, idx(2))
	b.epilogue(c, signal, at, idx(2))
	return nil
}

// hostPush is allgather and all_to_all: for every dest, this rank included,
// put a row of the source window (row 0 for allgather, row dest for
// all_to_all) into row my_rank of dest's target, in tiles of
// min(SIZE, 256); then the barrier and its epilogue.
func hostPush(k *hostKernel) error {
	b := k.b
	srcName, allToAll := "local_data", k.op.Kind() == ir.OpAllToAll
	if allToAll {
		srcName = "input"
	}
	w, err := k.windows(srcName, "target", "signal")
	if err != nil {
		return err
	}
	src, target, signal := w[0], w[1], w[2]
	tt := dist(target)
	if len(tt.Shape) != 2 {
		return b.errorf("target %s is not [NR, SIZE] (the checker should have rejected it)", tt)
	}
	size := dimOperand(tt.Shape[1])
	width := int64(hostTile)
	if s, ok := constOf(size); ok && s < hostTile {
		width = s
	}
	c := b.setup(target)
	b.loop("dest", idx(0), c.nranks, idx(1), func(db *builder, dest *ir.Var) {
		var srcRow ir.Operand = idx(0)
		if allToAll {
			srcRow = dest
		}
		db.loop("base", idx(0), size, idx(width), func(lb *builder, base *ir.Var) {
			n := lb.tileValid(size, base, width)
			lb.op(ir.OpPut, putAttrs, target, dest, src, list(c.me, base), list(srcRow, base), list(idx(1), n))
		})
	})
	b.oneShot(c, signal, hostCell(signal))
	return nil
}

// hostAllToAllV: the same push as the InCore form, with MAX_RECV from the
// rank count, then the barrier and its epilogue.
func hostAllToAllV(k *hostKernel) error {
	b := k.b
	w, err := k.windows("input", "send_counts", "target", "signal", "recv_counts")
	if err != nil {
		return err
	}
	src, counts, target, signal, recvCounts := w[0], w[1], w[2], w[3], w[4]
	tt := dist(target)
	maxRecv, err := b.maxRecv(tt, ir.ConstDim(int64(k.prog.Ranks)))
	if err != nil {
		return err
	}
	c := b.setup(target)
	b.exchangeV(c, src, counts, target, tt, recvCounts, hostCell(recvCounts), maxRecv)
	b.oneShot(c, signal, hostCell(signal))
	return nil
}
