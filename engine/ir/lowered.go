package ir

import (
	"fmt"
	"strconv"
)

// This file holds what only lowered programs contain: the origin every
// emitted statement carries, and the few primitive operations the IR itself
// defines because no DSL call produces them.
//
// A lowering pass (package lower) replaces a builtin collective such as
// pld.tensor.allreduce with the notify/wait/remote_load program the compiler
// would emit. Every statement it emits records the call it came from, so the
// printer can annotate it ("# from pld.tensor.allreduce (line 42)") and a
// learner can put the lowered builtin beside their own hand-rolled kernel.
// A HOST builtin also gets a synthesized kernel function, launched as a grid
// of blocks (Call.Blocks) whose blocks tell themselves apart with
// pl.get_block_idx().

// Origin is the builtin call a lowered statement or synthesized function
// came from.
type Origin struct {
	Op   string // the canonical name of the builtin: "pld.tensor.allreduce"
	Span Span   // the call in the source
}

// String renders the printer's annotation: "from pld.tensor.allreduce (line 42)".
func (o *Origin) String() string {
	if o.Span.Line > 0 {
		return "from " + o.Op + " (line " + strconv.Itoa(o.Span.Line) + ")"
	}
	return "from " + o.Op
}

// The primitive operations the IR defines itself. They are not in the DSL's
// operation table (the checker emits only the tuple ones, for tuple syntax,
// and VerifyWith does not ask its legal function about them); Verify checks
// them here instead.
const (
	// BlockIdxOp is pl.get_block_idx(): the INDEX of the block running the
	// kernel, 0..Blocks-1 of the Call that launched it (0 under a plain
	// call). No operands; InCore only.
	BlockIdxOp = "pl.get_block_idx"

	// ViewOp is pl.tensor.view(x, [d0, d1, ...]): the tensor or window x
	// reinterpreted, without a copy, as the packed row-major shape given
	// (same element count, same dtype, same kind; a window view stays a
	// window of the same buffer, so remote access through the view reaches
	// the same bytes on the peer). The lowering flattens a collective's
	// target to [1, N] with it. InCore only.
	ViewOp = "pl.tensor.view"
)

// primitives maps each IR-defined operation to its verification.
var primitives = map[string]func(v *verifier, s *Op){
	BlockIdxOp:  verifyBlockIdx,
	ViewOp:      verifyView,
	TupleMakeOp: verifyTupleMake,
	TupleGetOp:  verifyTupleGet,
	TaskDrainOp: verifyTaskDrain,
}

// IsPrimitive reports whether op is one of the operations the IR defines
// itself (BlockIdxOp, ViewOp) rather than the DSL's operation table.
func IsPrimitive(op string) bool {
	_, ok := primitives[op]
	return ok
}

func (v *verifier) inCoreOnly(s *Op) {
	if v.fn.Level != InCore {
		v.errorf(s.Span, "%s is not allowed at the %s level", s.Name, v.fn.Level)
	}
}

func verifyBlockIdx(v *verifier, s *Op) {
	v.inCoreOnly(s)
	if len(s.Args) != 0 || len(s.Attrs) != 0 {
		v.errorf(s.Span, "%s takes no operands, got %d", s.Name, len(s.Args)+len(s.Attrs))
	}
	if s.Result == nil {
		v.errorf(s.Span, "%s without a result", s.Name)
	} else if t, ok := s.Result.Type.(*Scalar); !ok || t.DType != INDEX {
		v.errorf(s.Span, "%s result %s has type %s, want INDEX", s.Name, s.Result.Name, typeString(s.Result.Type))
	}
}

func verifyView(v *verifier, s *Op) {
	v.inCoreOnly(s)
	if len(s.Args) != 2 || s.Result == nil {
		v.errorf(s.Span, "%s wants a tensor, a shape list and a result", s.Name)
		return
	}
	shapeList, ok := s.Args[1].(*ListOp)
	if !ok {
		v.errorf(s.Span, "%s shape is %s, want a list", s.Name, operand(s.Args[1]))
		return
	}
	src, sd, ok1 := ShapeOf(TypeOf(s.Args[0]))
	dst, dd, ok2 := ShapeOf(s.Result.Type)
	if !ok1 || !ok2 {
		v.errorf(s.Span, "%s of %s into %s, want tensors", s.Name, TypeOf(s.Args[0]), typeString(s.Result.Type))
		return
	}
	_, srcTile := TypeOf(s.Args[0]).(*Tile)
	_, srcDist := TypeOf(s.Args[0]).(*DistributedTensor)
	_, dstDist := s.Result.Type.(*DistributedTensor)
	if srcTile || srcDist != dstDist || sd != dd {
		v.errorf(s.Span, "%s turns %s into %s, want the same kind and dtype", s.Name, TypeOf(s.Args[0]), s.Result.Type)
		return
	}
	if len(shapeList.Elems) != len(dst) {
		v.errorf(s.Span, "%s shape has %d dimensions but its result %s has %d", s.Name, len(shapeList.Elems), s.Result.Type, len(dst))
		return
	}
	for i, e := range shapeList.Elems {
		if c, ok := e.(*Const); ok && dst[i].IsStatic() && c.Int != dst[i].N {
			v.errorf(s.Span, "%s dimension %d is %d but its result has %s", s.Name, i, c.Int, dst[i])
		}
	}
	n, ok1 := src.NumElems()
	m, ok2 := dst.NumElems()
	if ok1 && ok2 && n != m {
		v.errorf(s.Span, "%s of %d elements as %s (%d elements), want the same count", s.Name, n, dst, m)
	}
}

// verifyBlocks checks a call's block grid.
func (v *verifier) verifyBlocks(s *Call) {
	switch {
	case s.Blocks < 0:
		v.errorf(s.Span, "call of %s with %d blocks, want >= 0", s.Callee.Name, s.Blocks)
	case s.Blocks > 1 && !(v.fn.Level == Orchestration && s.Callee.Level == InCore):
		v.errorf(s.Span, "%s function launches %s function %s as %d blocks; only kernels launch as block grids",
			v.fn.Level, s.Callee.Level, s.Callee.Name, s.Blocks)
	}
}

// blocksString renders a grid for the printer: "" for a single block.
func blocksString(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf("blocks=%d", n)
}
