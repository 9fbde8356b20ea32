package lower

import (
	"pldworkbench/engine/ir"
)

// The InCore allreduce composite in its two modes (pld-spec §4.8.2).

func lowerAllreduce(b *builder, op *ir.Op) error {
	if n := attrInt(op, "core_num", 1); n != 1 {
		return b.errorf("core_num=%d in a kernel (the checker should have rejected it)", n)
	}
	reduce, ok := reduceOps[attrEnum(op, "op")]
	if !ok {
		return b.errorf("op=%s is not a pld.ReduceOp (the checker should have rejected it)", attrEnum(op, "op"))
	}
	target, tt, err := b.windowArg(op, "target")
	if err != nil {
		return err
	}
	if arg(op, "signal") == nil {
		return b.errorf("in a kernel needs an explicit signal (the checker should have rejected it)")
	}
	signal, st, err := b.windowArg(op, "signal")
	if err != nil {
		return err
	}
	switch mode := attrStr(op, "mode", "mesh"); mode {
	case "mesh":
		return b.meshAllreduce(target, tt, signal, reduce)
	case "ring":
		return b.ringAllreduce(target, tt, signal, st, reduce)
	default:
		return b.errorf("mode=%q is not a collective mode (the checker should have rejected it)", mode)
	}
}

// meshAllreduce: a ready barrier (generation 1); then, one chunk of at most
// 16 KiB at a time, the own chunk reduced with every peer's same chunk, a
// barrier (generation 2 + chunk) so that no rank overwrites a chunk a slow
// peer has not read yet, and the store; the epilogue subtracts the
// 1 + chunk_count credits of the call.
func (b *builder) meshAllreduce(target *ir.Var, tt *ir.DistributedTensor, signal *ir.Var, reduce ir.OpKind) error {
	c := b.setup(target)
	flat, n, err := b.flatten(target, tt)
	if err != nil {
		return err
	}
	width := int64(chunkBytes / tt.DType.Bytes())
	nc, static := constOf(n)
	if static && nc > 0 && nc < width {
		// A small allreduce does not reserve a 16 KiB tile: the smallest
		// 32-byte-aligned width that covers it.
		width = roundUp(nc, alignElems(tt.DType))
	}
	tile := rowTile(width, tt.DType)

	b.barrier(c, signal, meshCell, idx(1))
	b.loop("col", idx(0), n, idx(width), func(cb *builder, col *ir.Var) {
		var valid ir.Operand = idx(width)
		if !static || nc%width != 0 {
			valid = cb.minOf("valid", idx(width), cb.minus(n, col))
		}
		r := tileRegion(col, width, valid)
		acc := cb.load(cb.newVar("acc", tile), flat, r)
		cb.loop("peer", idx(0), c.nranks, idx(1), func(pb *builder, peer *ir.Var) {
			pb.when(pb.cmp(ir.Ne, peer, c.me), func(t *builder) {
				recv := t.remoteLoad(t.newVar("recv", tile), flat, peer, r)
				t.value(acc, reduce, nil, acc, recv)
			})
		})
		expected := cb.named("chunk_expected", ir.Add, cb.div(col, idx(width)), idx(2))
		cb.barrier(c, signal, meshCell, expected)
		cb.store(flat, acc, r)
	})
	b.epilogue(c, signal, meshCell, b.add(idx(1), b.ceilDiv(n, width)))
	return nil
}

// ringAllreduce: P-1 reduce-scatter rounds then P-1 all-gather rounds over
// segments [floor(i*N/NR), floor((i+1)*N/NR)) of the [1, N] stream (NR is
// the signal's column count, so N need not divide by it). Each round walks
// its segment in sub-chunks; every sub-chunk is bracketed by a ready and a
// read-done barrier of all ranks on the round's signal row. The epilogue
// subtracts 2*chunk_count from every cell of every row.
func (b *builder) ringAllreduce(target *ir.Var, tt *ir.DistributedTensor, signal *ir.Var, st *ir.DistributedTensor, reduce ir.OpKind) error {
	if len(st.Shape) != 2 {
		return b.errorf("mode=\"ring\" signal %s is not [2*(NR-1), NR] (the checker should have rejected it)", st)
	}
	c := b.setup(target)
	flat, n, err := b.flatten(target, tt)
	if err != nil {
		return err
	}
	nr := dimOperand(st.Shape[1])
	fp16 := tt.DType == ir.FP16
	align := alignElems(tt.DType)

	// The longest segment bounds every round's sub-chunk loop. FP16 rounds
	// interior boundaries up to 32 bytes, which can lengthen a segment by
	// up to align-1 elements.
	var maxSeg ir.Operand
	nc, nStatic := constOf(n)
	if pc, pStatic := constOf(nr); nStatic && pStatic && pc > 0 {
		ms := (nc + pc - 1) / pc
		if fp16 {
			ms = min(nc, ms+align-1)
		}
		maxSeg = idx(ms)
	} else {
		maxSeg = b.div(b.add(n, b.minus(nr, idx(1))), nr)
		if fp16 {
			maxSeg = b.minOf("max_segment", n, b.add(maxSeg, idx(align-1)))
		}
	}
	width := int64(chunkBytes / tt.DType.Bytes())
	if ms, ok := constOf(maxSeg); ok && ms > 0 && ms < width {
		width = roundUp(ms, align)
	}
	chunkCount := b.ceilDiv(maxSeg, width)
	tile := rowTile(width, tt.DType)

	// boundary binds to hint where segment i starts.
	boundary := func(sb *builder, hint string, i ir.Operand) ir.Operand {
		scaled := sb.mul(i, n)
		if !fp16 {
			return sb.named(hint, ir.FloorDiv, scaled, nr)
		}
		den := sb.mul(nr, idx(align))
		up := sb.mul(sb.div(sb.add(scaled, sb.minus(den, idx(1))), den), idx(align))
		return sb.minOf(hint, up, n)
	}

	nr1 := b.named("nr_minus_one", ir.Sub, c.nranks, idx(1))
	left := b.named("left", ir.Mod, b.add(b.minus(c.me, idx(1)), c.nranks), c.nranks)

	// round emits one phase: P-1 steps, step s on signal row row(s) moving
	// segment seg(s). The reduce-scatter step adds the left neighbour's
	// segment into its own; the all-gather step copies it.
	round := func(name string, row func(*builder, ir.Operand) ir.Operand, back int64, reduceStep bool) {
		b.loop(name+"_step", idx(0), nr1, idx(1), func(sb *builder, s *ir.Var) {
			rowv := row(sb, s)
			// Segment (my_rank - s - back + nranks) % nranks.
			seg := sb.named(name+"_segment_idx", ir.Mod, sb.add(sb.minus(sb.minus(c.me, s), idx(back)), c.nranks), c.nranks)
			begin := boundary(sb, name+"_segment_begin", seg)
			end := boundary(sb, name+"_segment_end", sb.add(seg, idx(1)))
			cols := sb.named(name+"_segment_cols", ir.Sub, end, begin)
			at := rowCell(rowv)
			sb.loop(name+"_col", idx(0), maxSeg, idx(width), func(kb *builder, sub *ir.Var) {
				ready := kb.named(name+"_ready_epoch", ir.Add, kb.mul(kb.div(sub, idx(width)), idx(2)), idx(1))
				kb.barrier(c, signal, at, ready)
				active := kb.cmp(ir.Lt, sub, cols)
				valid := kb.minOf("valid", idx(width), kb.minus(cols, sub))
				r := tileRegion(kb.add(begin, sub), width, valid)
				val := kb.newVar(name+"_tile", tile)
				kb.ifElse(active, func(t *builder) {
					if reduceStep {
						recv := t.remoteLoad(t.newVar("recv", tile), flat, left, r)
						t.load(val, flat, r)
						t.value(val, reduce, nil, val, recv)
					} else {
						t.remoteLoad(val, flat, left, r)
					}
				}, func(e *builder) {
					// An empty segment (N < NR) still joins both barriers;
					// it loads one in-bounds element so the tile is defined
					// on both branches, and stores nothing.
					e.load(val, flat, tileRegion(idx(0), width, idx(1)))
				})
				read := kb.named(name+"_read_epoch", ir.Add, ready, idx(1))
				kb.barrier(c, signal, at, read)
				kb.when(active, func(t *builder) { t.store(flat, val, r) })
			})
		})
	}
	round("rs", func(_ *builder, s ir.Operand) ir.Operand { return s }, 2, true)
	round("ag", func(sb *builder, s ir.Operand) ir.Operand { return sb.named("ag_round", ir.Add, s, nr1) }, 1, false)

	total := b.neg(b.mul(idx(2), chunkCount))
	b.loop("reset_row", idx(0), dimOperand(st.Shape[0]), idx(1), func(rb *builder, row *ir.Var) {
		rb.loop("reset_src", idx(0), c.nranks, idx(1), func(lb *builder, src *ir.Var) {
			lb.when(lb.cmp(ir.Ne, src, c.me), func(t *builder) {
				t.op(ir.OpNotify, []ir.Attr{notifyAdd}, signal, c.me, list(row, src), total)
			})
		})
	})
	return nil
}
