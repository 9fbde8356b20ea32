package lower

import (
	"pldworkbench/engine/ir"
)

// The incore-collectives pass (upstream LowerCompositeOps): every
// pld.tensor.* collective called in an InCore kernel becomes, in place, the
// notify/wait/remote_load/put/get program of pld-spec §4.8.2. Each one
// starts with its own comm preamble, synchronizes with the self-clearing
// credit barrier and ends with its epilogue, so the signal is all zero again
// afterwards and can serve the next call, back to back or in a loop.

// rule lowers one builtin. returns names the parameter the call evaluates
// to (its target, or the signal for barrier): the caller's rebind
// "data = pld.tensor.allreduce(data, ...)" becomes an assignment from it.
type rule struct {
	returns string
	lower   func(b *builder, op *ir.Op) error
}

// incoreRules is the table of InCore composites.
var incoreRules = map[ir.OpKind]rule{
	ir.OpBarrier:       {"signal", lowerBarrier},
	ir.OpAllreduce:     {"target", lowerAllreduce},
	ir.OpBroadcast:     {"target", lowerBroadcast},
	ir.OpAllgather:     {"target", lowerAllgather},
	ir.OpReduceScatter: {"target", lowerReduceScatter},
	ir.OpAllToAll:      {"target", lowerAllToAll},
	ir.OpAllToAllV:     {"target", lowerAllToAllV},
}

func lowerInCore(p *ir.Program) (*ir.Program, error) {
	for _, f := range p.Funcs {
		if f.Level != ir.InCore {
			continue
		}
		names := newNamer(f)
		err := expandOps(f.Body, func(op *ir.Op, out *ir.Block) (bool, error) {
			r, ok := incoreRules[op.Kind()]
			if !ok {
				return false, nil
			}
			b := newBuilder(names, out, op)
			if err := r.lower(b, op); err != nil {
				return true, err
			}
			b.rebind(op, r.returns)
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return p, nil
}

// rebind turns the value of the lowered call into an assignment of its
// result, unless the result is the operand itself (data = f(data, ...)).
func (b *builder) rebind(op *ir.Op, returns string) {
	v := arg(op, returns)
	if op.Result != nil && op.Result != v {
		b.assign(op.Result, v)
	}
}

// expandOps replaces, in b and every block nested in it, each Op for which
// expand reports true by the statements expand appended to out.
func expandOps(b *ir.Block, expand func(op *ir.Op, out *ir.Block) (bool, error)) error {
	if b == nil {
		return nil
	}
	stmts := make([]ir.Stmt, 0, len(b.Stmts))
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ir.For:
			if err := expandOps(s.Body, expand); err != nil {
				return err
			}
		case *ir.While:
			if err := expandOps(s.Body, expand); err != nil {
				return err
			}
		case *ir.If:
			if err := expandOps(s.Then, expand); err != nil {
				return err
			}
			if err := expandOps(s.Else, expand); err != nil {
				return err
			}
		case *ir.Op:
			out := &ir.Block{}
			done, err := expand(s, out)
			if err != nil {
				return err
			}
			if done {
				stmts = append(stmts, out.Stmts...)
				continue
			}
		}
		stmts = append(stmts, s)
	}
	b.Stmts = stmts
	return nil
}

// lowerBarrier: one credit-barrier generation and its epilogue (N = 1). The
// signal is all zero afterwards, so reading it shows no tally.
func lowerBarrier(b *builder, op *ir.Op) error {
	signal, _, err := b.windowArg(op, "signal")
	if err != nil {
		return err
	}
	c := b.setup(signal)
	b.barrier(c, signal, meshCell, idx(1))
	b.epilogue(c, signal, meshCell, idx(1))
	return nil
}

// lowerBroadcast: a barrier (root has staged its data), then every rank
// copies root's window into its own with get (on root a copy onto itself),
// then the epilogue (N = 1).
func lowerBroadcast(b *builder, op *ir.Op) error {
	w, err := b.windowArgs(op, "target", "signal")
	if err != nil {
		return err
	}
	target, signal := w[0], w[1]
	root := attrInt(op, "root", -1)
	if root < 0 {
		return b.errorf("has no root (the checker should have rejected it)")
	}
	c := b.setup(target)
	b.barrier(c, signal, meshCell, idx(1))
	b.op(ir.OpGet, getAttrs, target, idx(root), target)
	b.epilogue(c, signal, meshCell, idx(1))
	return nil
}

// lowerAllgather pushes: put local_data into row my_rank of every rank's
// target, this rank's own included; then a barrier and the epilogue (N = 1).
func lowerAllgather(b *builder, op *ir.Op) error {
	return lowerPushRows(b, op, "local_data", "peer", func(*ir.Var) ir.Operand { return idx(0) })
}

// lowerAllToAll pushes row dest of input into row my_rank of rank dest's
// target, for every dest including this rank; then a barrier and the
// epilogue (N = 1).
func lowerAllToAll(b *builder, op *ir.Op) error {
	return lowerPushRows(b, op, "input", "dest", func(dest *ir.Var) ir.Operand { return dest })
}

// lowerPushRows is the shape allgather and all_to_all share: for every rank
// (loop variable loopVar), put row srcRow(rank) of the operand srcArg into
// row my_rank of that rank's [NR, SIZE] target; then a barrier and the
// epilogue (N = 1).
func lowerPushRows(b *builder, op *ir.Op, srcArg, loopVar string, srcRow func(*ir.Var) ir.Operand) error {
	src, ok := arg(op, srcArg).(*ir.Var)
	if !ok {
		return b.errorf("has no %s operand (the checker should have rejected it)", srcArg)
	}
	target, signal, size, err := b.rowWindows(op)
	if err != nil {
		return err
	}
	c := b.setup(target)
	b.loop(loopVar, idx(0), c.nranks, idx(1), func(lb *builder, rank *ir.Var) {
		lb.op(ir.OpPut, putAttrs, target, rank, src, list(c.me, idx(0)), list(srcRow(rank), idx(0)), list(idx(1), size))
	})
	b.barrier(c, signal, meshCell, idx(1))
	b.epilogue(c, signal, meshCell, idx(1))
	return nil
}

// rowWindows returns the [NR, SIZE] target and the signal of an InCore row
// collective (allgather, all_to_all, reduce_scatter), and SIZE.
func (b *builder) rowWindows(op *ir.Op) (target, signal *ir.Var, size ir.Operand, err error) {
	w, err := b.windowArgs(op, "target", "signal")
	if err != nil {
		return nil, nil, nil, err
	}
	tt := dist(w[0])
	if len(tt.Shape) != 2 {
		return nil, nil, nil, b.errorf("target %s is not [NR, SIZE] (the checker should have rejected it)", tt)
	}
	return w[0], w[1], dimOperand(tt.Shape[1]), nil
}

// lowerReduceScatter: a ready barrier; row my_rank summed over every rank's
// copy; a second barrier so that no rank overwrites its row before every
// peer has read it; the store; the epilogue (N = 2). Sum only.
func lowerReduceScatter(b *builder, op *ir.Op) error {
	if r := attrEnum(op, "op"); r != "Sum" {
		return b.errorf("with op=%s: reduce_scatter sums only (the checker should have rejected it)", r)
	}
	target, signal, size, err := b.rowWindows(op)
	if err != nil {
		return err
	}
	tt := dist(target)
	tile := &ir.Tile{Shape: ir.Shape{ir.ConstDim(1), tt.Shape[1]}, DType: tt.DType}
	c := b.setup(target)
	row := list(c.me, idx(0))
	shape := list(idx(1), size)
	b.barrier(c, signal, meshCell, idx(1))
	acc := b.value(b.newVar("acc", tile), ir.OpLoad, nil, target, row, shape)
	b.loop("peer", idx(0), c.nranks, idx(1), func(lb *builder, peer *ir.Var) {
		lb.when(lb.cmp(ir.Ne, peer, c.me), func(t *builder) {
			recv := t.value(t.newVar("recv", tile), ir.OpRemoteLoad, nil, target, peer, row, shape)
			t.value(acc, ir.OpAdd, nil, acc, recv)
		})
	})
	b.barrier(c, signal, meshCell, idx(2))
	b.value(target, ir.OpStore, []ir.Attr{atomicNone}, acc, row, target)
	b.epilogue(c, signal, meshCell, idx(2))
	return nil
}

// lowerAllToAllV: for every dest, read how many rows this rank sends it
// (capped at MAX_RECV = target rows / NR), publish that count into dest's
// recv_counts[my_rank] with Set, and push the whole MAX_RECV-row block;
// then a barrier and the epilogue (N = 1).
func lowerAllToAllV(b *builder, op *ir.Op) error {
	src, ok := arg(op, "input").(*ir.Var)
	if !ok {
		return b.errorf("has no input operand (the checker should have rejected it)")
	}
	counts, ok := arg(op, "send_counts").(*ir.Var)
	if !ok {
		return b.errorf("has no send_counts operand (the checker should have rejected it)")
	}
	w, err := b.windowArgs(op, "target", "signal", "recv_counts")
	if err != nil {
		return err
	}
	target, signal, recvCounts := w[0], w[1], w[2]
	tt, st := dist(target), dist(signal)
	maxRecv, err := b.maxRecv(tt, st.Shape[0])
	if err != nil {
		return err
	}
	c := b.setup(target)
	b.exchangeV(c, src, counts, target, tt, recvCounts, meshCell, maxRecv)
	b.barrier(c, signal, meshCell, idx(1))
	b.epilogue(c, signal, meshCell, idx(1))
	return nil
}

// maxRecv returns MAX_RECV = target rows / NR for all_to_all_v, which
// needs both to be constants.
func (b *builder) maxRecv(tt *ir.DistributedTensor, nr ir.Dim) (int64, error) {
	if len(tt.Shape) != 2 || !tt.Shape[0].IsStatic() || !nr.IsStatic() || nr.N <= 0 || tt.Shape[0].N%nr.N != 0 {
		return 0, b.errorf("needs a [NR*MAX_RECV, SIZE] target with constant rows divisible by a constant NR, got %s for NR=%s", tt, nr)
	}
	return tt.Shape[0].N / nr.N, nil
}

// exchangeV is the push phase of all_to_all_v, shared by the InCore and
// HOST forms.
func (b *builder) exchangeV(c comm, src, counts, target *ir.Var, tt *ir.DistributedTensor, recvCounts *ir.Var, at cell, maxRecv int64) {
	cs, cd, _ := ir.ShapeOf(counts.Type)
	b.loop("dest", idx(0), c.nranks, idx(1), func(lb *builder, dest *ir.Var) {
		where := list(dest)
		if len(cs) == 2 {
			where = list(dest, idx(0))
		}
		count := lb.value(lb.newVar("count", &ir.Scalar{DType: cd}), ir.OpRead, nil, counts, where)
		rows := lb.minOf("rows", count, idx(maxRecv))
		lb.op(ir.OpNotify, []ir.Attr{notifySet}, recvCounts, dest, at(c.me), rows)
		lb.op(ir.OpPut, putAttrs, target, dest, src,
			list(lb.mul(c.me, idx(maxRecv)), idx(0)), list(lb.mul(dest, idx(maxRecv)), idx(0)),
			list(idx(maxRecv), dimOperand(tt.Shape[1])))
	})
}
