package ir

import "strconv"

// Array is pl.array's on-core array: Extent elements of an integer (or
// BOOL) dtype in the core's scalar registers, made by pl.array.create and
// read and written element by element. PyPTO's writes are SSA-functional
// (arr[i] = v rebinds arr to pl.array.update_element(arr, i, v)), so an
// Array value never changes once made.
type Array struct {
	Extent int64
	DType  DType
}

func (*Array) Kind() string { return "pl.array" }

func (t *Array) String() string {
	return "Array[" + strconv.FormatInt(t.Extent, 10) + ", " + t.DType.String() + "]"
}
