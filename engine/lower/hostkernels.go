package lower

import (
	"pldworkbench/engine/ir"
)

// The bodies of the HOST builtin kernels (pld-spec §4.8.3), one function
// per builtin. They work in tiles of 256 elements and signal without an
// epilogue.

func (k *hostKernel) window(name string) (*ir.Var, *ir.DistributedTensor, error) {
	v := k.param[name]
	if v == nil {
		return nil, nil, k.b.errorf("has no %s operand (the checker should have rejected it)", name)
	}
	return v, v.Type.(*ir.DistributedTensor), nil
}

// hostTileWidth is the width of the tiles a kernel walks an n-element
// stream in: 256, or for a smaller static stream the 32-byte-aligned width
// that covers it.
func hostTileWidth(n ir.Operand, d ir.DType) int64 {
	if nc, ok := constOf(n); ok && nc > 0 && nc < hostTile {
		return roundUp(nc, alignElems(d))
	}
	return hostTile
}

// tileValid returns how many elements of the tile at base are real:
// min(width, n - base), folded to width when every tile is full.
func (b *builder) tileValid(n, base ir.Operand, width int64) ir.Operand {
	if nc, ok := constOf(n); ok && nc%width == 0 {
		return idx(width)
	}
	return b.minOf("chunk", idx(width), b.minus(n, base))
}

// counter declares an INDEX variable starting at v, bumped with step.
func (b *builder) counter(hint string, v int64) *ir.Var {
	c := b.newVar(hint, index)
	b.assign(c, idx(v))
	return c
}

func (b *builder) bump(c *ir.Var) { b.bin(c, ir.Add, c, idx(1)) }

// hostBarrier: Set 1 into every peer's cell, wait for every cell >= 1.
func hostBarrier(k *hostKernel) error {
	signal, _, err := k.window("signal")
	if err != nil {
		return err
	}
	c := k.b.setup(signal)
	k.b.setBarrier(c, signal, hostCell(signal))
	return nil
}

// hostAllreduce dispatches on mode.
func hostAllreduce(k *hostKernel) error {
	if attrStr(k.op, "mode", "mesh") == "ring" {
		return hostAllreduceRing(k)
	}
	return hostAllreduceMesh(k)
}

// hostAllreduceMesh is the kernel one block of the core_num-block grid
// runs. Block b owns lane b of every rank's signal row: a ready barrier on
// it, then the 256-element tiles b, b+core_num, b+2*core_num, ...
// (block-cyclic); each tile is reduced over every rank, followed by a
// read-done barrier on the lane (>= 2, 3, ... per tile of this block), then
// stored. A block with no tile still joins the ready barrier.
func hostAllreduceMesh(k *hostKernel) error {
	b := k.b
	reduce, ok := reduceOps[attrEnum(k.op, "op")]
	if !ok {
		return b.errorf("op=%s is not a pld.ReduceOp (the checker should have rejected it)", attrEnum(k.op, "op"))
	}
	target, tt, err := k.window("target")
	if err != nil {
		return err
	}
	signal, st, err := k.window("signal")
	if err != nil {
		return err
	}
	cores := attrInt(k.op, "core_num", 1)
	// A lane per block: block b of rank r signals cell r*stride + b. The
	// checker ensures stride >= core_num, so every block is active.
	if cores > 1 && (len(st.Shape) != 2 || !st.Shape[1].IsStatic() || st.Shape[1].N < cores) {
		return b.errorf("core_num=%d needs a [ws, stride >= %d] signal, got %s (the checker should have rejected it)", cores, cores, st)
	}
	c := b.setup(target)
	var blk ir.Operand = idx(0)
	if cores > 1 {
		blk = b.value(b.newVar("block", index), ir.BlockIdxOp, nil)
	}
	at := laneCell(signal, blk)
	flat, n, err := b.flatten(target, tt)
	if err != nil {
		return err
	}
	width := hostTileWidth(n, tt.DType)
	tile := &ir.Tile{Shape: ir.ConstShape(1, width), DType: tt.DType}

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
		lb.barrier(c, signal, at, expected)
		lb.bump(expected)
		lb.store(flat, acc, r)
	})
	return nil
}

// hostAllreduceRing: the payload in NR equal chunks (the checker ensures
// N divides by NR). Reduce-scatter steps t = 1..P-1 barrier on row t-1 and
// add the left neighbour's chunk (me - t - 1) into the own; all-gather
// steps barrier on row P-1+t-1 and copy the left neighbour's chunk (me - t);
// a last barrier on row 2(P-1) keeps any rank from returning while a peer
// still reads from it. Every row is used once: AtomicAdd 1, wait >= 1.
func hostAllreduceRing(k *hostKernel) error {
	b := k.b
	target, tt, err := k.window("target")
	if err != nil {
		return err
	}
	signal, st, err := k.window("signal")
	if err != nil {
		return err
	}
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
	tile := &ir.Tile{Shape: ir.ConstShape(1, width), DType: tt.DType}

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
					tb.value(acc, "pl.add", nil, acc, recv)
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
	b.barrier(c, signal, rowCell(b.named("return_round", ir.Mul, idx(2), nr1)), idx(1))
	return nil
}

// hostBroadcast: for every 256-element tile, root re-copies its own tile,
// then a barrier (>= 1, 2, 3, ... per tile), then every other rank copies
// root's tile into its own.
func hostBroadcast(k *hostKernel) error {
	b := k.b
	target, tt, err := k.window("target")
	if err != nil {
		return err
	}
	signal, _, err := k.window("signal")
	if err != nil {
		return err
	}
	root := idx(attrInt(k.op, "root", 0))
	c := b.setup(target)
	flat, n, err := b.flatten(target, tt)
	if err != nil {
		return err
	}
	width := hostTileWidth(n, tt.DType)
	tile := &ir.Tile{Shape: ir.ConstShape(1, width), DType: tt.DType}
	at := hostCell(signal)
	expected := b.counter("expected", 1)
	b.loop("base", idx(0), n, idx(hostTile), func(lb *builder, base *ir.Var) {
		r := tileRegion(base, width, lb.tileValid(n, base, width))
		lb.when(lb.cmp(ir.Eq, c.me, root), func(t *builder) {
			stage := t.load(t.newVar("stage", tile), flat, r)
			t.store(flat, stage, r)
		})
		lb.barrier(c, signal, at, expected)
		lb.bump(expected)
		lb.when(lb.cmp(ir.Ne, c.me, root), func(t *builder) {
			recv := t.remoteLoad(t.newVar("recv", tile), flat, root, r)
			t.store(flat, recv, r)
		})
	})
	return nil
}

// hostReduceScatter: a ready barrier, then every 256-element tile of the
// whole [NR, SIZE] target summed over every rank (all rows, not only row
// my_rank), each followed by a read-done barrier (>= 2, 3, ...) and the
// store.
func hostReduceScatter(k *hostKernel) error {
	b := k.b
	target, tt, err := k.window("target")
	if err != nil {
		return err
	}
	signal, _, err := k.window("signal")
	if err != nil {
		return err
	}
	c := b.setup(target)
	flat, n, err := b.flatten(target, tt)
	if err != nil {
		return err
	}
	width := hostTileWidth(n, tt.DType)
	tile := &ir.Tile{Shape: ir.ConstShape(1, width), DType: tt.DType}
	at := hostCell(signal)
	b.barrier(c, signal, at, idx(1))
	expected := b.counter("read_done_expected", 2)
	b.loop("base", idx(0), n, idx(hostTile), func(lb *builder, base *ir.Var) {
		r := tileRegion(base, width, lb.tileValid(n, base, width))
		acc := lb.load(lb.newVar("acc", tile), flat, r)
		lb.loop("peer", idx(0), c.nranks, idx(1), func(pb *builder, peer *ir.Var) {
			pb.when(pb.cmp(ir.Ne, peer, c.me), func(t *builder) {
				recv := t.remoteLoad(t.newVar("recv", tile), flat, peer, r)
				t.value(acc, "pl.add", nil, acc, recv)
			})
		})
		lb.barrier(c, signal, at, expected)
		lb.bump(expected)
		lb.store(flat, acc, r)
	})
	return nil
}

// hostPush is allgather and all_to_all: for every dest, this rank included,
// put a row of the source window (row 0 for allgather, row dest for
// all_to_all) into row my_rank of dest's target, in tiles of
// min(SIZE, 256); then the Set/Ge barrier.
func hostPush(k *hostKernel) error {
	b := k.b
	srcName, allToAll := "local_data", k.op.Name == "pld.tensor.all_to_all"
	if allToAll {
		srcName = "input"
	}
	src, _, err := k.window(srcName)
	if err != nil {
		return err
	}
	target, tt, err := k.window("target")
	if err != nil {
		return err
	}
	signal, _, err := k.window("signal")
	if err != nil {
		return err
	}
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
			lb.op("pld.tensor.put", putAttrs, target, dest, src, list(c.me, base), list(srcRow, base), list(idx(1), n))
		})
	})
	b.setBarrier(c, signal, hostCell(signal))
	return nil
}

// hostAllToAllV: the same push as the InCore form, with MAX_RECV from the
// rank count, then the Set/Ge barrier.
func hostAllToAllV(k *hostKernel) error {
	b := k.b
	src, _, err := k.window("input")
	if err != nil {
		return err
	}
	counts, _, err := k.window("send_counts")
	if err != nil {
		return err
	}
	target, tt, err := k.window("target")
	if err != nil {
		return err
	}
	signal, _, err := k.window("signal")
	if err != nil {
		return err
	}
	recvCounts, _, err := k.window("recv_counts")
	if err != nil {
		return err
	}
	maxRecv, err := b.maxRecv(tt, ir.ConstDim(int64(k.prog.Ranks)))
	if err != nil {
		return err
	}
	c := b.setup(target)
	b.exchangeV(c, src, counts, target, tt, recvCounts, hostCell(recvCounts), maxRecv)
	b.setBarrier(c, signal, hostCell(signal))
	return nil
}
