package emu_test

import (
	"context"
	"strings"
	"testing"

	"pldworkbench/engine/emu"
)

// TestArrays runs testdata/arrays.py: pl.array's functional writes (a name
// bound before a write keeps the old value), INT8 wrap-around, reads at a
// run-time index; pl.tile.row_sum over all and over the valid columns,
// pl.tile.reshape in row-major order and a zero pl.tile.create; and an
// index past the array's end, which is a run-time error naming it.
func TestArrays(t *testing.T) {
	const P = 2
	prog := compileFile(t, "testdata/arrays.py", "array_host", P)
	in := fill(prog, "randn", 5)
	res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Scalars: map[string]float64{"bad_index": 2}})
	mustOK(t, "arrays", res)
	a := in["a"]
	ints, sums, flat, zero := res.Outputs["ints"], res.Outputs["sums"], res.Outputs["flat"], res.Outputs["zero"]
	wrap8 := func(v int) int { return int(int8(v)) }
	for r := 0; r < P; r++ {
		want := []int{0, wrap8(300), wrap8(300) + 1, 2 * 2}
		for i := 3; i < 8; i++ {
			if i > 3 {
				want = append(want, (i-1)*(i-1))
			}
		}
		for i, w := range want {
			if got := ints.At(r, 0, i); got != float64(w) {
				t.Errorf("ints[%d, 0, %d] = %g, want %d", r, i, got, w)
			}
		}
		for row := 0; row < 8; row++ {
			var all, valid float64
			for c := 0; c < 8; c++ {
				all += a.At(r, row, c)
				if c < 3 {
					valid += a.At(r, row, c)
				}
			}
			if got := sums.At(r, 0, row); got != float64(float32(all)) {
				t.Errorf("sums[%d, 0, %d] = %g, want the row sum %g", r, row, got, float32(all))
			}
			if got := sums.At(r, 1, row); got != float64(float32(valid)) {
				t.Errorf("sums[%d, 1, %d] = %g, want the sum of the 3 valid columns %g", r, row, got, float32(valid))
			}
		}
		for i := 0; i < 16; i++ {
			if got, want := flat.At(r, 0, i), a.At(r, 2+i/8, i%8); got != want {
				t.Errorf("flat[%d, 0, %d] = %g, want a[%d, %d, %d] = %g", r, i, got, r, 2+i/8, i%8, want)
			}
		}
		for i := 0; i < 8; i++ {
			if got := zero.At(r, 0, i); got != 0 {
				t.Errorf("zero[%d, 0, %d] = %g, want 0 (a created tile is zero-filled)", r, i, got)
			}
		}
	}
	bad := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Scalars: map[string]float64{"bad_index": 8}})
	if bad.Status != emu.StatusRuntimeError || bad.Error == nil || bad.Error.Code != "E0502" ||
		!strings.Contains(bad.Error.Message, "index 8 is outside the array of 8 elements") {
		t.Fatalf("an index past the end: status %s, error %+v; want E0502 naming index 8 and the extent", bad.Status, bad.Error)
	}
}

// TestArrayParam runs testdata/array_param.py: an orchestration function
// fills a pl.Array and passes it to the kernel, which loads the rows it
// names; PyPTO compiles the program (checked with a local build).
func TestArrayParam(t *testing.T) {
	const P = 2
	prog := compileFile(t, "testdata/array_param.py", "ArrayParam.host", P)
	in := fill(prog, "randn", 7)
	res := emu.Run(context.Background(), prog, emu.Options{Inputs: in})
	mustOK(t, "array_param", res)
	x, out := in["x"], res.Outputs["out"]
	for r := 0; r < P; r++ {
		for i, row := range []int{3, 1} {
			for c := 0; c < 8; c++ {
				if got, want := out.At(r, i, c), x.At(r, row, c); got != want {
					t.Errorf("out[%d, %d, %d] = %g, want x[%d, %d, %d] = %g", r, i, c, got, r, row, c, want)
				}
			}
		}
	}
}
