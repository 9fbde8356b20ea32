package conform

import (
	"fmt"
	"math"

	"pldworkbench/engine/emu"
)

// The variable-size all-to-all tests (the InCore intrinsic one and the
// HOST builtin one) share one input maker and one assertion, ported here.

// allToAllVInputs is the tests' input construction: rank r sends nr - d
// rows to destination d, row k of block d (rows d*mr+k) holding
// r*1000 + d*100 + k*10 + j%10, and send_counts[r, d, 0] = nr - d; every
// other element is zero (torch.zeros).
func allToAllVInputs(_ conformCaseSpec, in []*emu.Tensor, P int) {
	x, c, mr, size, err := allToAllVShapes(in, P)
	if err != nil {
		return
	}
	xs, cs := x.Floats(), c.Floats()
	for i := range xs {
		xs[i] = 0
	}
	for i := range cs {
		cs[i] = 0
	}
	for r := 0; r < P; r++ {
		for d := 0; d < P; d++ {
			n := P - d
			c.Set(float64(n), r, d, 0)
			for k := 0; k < n && k < mr; k++ {
				for j := 0; j < size; j++ {
					x.Set(float64(r*1000+d*100+k*10+j%10), r, d*mr+k, j)
				}
			}
		}
	}
}

// allToAllV is the tests' assertion: rank rank's recv_outputs[rank, src]
// is send_counts[src, rank], and its output rows src*mr+k, for k below
// that count, are inputs[src, rank*mr+k]. The rows past a count are
// window holes the tests do not check (NaN: compareGolden skips them).
func allToAllV(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	x, c, mr, size, err := allToAllVShapes(in, P)
	if err != nil {
		return nil, err
	}
	total := P * mr
	out := make([]float64, P*total*size)
	for i := range out {
		out[i] = math.NaN()
	}
	recv := make([]float64, P*P)
	for rank := 0; rank < P; rank++ {
		for src := 0; src < P; src++ {
			n := int(c.At(src, rank, 0))
			recv[rank*P+src] = float64(n)
			for k := 0; k < n && k < mr; k++ {
				for j := 0; j < size; j++ {
					out[(rank*total+src*mr+k)*size+j] = x.At(src, rank*mr+k, j)
				}
			}
		}
	}
	return [][]float64{out, recv}, nil
}

// allToAllVShapes returns the inputs [nr, nr*mr, SIZE] and the send counts
// [nr, nr, 1], with mr and SIZE.
func allToAllVShapes(in []*emu.Tensor, P int) (x, c *emu.Tensor, mr, size int, err error) {
	if len(in) < 2 {
		return nil, nil, 0, 0, fmt.Errorf("want the inputs and the send counts, got %d tensors", len(in))
	}
	x, c = in[0], in[1]
	if len(x.Shape) != 3 || x.Shape[0] != P || x.Shape[1]%P != 0 || len(c.Shape) != 3 || c.Shape[0] != P || c.Shape[1] != P {
		return nil, nil, 0, 0, fmt.Errorf("inputs %v and send counts %v, want [%d, %d*mr, SIZE] and [%d, %d, 1]", x.Shape, c.Shape, P, P, P, P)
	}
	return x, c, x.Shape[1] / P, x.Shape[2], nil
}
