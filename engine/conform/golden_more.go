package conform

import (
	"fmt"
	"math"
	"strconv"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
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

// swapHalves is test_subview_halves' expected tensor: on two ranks, rank
// r's output is the partner's low half followed by its high half
// (torch.cat([inputs_low[1-r], inputs_high[1-r]], dim=1)).
func swapHalves(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	lo, err := rows(in, 0, P)
	if err != nil {
		return nil, err
	}
	hi, err := rows(in, 1, P)
	if err != nil {
		return nil, err
	}
	if P != 2 {
		return nil, fmt.Errorf("the test's expected tensor is for 2 ranks, got %d", P)
	}
	var out []float64
	for r := 0; r < P; r++ {
		out = append(out, lo.Row(1-r)...)
		out = append(out, hi.Row(1-r)...)
	}
	return [][]float64{out}, nil
}

// writtenRow is test_remote_store_window_raw_device's assertion: rank q's
// output row (q+1) mod N equals srcs[w][w] for that row w; the other rows
// are not checked (NaN).
func writtenRow(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	x, err := rows(in, 0, P)
	if err != nil {
		return nil, err
	}
	if len(x.Shape) != 3 || x.Shape[1] != P {
		return nil, fmt.Errorf("want [N, N, D] sources, got %v", x.Shape)
	}
	d := x.Shape[2]
	out := make([]float64, P*P*d)
	for i := range out {
		out[i] = math.NaN()
	}
	for q := 0; q < P; q++ {
		w := (q + 1) % P
		copy(out[(q*P+w)*d:(q*P+w+1)*d], x.Row(w)[w*d:(w+1)*d])
	}
	return [][]float64{out}, nil
}

// allZero is the self-notify test's _assert_zeroed: every rank's output
// is 0 (the peer's credits and the rank's own negative self-notify cancel).
func allZero(_ conformCaseSpec, _ []*emu.Tensor, P int) ([][]float64, error) {
	return [][]float64{make([]float64, P)}, nil
}

// multicoreInputs is the multicore test's _make_rank_inputs(n_ranks, size):
// rank r's row is r*100 + j. (The same rule as the host allreduce test.)
func multicoreInputs(s conformCaseSpec, in []*emu.Tensor, P int) {
	hostAllreduceInputs(s, in, P)
}

// multicoreReuseInputs is the reuse test's inputs: round rd is
// _make_rank_inputs(n_ranks, size, round_offset=rd*10000), so a stale
// round-1 result cannot match round 2's golden.
func multicoreReuseInputs(_ conformCaseSpec, in []*emu.Tensor, _ int) {
	if len(in) == 0 || len(in[0].Shape) != 4 {
		return
	}
	x := in[0]
	rounds, nr, size := x.Shape[0], x.Shape[1], x.Shape[3]
	v := x.Floats()
	for rd := 0; rd < rounds; rd++ {
		for r := 0; r < nr; r++ {
			for j := 0; j < size; j++ {
				v[(rd*nr+r)*size+j] = floats.RoundTo(x.DType, float64(rd)*10000+float64(r)*100+float64(j))
			}
		}
	}
}

// multicoreLanes is test_multicore_output_and_signal_lanes' assertions:
// the outputs are _expected_allreduce (the sum on every rank), and
// signal_outputs[rank, peer, :core_num] is 0 for every peer != rank (the
// builtin's per-lane epilogue cleared it); other lanes are not checked.
func multicoreLanes(s conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	w, err := sumRows(s, in, P)
	if err != nil {
		return nil, err
	}
	cores, err1 := strconv.Atoi(param(s, "core_num", ""))
	stride, err2 := strconv.Atoi(param(s, "signal_stride", ""))
	if err1 != nil || err2 != nil || cores > stride {
		return nil, fmt.Errorf("the case's core_num %q and signal_stride %q", param(s, "core_num", ""), param(s, "signal_stride", ""))
	}
	sig := make([]float64, P*P*stride)
	for rank := 0; rank < P; rank++ {
		for peer := 0; peer < P; peer++ {
			for l := 0; l < stride; l++ {
				i := (rank*P+peer)*stride + l
				if peer == rank || l >= cores {
					sig[i] = math.NaN()
				}
			}
		}
	}
	return append(w, sig), nil
}
