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

// TestWindowReshapes: a window passes to a parameter of another static
// shape of its dtype, and ReshapesFrom, the emulator's form of the rule
// over a window's extents, answers as WindowReshapes does.
func TestWindowReshapes(t *testing.T) {
	win := func(dt DType, dims ...Dim) *DistributedTensor {
		return &DistributedTensor{Shape: Shape(dims), DType: dt}
	}
	c := ConstDim
	for _, tc := range []struct {
		want, got *DistributedTensor
		reshapes  bool
	}{
		{win(FP32, c(1), c(64)), win(FP32, c(64)), true},
		{win(FP32, c(64)), win(FP32, c(1), c(64)), true},
		{win(FP32, c(8), c(8)), win(FP32, c(4), c(16)), true},
		{win(FP32, c(1), c(64)), win(FP32, c(1), c(64)), false}, // the same shape: no reshape
		{win(FP16, c(1), c(64)), win(FP32, c(64)), false},       // another dtype
		{win(FP32, SymDim("NR"), c(64)), win(FP32, c(64)), false},
	} {
		if got := WindowReshapes(tc.want, tc.got); got != tc.reshapes {
			t.Errorf("WindowReshapes(%v, %v) = %v, want %v", tc.want.Shape, tc.got.Shape, got, tc.reshapes)
		}
		shape := make([]int, len(tc.got.Shape))
		for i, d := range tc.got.Shape {
			shape[i] = int(d.N)
		}
		if got := tc.want.ReshapesFrom(tc.got.DType, shape); got != tc.reshapes {
			t.Errorf("ReshapesFrom(%v, %v) = %v, want %v", tc.want.Shape, shape, got, tc.reshapes)
		}
	}
	if WindowReshapes(win(FP32, c(64)), win(FP32, SymDim("NR"))) {
		t.Error("a window of a symbolic shape reshapes")
	}
	if WindowReshapes(&Tensor{Shape: ConstShape(64), DType: FP32}, win(FP32, c(64))) {
		t.Error("a tensor parameter takes a window")
	}
}
