package ir

import "testing"

// TestIdentical checks the type identity the checker uses for bindings
// and signatures: the same kind with the same fields, every kind against
// every other, and the shaped kinds by dtype and shape.
func TestIdentical(t *testing.T) {
	kinds := []Type{
		&Scalar{DType: INT32},
		&Tensor{Shape: ConstShape(4, 8), DType: FP32},
		&DistributedTensor{Shape: ConstShape(4, 8), DType: FP32},
		&Tile{Shape: ConstShape(4, 8), DType: FP32},
		&CommCtx{},
		&TaskID{},
		&Ptr{Bytes: ConstDim(64)},
		&List{Len: 3},
		&Invalid{},
		&Array{Extent: 16, DType: INT32},
		&Tuple{Elems: []Type{&Scalar{DType: INT32}, &Tile{Shape: ConstShape(1, 8), DType: FP32}}},
	}
	for i, a := range kinds {
		for j, b := range kinds {
			if got := Identical(a, b); got != (i == j) {
				t.Errorf("Identical(%s, %s) = %v, want %v", a, b, got, i == j)
			}
		}
	}
	// A fresh value of each kind with the same fields is identical;
	// one field changed is not.
	for _, c := range []struct {
		a, same, other Type
	}{
		{&Scalar{DType: INT32}, &Scalar{DType: INT32}, &Scalar{DType: FP32}},
		{&Ptr{Bytes: ConstDim(64)}, &Ptr{Bytes: ConstDim(64)}, &Ptr{Bytes: SymDim("N")}},
		{&Ptr{Bytes: SymDim("N")}, &Ptr{Bytes: SymDim("N")}, &Ptr{Bytes: SymDim("M")}},
		{&List{Len: 3}, &List{Len: 3}, &List{Len: 4}},
		{&Array{Extent: 16, DType: INT32}, &Array{Extent: 16, DType: INT32}, &Array{Extent: 16, DType: INT64}},
		{&CommCtx{}, &CommCtx{}, &TaskID{}},
		{&Tensor{Shape: ConstShape(4, 8), DType: FP32}, &Tensor{Shape: ConstShape(4, 8), DType: FP32}, &Tensor{Shape: ConstShape(8, 4), DType: FP32}},
		{&Tuple{Elems: []Type{&List{Len: 2}}}, &Tuple{Elems: []Type{&List{Len: 2}}}, &Tuple{Elems: []Type{&List{Len: 2}, &List{Len: 2}}}},
	} {
		if !Identical(c.a, c.same) {
			t.Errorf("Identical(%s, %s) = false, want true", c.a, c.same)
		}
		if Identical(c.a, c.other) {
			t.Errorf("Identical(%s, %s) = true, want false", c.a, c.other)
		}
	}
}
