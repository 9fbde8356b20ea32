package check

import (
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
)

// The tile ops of upstream's gemm program: pl.tile.full, pl.move and
// pl.matmul, with the rules of PyPTO's type deduction
// (src/ir/op/tile_ops/matmul.cpp DeduceMatmulProductInfo).

func fullResult(a *opCall) ir.Type {
	dt, _ := dtypeFromValue(a.staticArg("dtype"))
	return &ir.Tile{Shape: a.shapeOf("shape"), DType: dt}
}

func checkFull(a *opCall) {
	dt, _ := dtypeFromValue(a.staticArg("dtype"))
	a.tileAlign(a.shapeOf("shape"), dt)
}

// matmulResult is [M, N] of the accumulator dtype: FP32 for float
// operands, INT32 for integer ones.
func matmulResult(a *opCall) ir.Type {
	l, _ := a.typeOf("lhs").(*ir.Tile)
	r, _ := a.typeOf("rhs").(*ir.Tile)
	if l == nil || r == nil || len(l.Shape) != 2 || len(r.Shape) != 2 {
		return &ir.Invalid{}
	}
	acc := ir.INT32
	if l.DType.IsFloat() {
		acc = ir.FP32
	}
	return &ir.Tile{Shape: ir.Shape{l.Shape[0], r.Shape[1]}, DType: acc}
}

func checkMatmul(a *opCall) {
	l, _ := a.typeOf("lhs").(*ir.Tile)
	r, _ := a.typeOf("rhs").(*ir.Tile)
	if l == nil || r == nil {
		return
	}
	for _, side := range []struct {
		name string
		t    *ir.Tile
	}{{"lhs", l}, {"rhs", r}} {
		if len(side.t.Shape) != 2 {
			a.errorf(side.name, ErrShape, "", "pl.matmul %s is %s, want a 2-D tile", side.name, describeType(side.t))
			return
		}
	}
	if l.Shape[1].IsStatic() && r.Shape[0].IsStatic() && l.Shape[1].N != r.Shape[0].N {
		a.errorf("rhs", ErrShape, "lhs is [M, K] and rhs [K, N]",
			"pl.matmul of %s and %s: the inner dimensions %d and %d differ", describeType(l), describeType(r), l.Shape[1].N, r.Shape[0].N)
		return
	}
	if l.DType != r.DType {
		a.errorf("rhs", ErrDType, "cast one operand first", "pl.matmul of %s and %s: the operands' dtypes differ", l.DType, r.DType)
	}
}

// createTensorResult is pl.create_tensor(shape, dtype=): a tensor of that
// shape and dtype.
func createTensorResult(a *opCall) ir.Type {
	dt, _ := dtypeFromValue(a.staticArg("dtype"))
	return &ir.Tensor{Shape: a.shapeOf("shape"), DType: dt}
}

// checkCreateTensor admits an init_value that is a number (the emulator
// fills the tensor with it; without one the emulator zero-fills it where
// PyPTO leaves it uninitialised).
func checkCreateTensor(a *opCall) {
	if !a.given("init_value") {
		return
	}
	switch a.staticArg("init_value").(type) {
	case meta.Int, meta.Float:
	default:
		a.errorf("init_value", ErrArgKind, "", "pl.create_tensor init_value must be a number, got %s", meta.Repr(a.staticArg("init_value")))
	}
}
