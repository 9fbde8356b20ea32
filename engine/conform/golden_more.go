package conform

import (
	"fmt"
	"math"

	"pldworkbench/engine/emu"
)

// Goldens of the programs the tuple results and the gemm tile ops opened:
// the variable-size all-to-all tests (the InCore intrinsic one and the
// HOST builtin one share one input maker and one assertion) and the gemm.

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

// gemmInputs stands in for the test's torch.randn(seed 42), which Go
// cannot reproduce: small values of both signs, so the products exercise
// cancellation as random inputs do, without the index fill's magnitudes.
func gemmInputs(_ conformCaseSpec, in []*emu.Tensor, _ int) {
	for t, x := range in[:min(2, len(in))] {
		xs := x.Floats()
		for i := range xs {
			xs[i] = float64((i*7+t*3)%11-5) / 4
		}
	}
}

// gemm is _expected_gemm: c[r] = a[r] @ b, summed exactly and rounded to
// FP32 once.
func gemm(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	if len(in) < 2 || len(in[0].Shape) != 3 || len(in[1].Shape) != 2 || in[0].Shape[0] != P || in[0].Shape[2] != in[1].Shape[0] {
		return nil, fmt.Errorf("want a [%d, M, K] and b [K, N]", P)
	}
	a, b := in[0], in[1]
	M, K, N := a.Shape[1], a.Shape[2], b.Shape[1]
	out := make([]float64, P*M*N)
	for r := 0; r < P; r++ {
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				var s float64
				for k := 0; k < K; k++ {
					s += a.At(r, i, k) * b.At(k, j)
				}
				out[(r*M+i)*N+j] = float64(float32(s))
			}
		}
	}
	return [][]float64{out}, nil
}
