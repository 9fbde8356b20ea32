package engine

import (
	"fmt"

	"pldworkbench/engine/emu"
)

// A conformGolden is the expected outputs of one upstream program, ported
// to Go from the expected-value logic of the test or example that runs it
// (its expected_* helper or its assertion), never from recorded outputs.
// It computes them from the inputs the run really had: in lists the host
// parameters in signature order, and the result lists, in order, the
// outputs the upstream check asserts on (the host's Out/InOut parameters
// in signature order; a golden may name fewer).
type conformGolden struct {
	from string // the upstream helper or assertion it is ported from
	want func(s conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error)
}

// conformGoldens is keyed by upstream file and program name.
var conformGoldens = map[string]*conformGolden{
	"examples/distributed/01_hello_rank.py#hello_rank": {"main's assertion: y = x + rank", perRow(func(P, r int, row []float64, in []*emu.Tensor) []float64 {
		return mapf(row, func(v float64) float64 { return float64(float32(v + float64(r))) })
	})},
	"examples/distributed/02_programming_model.py#host_orch": {"main's assertion: y = x * (rank + 1)", perRow(func(P, r int, row []float64, in []*emu.Tensor) []float64 {
		return mapf(row, func(v float64) float64 { return float64(float32(v * float64(r+1))) })
	})},
	"examples/distributed/03_window_buffer.py#window_program": {"main's assertion: y = x", perRow(func(P, r int, row []float64, in []*emu.Tensor) []float64 {
		return row
	})},
	"examples/distributed/04_barrier.py#barrier_program_hand":       {"expected_barrier", barrierSignals},
	"examples/distributed/04_barrier.py#barrier_program_builtin":    {"expected_shift", shiftRows(+1)},
	"examples/distributed/05_remote_load_store.py#ring_shift_load":  {"expected_shift(store_mode=False)", shiftRows(+1)},
	"examples/distributed/05_remote_load_store.py#ring_shift_store": {"expected_shift(store_mode=True)", shiftRows(-1)},
	"examples/distributed/06_put_get.py#ring_put":                   {"expected_ring(get_mode=False)", shiftRows(-1)},
	"examples/distributed/06_put_get.py#ring_get":                   {"expected_ring(get_mode=True)", shiftRows(+1)},
	"examples/distributed/07_dynamic_rank_count.py#ring_put":        {"expected_ring(get_mode=False)", shiftRows(-1)},
	"examples/distributed/07_dynamic_rank_count.py#ring_get":        {"expected_ring(get_mode=True)", shiftRows(+1)},

	"tests/st/distributed/collectives/test_l3_allreduce.py#AllReduceMesh":                                       {"_expected_allreduce", sumRows},
	"tests/st/distributed/collectives/test_l3_allreduce_ring.py#_build_ring_allreduce_program":                  {"_expected_allreduce", sumRows},
	"tests/st/distributed/collectives/test_l3_broadcast.py#BroadcastMesh":                                       {"_expected_broadcast", rootRow(0)},
	"tests/st/distributed/collectives/test_l3_tensor_broadcast_intrinsic.py#_build_broadcast_program":           {"_expected_broadcast", rootRow(0)},
	"tests/st/distributed/collectives/test_l3_allgather.py#AllGatherMesh":                                       {"_expected_allgather", gatherRows},
	"tests/st/distributed/collectives/test_l3_tensor_allgather_intrinsic.py#_build_allgather_program":           {"_expected_allgather", gatherRows},
	"tests/st/distributed/collectives/test_l3_reduce_scatter.py#ReduceScatterMesh":                              {"_expected_reduce_scatter", scatterSums},
	"tests/st/distributed/collectives/test_l3_tensor_reduce_scatter_intrinsic.py#_build_reduce_scatter_program": {"_expected_reduce_scatter", scatterSums},
	"tests/st/distributed/collectives/test_l3_all_to_all.py#AllToAllMesh":                                       {"_expected_all_to_all", transposeRows},
	"tests/st/distributed/collectives/test_l3_tensor_all_to_all_intrinsic.py#_build_all_to_all_program":         {"_expected_all_to_all", transposeRows},
	"tests/st/distributed/collectives/test_l3_tensor_barrier_intrinsic.py#_build_barrier_peer_swap_program":     {"_expected_peer_swap", shiftRows(+1)},
	"tests/st/distributed/test_l3_host_tensor_allreduce.py#HostTensorAllReduce":                                 {"_expected_allreduce(op_name=\"sum\")", sumRows},
	"tests/st/distributed/test_l3_host_tensor_allreduce_ring.py#_build_host_ring_allreduce_program":             {"the test's assertion: every rank holds the sum", sumRows},
	"tests/st/distributed/test_l3_tuple_return.py#L3TupleReturnProgram":                                         {"the test's expected_sum and expected_diff: a + b, a - b", sumDiff},
}

func mapf(row []float64, f func(float64) float64) []float64 {
	out := make([]float64, len(row))
	for i, v := range row {
		out[i] = f(v)
	}
	return out
}

// perRow makes a golden whose first output's row r is f of the first
// input's row r.
func perRow(f func(P, r int, row []float64, in []*emu.Tensor) []float64) func(conformCaseSpec, []*emu.Tensor, int) ([][]float64, error) {
	return func(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
		x, err := rows(in, 0, P)
		if err != nil {
			return nil, err
		}
		var out []float64
		for r := 0; r < P; r++ {
			out = append(out, f(P, r, x.Row(r), in)...)
		}
		return [][]float64{out}, nil
	}
}

// rows is input i, which must be a per-rank tensor of P rows.
func rows(in []*emu.Tensor, i, P int) (*emu.Tensor, error) {
	if i >= len(in) {
		return nil, fmt.Errorf("the host has %d tensor parameters; the golden reads parameter %d", len(in), i+1)
	}
	if len(in[i].Shape) == 0 || in[i].Shape[0] != P {
		return nil, fmt.Errorf("parameter %d has shape %v; the golden wants %d rows", i+1, in[i].Shape, P)
	}
	return in[i], nil
}

// shiftRows: out[r] = in[(r+k) mod P].
func shiftRows(k int) func(conformCaseSpec, []*emu.Tensor, int) ([][]float64, error) {
	return func(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
		x, err := rows(in, 0, P)
		if err != nil {
			return nil, err
		}
		var out []float64
		for r := 0; r < P; r++ {
			out = append(out, x.Row(((r+k)%P+P)%P)...)
		}
		return [][]float64{out}, nil
	}
}

// barrierSignals: rank r's signal row is 1 except at its own column.
func barrierSignals(_ conformCaseSpec, _ []*emu.Tensor, P int) ([][]float64, error) {
	var out []float64
	for r := 0; r < P; r++ {
		for i := 0; i < P; i++ {
			v := 1.0
			if i == r {
				v = 0
			}
			out = append(out, v)
		}
	}
	return [][]float64{out}, nil
}

// sumRows: every rank holds the element-wise sum of every rank's input.
func sumRows(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	x, err := rows(in, 0, P)
	if err != nil {
		return nil, err
	}
	n := len(x.Data) / P
	sum := make([]float64, n)
	for r := 0; r < P; r++ {
		for j, v := range x.Row(r) {
			sum[j] = float64(float32(sum[j] + v))
		}
	}
	var out []float64
	for r := 0; r < P; r++ {
		out = append(out, sum...)
	}
	return [][]float64{out}, nil
}

// rootRow: every rank holds the root's input.
func rootRow(root int) func(conformCaseSpec, []*emu.Tensor, int) ([][]float64, error) {
	return func(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
		x, err := rows(in, 0, P)
		if err != nil {
			return nil, err
		}
		var out []float64
		for r := 0; r < P; r++ {
			out = append(out, x.Row(root)...)
		}
		return [][]float64{out}, nil
	}
}

// gatherRows: every rank holds the rank-ordered concatenation.
func gatherRows(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	x, err := rows(in, 0, P)
	if err != nil {
		return nil, err
	}
	var all []float64
	for r := 0; r < P; r++ {
		all = append(all, x.Row(r)...)
	}
	var out []float64
	for r := 0; r < P; r++ {
		out = append(out, all...)
	}
	return [][]float64{out}, nil
}

// scatterSums: rank r holds the sum over k of chunk r of rank k's input.
func scatterSums(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	x, err := rows(in, 0, P)
	if err != nil {
		return nil, err
	}
	n := len(x.Data) / P / P
	var out []float64
	for r := 0; r < P; r++ {
		chunk := make([]float64, n)
		for k := 0; k < P; k++ {
			for j, v := range x.Row(k)[r*n : (r+1)*n] {
				chunk[j] = float64(float32(chunk[j] + v))
			}
		}
		out = append(out, chunk...)
	}
	return [][]float64{out}, nil
}

// transposeRows: output[rank][src] = input[src][rank].
func transposeRows(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	x, err := rows(in, 0, P)
	if err != nil {
		return nil, err
	}
	n := len(x.Data) / P / P
	var out []float64
	for r := 0; r < P; r++ {
		for src := 0; src < P; src++ {
			out = append(out, x.Row(src)[r*n:(r+1)*n]...)
		}
	}
	return [][]float64{out}, nil
}

// sumDiff: out_sum = a + b, out_diff = a - b.
func sumDiff(_ conformCaseSpec, in []*emu.Tensor, _ int) ([][]float64, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("want two input tensors, got %d", len(in))
	}
	a, b := in[0].Data, in[1].Data
	s, d := make([]float64, len(a)), make([]float64, len(a))
	for i := range a {
		s[i], d[i] = float64(float32(a[i]+b[i])), float64(float32(a[i]-b[i]))
	}
	return [][]float64{s, d}, nil
}
