package lower

import (
	"pldworkbench/engine/check"
	"pldworkbench/engine/ir"
)

// This file holds what every lowering shares: the comm-context preamble,
// the cell addressing of each signal layout, and the signalling protocols
// (pld-spec §4.8.1): the credit barrier and the self-clearing epilogue,
// which the InCore composites and, since upstream 9533ae36b, the HOST
// builtins share.

// Enum members the lowerings emit; the values are the serialized ABI ints
// of pld-spec §4.1.
var (
	notifyAdd  = ir.Attr{Key: "op", Value: ir.EnumAttr{Type: "pld.NotifyOp", Member: "AtomicAdd", V: 0}}
	notifySet  = ir.Attr{Key: "op", Value: ir.EnumAttr{Type: "pld.NotifyOp", Member: "Set", V: 1}}
	waitGe     = ir.Attr{Key: "cmp", Value: ir.EnumAttr{Type: "pld.WaitCmp", Member: "Ge", V: 1}}
	atomicNone = ir.Attr{Key: "atomic", Value: ir.EnumAttr{Type: "pld.AtomicType", Member: "None_", V: 0}}
)

// The keyword attributes pld.tensor.put and get take, at their defaults.
var (
	putAttrs = []ir.Attr{atomicNone, {Key: "chunk_rows", Value: ir.IntAttr(0)}, {Key: "chunk_cols", Value: ir.IntAttr(0)}, {Key: "pipeline", Value: ir.BoolAttr(false)}}
	getAttrs = []ir.Attr{{Key: "chunk_rows", Value: ir.IntAttr(0)}, {Key: "chunk_cols", Value: ir.IntAttr(0)}, {Key: "pipeline", Value: ir.BoolAttr(false)}}
)

// reduceOps maps a pld.ReduceOp member to the element-wise tile operation
// that combines two partial results.
var reduceOps = map[string]ir.OpKind{
	"Sum":  ir.OpAdd,
	"Max":  ir.OpMaximum,
	"Min":  ir.OpMinimum,
	"Prod": ir.OpMul,
}

// comm is the preamble every lowering starts with: the comm context of a
// window, the run-time rank count and this rank's index. Loops run to the
// run-time nranks, never to the P the program was instantiated at.
type comm struct {
	ctx, nranks, me *ir.Var
}

func (b *builder) setup(window ir.Operand) comm {
	ctx := b.value(b.newVar("ctx", &ir.CommCtx{}), ir.OpGetCommCtx, nil, window)
	n := b.value(b.newVar("nranks", i32), ir.OpNRanks, nil, ctx)
	me := b.value(b.newVar("my_rank", i32), ir.OpRank, nil, ctx)
	return comm{ctx: ctx, nranks: n, me: me}
}

// cell addresses the signal cell that rank k owns in some row or lane.
type cell func(k ir.Operand) *ir.ListOp

// meshCell is CELL(k) = [k, 0] of an [NR, 1] signal.
func meshCell(k ir.Operand) *ir.ListOp { return list(k, idx(0)) }

// rowCell is CELL(k) = [row, k] of a ring signal's round row.
func rowCell(row ir.Operand) cell {
	return func(k ir.Operand) *ir.ListOp { return list(row, k) }
}

// hostCell addresses a HOST builtin's signal: [k] for a rank-1 [ws]
// window, [k, 0] for [ws, 1].
func hostCell(signal ir.Operand) cell {
	if s, _, _ := ir.ShapeOf(ir.TypeOf(signal)); len(s) == 1 {
		return func(k ir.Operand) *ir.ListOp { return list(k) }
	}
	return meshCell
}

// laneCell addresses lane (block) b of a HOST mesh allreduce signal: [k]
// for rank-1 (one lane), [k, b] for [ws, stride].
func laneCell(signal ir.Operand, b ir.Operand) cell {
	if s, _, _ := ir.ShapeOf(ir.TypeOf(signal)); len(s) == 1 {
		return func(k ir.Operand) *ir.ListOp { return list(k) }
	}
	return func(k ir.Operand) *ir.ListOp { return list(k, b) }
}

// notifyAll tells every other rank, in its copy of signal, that this rank
// arrived: notify(signal, peer, cell(me), value, op) for peer != me.
func (b *builder) notifyAll(c comm, signal ir.Operand, at cell, value ir.Operand, op ir.Attr) {
	b.loop("peer", idx(0), c.nranks, idx(1), func(lb *builder, peer *ir.Var) {
		lb.when(lb.cmp(ir.Ne, peer, c.me), func(t *builder) {
			t.op(ir.OpNotify, []ir.Attr{op}, signal, peer, at(c.me), value)
		})
	})
}

// waitAll waits until every other rank's cell in the local signal reaches
// expected.
func (b *builder) waitAll(c comm, signal ir.Operand, at cell, expected ir.Operand) {
	b.loop("src", idx(0), c.nranks, idx(1), func(lb *builder, src *ir.Var) {
		lb.when(lb.cmp(ir.Ne, src, c.me), func(t *builder) {
			t.op(ir.OpWait, []ir.Attr{waitGe}, signal, at(src), expected)
		})
	})
}

// barrier is one generation of the credit barrier: AtomicAdd +1 into every
// peer's cell, then wait for every peer's cell to reach expected (Ge, since
// a fast peer may already be a credit ahead).
func (b *builder) barrier(c comm, signal ir.Operand, at cell, expected ir.Operand) {
	b.notifyAll(c, signal, at, idx(1), notifyAdd)
	b.waitAll(c, signal, at, expected)
}

// neg returns -x.
func (b *builder) neg(x ir.Operand) ir.Operand {
	if n, ok := constOf(x); ok {
		return idx(-n)
	}
	res := b.temp(index)
	b.emit(&ir.Unary{Op: ir.Neg, X: x, Result: res, Site: b.site})
	return res
}

// epilogue is the self-clearing reset that ends every collective: each
// rank subtracts, from its own copy, the total credit every peer added
// during the call (a self-notify). Adds commute, so once every rank has run
// it the signal is all zero again and the next call starts at generation 1.
func (b *builder) epilogue(c comm, signal ir.Operand, at cell, total ir.Operand) {
	minus := b.neg(total)
	b.loop("reset_src", idx(0), c.nranks, idx(1), func(lb *builder, src *ir.Var) {
		lb.when(lb.cmp(ir.Ne, src, c.me), func(t *builder) {
			t.op(ir.OpNotify, []ir.Attr{notifyAdd}, signal, c.me, at(src), minus)
		})
	})
}

// arg returns the operand passed as parameter name of op.
func arg(op *ir.Op, name string) ir.Operand { return check.OpArg(op, name) }

// windowArg returns the window operand name of op; the checker guarantees
// every collective's target and signal is a pld.DistributedTensor variable.
func (b *builder) windowArg(op *ir.Op, name string) (*ir.Var, *ir.DistributedTensor, error) {
	v, ok := arg(op, name).(*ir.Var)
	if !ok {
		return nil, nil, b.errorf("has no %s operand (the checker should have rejected it)", name)
	}
	t, ok := v.Type.(*ir.DistributedTensor)
	if !ok {
		return nil, nil, b.errorf("%s is %s, want a pld.DistributedTensor (the checker should have rejected it)", name, v.Type)
	}
	return v, t, nil
}

// windowArgs is windowArg for several operands, in the order given; the
// first one missing or not a window is the error. dist gives each one's type.
func (b *builder) windowArgs(op *ir.Op, names ...string) ([]*ir.Var, error) {
	vs := make([]*ir.Var, len(names))
	for i, name := range names {
		v, _, err := b.windowArg(op, name)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return vs, nil
}

// dist is the type of a window operand windowArgs or windows returned.
func dist(v *ir.Var) *ir.DistributedTensor { return v.Type.(*ir.DistributedTensor) }

func attrEnum(op *ir.Op, key string) string {
	if e, ok := op.Attr(key).(ir.EnumAttr); ok {
		return e.Member
	}
	return ""
}

func attrStr(op *ir.Op, key, def string) string {
	if s, ok := op.Attr(key).(ir.StrAttr); ok {
		return string(s)
	}
	return def
}

func attrInt(op *ir.Op, key string, def int64) int64 {
	if n, ok := op.Attr(key).(ir.IntAttr); ok {
		return int64(n)
	}
	return def
}

// dimOperand is a dimension as an operand: its constant, or a reference to
// its pl.dynamic symbol.
func dimOperand(d ir.Dim) ir.Operand {
	if d.IsStatic() {
		return idx(d.N)
	}
	return &ir.SymRef{Name: d.Sym}
}
