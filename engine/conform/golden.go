package conform

import (
	"fmt"
	"math"
	"strings"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
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
	// wantShaped, used instead of want when set, is also told the shapes
	// of the outputs, for a test whose output size is an argument of the
	// program the inputs do not show.
	wantShaped func(s conformCaseSpec, in []*emu.Tensor, outShapes [][]int, P int) ([][]float64, error)
	// inputs, when set, is the test's own input maker (_make_rank_inputs)
	// ported too: it rewrites the index-filled inputs in place, for tests
	// whose values matter (products, FP16 ranges).
	inputs func(s conformCaseSpec, in []*emu.Tensor, P int)
	// tol is the test's own allclose tolerance (0: floats.Tolerance).
	tol func(s conformCaseSpec) float64
	// tols, when set, is the tolerance of each output in turn, for a test
	// that compares its outputs differently (torch.equal for one,
	// allclose for another); it overrides tol.
	tols func(s conformCaseSpec) []float64
	// only, when set, names the one test whose expectation this is; the
	// program's other tests assert other things (runtime APIs) and get no
	// golden.
	only string
	// others, when set, is the reason the program's other tests get no
	// golden, in place of the generic one.
	others string
	// tests judges, by test name, the program's tests that assert no
	// outputs: what the engine offers of the entries (judgeProgram).
	tests map[string]*testCheck
}

// conformGoldens is keyed by upstream file and program name.
var conformGoldens = map[string]*conformGolden{
	"examples/distributed/01_hello_rank.py#hello_rank": {from: "main's assertion: y = x + rank", want: perRow(func(P, r int, row []float64, in []*emu.Tensor) []float64 {
		return mapf(row, func(v float64) float64 { return float64(float32(v + float64(r))) })
	})},
	"examples/distributed/02_programming_model.py#host_orch": {from: "main's assertion: y = x * (rank + 1)", want: perRow(func(P, r int, row []float64, in []*emu.Tensor) []float64 {
		return mapf(row, func(v float64) float64 { return float64(float32(v * float64(r+1))) })
	})},
	"examples/distributed/03_window_buffer.py#window_program": {from: "main's assertion: y = x", want: perRow(func(P, r int, row []float64, in []*emu.Tensor) []float64 {
		return row
	})},
	"examples/distributed/04_barrier.py#barrier_program_hand":       {from: "expected_barrier", want: barrierSignals},
	"examples/distributed/04_barrier.py#barrier_program_builtin":    {from: "expected_shift", want: shiftRows(+1)},
	"examples/distributed/05_remote_load_store.py#ring_shift_load":  {from: "expected_shift(store_mode=False)", want: shiftRows(+1)},
	"examples/distributed/05_remote_load_store.py#ring_shift_store": {from: "expected_shift(store_mode=True)", want: shiftRows(-1)},
	"examples/distributed/06_put_get.py#ring_put":                   {from: "expected_ring(get_mode=False)", want: shiftRows(-1)},
	"examples/distributed/06_put_get.py#ring_get":                   {from: "expected_ring(get_mode=True)", want: shiftRows(+1)},
	"examples/distributed/07_dynamic_rank_count.py#ring_put":        {from: "expected_ring(get_mode=False)", want: shiftRows(-1)},
	"examples/distributed/07_dynamic_rank_count.py#ring_get":        {from: "expected_ring(get_mode=True)", want: shiftRows(+1)},

	"tests/st/distributed/collectives/test_l3_allreduce.py#AllReduceMesh":                                        {from: "_expected_allreduce", want: sumRows},
	"tests/st/distributed/collectives/test_l3_allreduce_ring.py#_build_ring_allreduce_program":                   {from: "_expected_allreduce", want: sumRows},
	"tests/st/distributed/collectives/test_l3_broadcast.py#BroadcastMesh":                                        {from: "_expected_broadcast", want: rootRow(0)},
	"tests/st/distributed/collectives/test_l3_tensor_broadcast_intrinsic.py#_build_broadcast_program":            {from: "_expected_broadcast", want: rootRow(0)},
	"tests/st/distributed/collectives/test_l3_allgather.py#AllGatherMesh":                                        {from: "_expected_allgather", want: gatherRows},
	"tests/st/distributed/collectives/test_l3_tensor_allgather_intrinsic.py#_build_allgather_program":            {from: "_expected_allgather", want: gatherRows},
	"tests/st/distributed/collectives/test_l3_reduce_scatter.py#ReduceScatterMesh":                               {from: "_expected_reduce_scatter", want: scatterSums},
	"tests/st/distributed/collectives/test_l3_tensor_reduce_scatter_intrinsic.py#_build_reduce_scatter_program":  {from: "_expected_reduce_scatter", want: scatterSums},
	"tests/st/distributed/collectives/test_l3_all_to_all.py#AllToAllMesh":                                        {from: "_expected_all_to_all", want: transposeRows},
	"tests/st/distributed/collectives/test_l3_tensor_all_to_all_intrinsic.py#_build_all_to_all_program":          {from: "_expected_all_to_all", want: transposeRows},
	"tests/st/distributed/collectives/test_l3_tensor_barrier_intrinsic.py#_build_barrier_peer_swap_program":      {from: "_expected_peer_swap", want: shiftRows(+1)},
	"tests/st/distributed/test_l3_host_tensor_allreduce.py#HostTensorAllReduce":                                  {from: "_expected_allreduce(inputs, op_name)", want: reduceRows, inputs: allreduceInputs, tol: allreduceTol},
	"tests/st/distributed/test_l3_host_tensor_allreduce_ring.py#_build_host_ring_allreduce_program":              {from: "the test's assertion: every rank holds the sum", want: sumRows},
	"tests/st/distributed/collectives/test_l3_tensor_allreduce_intrinsic.py#_build_allreduce_program":            {from: "_expected_allreduce(inputs, op_name) on _make_rank_inputs", want: reduceRows, inputs: allreduceInputs, tol: allreduceTol},
	"tests/st/distributed/collectives/test_l3_tensor_allreduce_ring_intrinsic.py#_build_ring_allreduce_program":  {from: "_expected_allreduce(inputs, op_name) on _make_rank_inputs", want: reduceRows, inputs: allreduceInputs, tol: allreduceTol},
	"tests/st/distributed/test_l3_host_tensor_allreduce.py#HostTensorAllReduceMax":                               {from: "test_host_tensor_allreduce_max: inputs.max(dim=0) on every rank", want: reduceOp("max"), inputs: hostAllreduceInputs},
	"tests/st/distributed/test_l3_host_tensor_allreduce.py#_build_host_allreduce":                                {from: "_expected_allreduce(inputs, op_name) on _make_rank_inputs", want: reduceRows, inputs: hostAllreduceInputs, tol: allreduceTol},
	"tests/st/distributed/test_l3_host_tensor_all_to_all.py#HostTensorAllToAll":                                  {from: "_expected_all_to_all: inputs.permute(1, 0, 2)", want: transposeRows},
	"tests/st/distributed/test_l3_host_tensor_reduce_scatter.py#HostTensorReduceScatter":                         {from: "_expected_reduce_scatter", want: scatterSums},
	"tests/st/distributed/test_l3_host_tensor_barrier.py#HostTensorBarrier":                                      {from: "_expected_peer_swap", want: shiftRows(+1)},
	"tests/st/distributed/test_l3_deferred_completion.py#_build_deferred_completion_program":                     {from: "_expected(waiter_count, epoch=1) on _inputs(epoch=1), the first epoch: the test calls the prepared program again on its persistent windows, one run here", wantShaped: deferredExpected, inputs: deferredInputs},
	"tests/st/distributed/test_l3_multi_group.py#_build_two_group_swap_program":                                  {from: "expected_a and expected_b of test_two_groups_independent_swap", want: groupSwapExpected, inputs: groupSwapInputs},
	"tests/st/distributed/test_l3_parallel_reduce.py#L3ParallelReduceProgram":                                    {from: "test_execute: f = (a + b) + (a - b) = 2a on a = 2, b = 3", want: parallelReduceExpected, inputs: fullInputs(2, 3)},
	"tests/st/distributed/test_l3_get.py#_build_ring_get_program":                                                {from: "test_ring_shuffle: [inputs[1], inputs[0]]", want: shiftRows(+1)},
	"tests/st/distributed/test_l3_get.py#_build_row_get_program":                                                 {from: "test_row_get: outputs[r] = inputs[other, 0]", want: otherFirstRow},
	"tests/st/distributed/test_l3_put.py#_build_ring_put_program":                                                {from: "test_ring_shuffle: [inputs[1], inputs[0]]", want: shiftRows(+1)},
	"tests/st/distributed/test_l3_put.py#_build_ring_put_pipeline_program":                                       {from: "test_ring_shuffle_pipeline: [inputs[1], inputs[0]]", want: shiftRows(+1)},
	"tests/st/distributed/test_l3_put.py#_build_chunked_ring_put_program":                                        {from: "test_chunked_ring_shuffle: [inputs[1], inputs[0]]", want: shiftRows(+1)},
	"tests/st/distributed/test_l3_put.py#_build_row_put_program":                                                 {from: "test_row_put: outputs[r] = inputs[other, 0]", want: otherFirstRow},
	"tests/st/distributed/test_l3_remote_store.py#_build_ring_remote_store_program":                              {from: "test_ring_shuffle: [inputs[1], inputs[0]]", want: shiftRows(+1)},
	"tests/st/distributed/test_l3_notify_wait.py#_build_signal_handshake_program":                                {from: "_assert_signal_exchange: rank r reads the tag r+1 of its peer", want: handshakeTags},
	"tests/st/distributed/test_l3_host_tensor_all_to_all.py#_build_host_all_to_all_signal_reuse_program":         {from: "_expected_all_to_all per round", want: perRound(transposeRows)},
	"tests/st/distributed/test_l3_host_tensor_allreduce.py#_build_host_allreduce_signal_reuse":                   {from: "_expected_allreduce per round", want: perRound(sumRows)},
	"tests/st/distributed/test_l3_host_tensor_allreduce_ring.py#_build_host_ring_allreduce_signal_reuse_program": {from: "the sum on every rank, per round", want: perRound(sumRows)},
	"tests/st/distributed/test_l3_host_tensor_barrier.py#_build_host_barrier_signal_reuse_program":               {from: "_expected_peer_swap per round", want: perRound(shiftRows(+1))},
	"tests/st/distributed/test_l3_host_tensor_reduce_scatter.py#_build_host_reduce_scatter_signal_reuse_program": {from: "_expected_reduce_scatter per round", want: perRound(scatterSums)},
	"tests/st/distributed/test_l3_host_tensor_broadcast.py#HostTensorBroadcast":                                  {from: "_expected_broadcast(root=ROOT_RANK=0)", want: rootRow(0)},
	"tests/st/distributed/test_l3_host_tensor_broadcast.py#_build_host_broadcast_signal_reuse_program":           {from: "_expected_broadcast per round", want: perRound(rootRow(0))},
	"tests/st/distributed/test_l3_put.py#_build_atomic_add_program":                                              {from: "test_atomic_add_accumulate: the root holds the element-wise sum; other ranks unchecked", want: rootSum},
	"tests/st/distributed/test_l3_device_tensor.py#L3AddProgram":                                                 {from: "the test's expected f = a + b for one dispatch (the runtime's resident weight and repeated submits are not modelled)", want: addAB},
	"tests/st/distributed/test_l3_ring_sizing_prewarm.py#L3AddProgram":                                           {from: "the test's expected f = a + b (the runtime's prewarm is not modelled)", want: addAB},
	"tests/st/distributed/test_l3_distributed.py#L3DependencyProgram": {from: "test_execute: f = a + b (the SubWorker verify callback is not run)", want: addAB, only: "TestL3Dependency.test_execute",
		others: "not applicable here: they assert PyPTO's runtime API, compiled.prepare(sub_worker_overrides=...) running a Python closure in place of the verify callback and raising ValueError for an unknown callback name, which the workbench has no counterpart of"},
	"tests/st/distributed/test_l3_manual.py#L2OnlyAddProgram": {from: "test_manual_l3: f = a + b = 5 on a = 2, b = 3, the chip build's output (the hand-written L3 Worker around it and its SubWorker verify closure are not run)",
		want: addAB, inputs: fullInputs(2, 3)},
	"tests/st/distributed/test_l2_multi_orch.py#TwoL2AddSubProgram": {from: "test_execute_one_orch_on_device: compiled[\"chip_orch_add\"] gives f = a + b = 5 on a = 2, b = 3",
		want: addAB, inputs: fullInputs(2, 3), only: "TestL2MultiOrch.test_execute_one_orch_on_device", tests: twoL2Tests},
	"tests/st/distributed/test_l3_host_tensor_allgather.py#HostTensorAllGather":                               {from: "_expected_allgather", want: gatherRows},
	"tests/st/distributed/test_l3_host_tensor_allgather.py#_build_host_allgather_signal_reuse_program":        {from: "_expected_allgather per round", want: perRound(gatherRows)},
	"tests/st/distributed/test_l3_dfx_per_rank.py#_build_per_rank_program":                                    {from: "the test's assertion: outputs == inputs + 1 (the DFX artefacts it also checks are not modelled)", want: plusOne},
	"tests/st/distributed/test_l3_rank_slice_dispatch.py#_build_rank_slice_program":                           {from: "the test's expected inputs + 1", want: plusOne},
	"tests/st/distributed/collectives/test_l3_tensor_collective_signal_reuse.py#_build_all_to_all_twice":      {from: "_expected_all_to_all of the second call's inputs", want: onInput(1, transposeRows), inputs: secondCallOffset},
	"tests/st/distributed/collectives/test_l3_tensor_collective_signal_reuse.py#_build_allgather_twice":       {from: "_expected_allgather of the second call's inputs", want: onInput(1, gatherRows), inputs: secondCallOffset},
	"tests/st/distributed/collectives/test_l3_tensor_collective_signal_reuse.py#_build_reduce_scatter_twice":  {from: "_expected_reduce_scatter(seconds)", want: onInput(1, scatterSums), inputs: secondCallOffset},
	"tests/st/distributed/test_l3_explicit_dispatch_onboard.py#L3AddProgram":                                  {from: "the test's expected f = a + weight (the runtime's explicit-dispatch handles are not modelled)", want: addAB},
	"tests/st/distributed/test_l3_stacked_device_tensor.py#_build_identity_program":                           {from: "_run_stacked's expected f[r] = a[r] + b[r] (the stacked upload is not modelled)", want: addAB},
	"tests/st/distributed/test_l3_stacked_device_tensor.py#_build_permuted_program":                           {from: "_run_stacked's expected f[r] = a[r] + b[r] (the stacked upload is not modelled)", want: addAB},
	"tests/st/distributed/test_l3_window_slice_incore.py#_build_window_source_slice_program":                  {from: "test_window_row_slice_read: inputs[:, HALF:N, :]", want: bottomHalf},
	"tests/st/distributed/test_l3_window_slice_incore.py#_build_window_target_slice_program":                  {from: "test_local_stage_into_window_slice: outputs == inputs", want: perRow(func(P, r int, row []float64, in []*emu.Tensor) []float64 { return row })},
	"tests/st/distributed/test_l3_remote_store.py#_build_tensor_remote_store_program":                         {from: "test_tensor_level_push_of_computed_value: [inputs[1], inputs[0]] * 2", want: swapDoubled},
	"tests/st/distributed/test_l3_window_slice_incore.py#_build_window_compute_reduce_program":                {from: "test_cast_add_on_window: sh + cast(routed, fp32)", want: addAB, tol: func(conformCaseSpec) float64 { return 1e-2 }},
	"tests/st/distributed/collectives/test_l3_tensor_all_to_all_v_intrinsic.py#_build_all_to_all_v_program":   {from: "the test's golden validation: recv_outputs[rank, src] = send_counts[src, rank], rows src*mr+k = inputs[src, rank*mr+k]", want: allToAllV, inputs: allToAllVInputs},
	"tests/st/distributed/test_l3_host_tensor_all_to_all_v.py#_build_host_all_to_all_v_program":               {from: "the test's assertion: recv_outputs[rank, src] = send_counts[src, rank], rows src*mr+k = inputs[src, rank*mr+k]", want: allToAllV, inputs: allToAllVInputs},
	"tests/st/distributed/test_l3_gemm.py#_build_gemm_program":                                                {from: "_expected_gemm: c[r] = a[r] @ b (small deterministic inputs stand in for torch.randn)", want: gemm, inputs: gemmInputs},
	"tests/st/distributed/test_l3_distributed.py#L3DependencyInlineProgram":                                   {from: "test_execute_inline: sum_buf = a + b, sub_buf = a - b", want: sumDiff},
	"tests/st/distributed/test_l3_explicit_dispatch_onboard.py#L3MultiChipProgram":                            {from: "test_l3_explicit_dispatch_multi_chip: sum_buf = a + b, sub_buf = a - b (the runtime's prepare/register handles are not modelled)", want: sumDiff},
	"tests/st/distributed/test_l3_remote_store.py#_build_subview_remote_store_program":                        {from: "test_subview_halves: cat([inputs_low[1-r], inputs_high[1-r]])", want: swapHalves},
	"tests/st/distributed/test_l3_remote_store_window_raw.py#_build_repro":                                    {from: "the test's assertion: outs[q][(q+1)%N] == srcs[w][w] (other rows unchecked)", want: writtenRow},
	"tests/st/distributed/test_l3_self_notify_credit_reset.py#_build_self_notify_credit_reset_program":        {from: "_assert_zeroed: every rank reads 0 (the persistent test's repeated dispatches are one run here)", want: allZero},
	"tests/st/distributed/test_l3_host_tensor_allreduce_multicore.py#_build_multicore_allreduce_program":      {from: "_expected_allreduce and the test's lane check: signal_outputs[rank, peer, :core_num] == 0", want: multicoreLanes, inputs: multicoreInputs},
	"tests/st/distributed/test_l3_host_tensor_allreduce_multicore.py#_build_multicore_allreduce_signal_reuse": {from: "_expected_allreduce per round on inputs offset by rd*10000", want: perRound(sumRows), inputs: multicoreReuseInputs},
	"tests/st/distributed/test_l3_tuple_return.py#L3TupleReturnProgram":                                       {from: "the test's expected_sum and expected_diff: a + b, a - b", want: sumDiff},
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
	n := len(x.Floats()) / P
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
var scatterSums = perRow(func(P, r int, _ []float64, in []*emu.Tensor) []float64 {
	sum := make([]float64, len(in[0].Row(r))/P)
	for k := 0; k < P; k++ {
		for j, v := range chunk(in[0], P, k, r) {
			sum[j] = float64(float32(sum[j] + v))
		}
	}
	return sum
})

// transposeRows: output[rank][src] = input[src][rank].
var transposeRows = perRow(func(P, r int, _ []float64, in []*emu.Tensor) []float64 {
	var out []float64
	for src := 0; src < P; src++ {
		out = append(out, chunk(in[0], P, src, r)...)
	}
	return out
})

// chunk is chunk r of rank k's row of x, read as P equal chunks.
func chunk(x *emu.Tensor, P, k, r int) []float64 {
	row := x.Row(k)
	n := len(row) / P
	return row[r*n : (r+1)*n]
}

// sumDiff: out_sum = a + b, out_diff = a - b.
func sumDiff(_ conformCaseSpec, in []*emu.Tensor, _ int) ([][]float64, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("want two input tensors, got %d", len(in))
	}
	a, b := in[0].Floats(), in[1].Floats()
	s, d := make([]float64, len(a)), make([]float64, len(a))
	for i := range a {
		s[i], d[i] = float64(float32(a[i]+b[i])), float64(float32(a[i]-b[i]))
	}
	return [][]float64{s, d}, nil
}

// param is a case's parameter as written, without string quotes.
func param(s conformCaseSpec, name, def string) string {
	v, ok := s.Params[name]
	if !ok {
		return def
	}
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// isHalf reports whether a case runs FP16, as its dtype parameter or its
// test's name says.
func isHalf(s conformCaseSpec) bool {
	return param(s, "dtype", "") == "pl.FP16" || strings.Contains(s.Test, "fp16")
}

// reduceRows is _expected_allreduce(inputs, op_name): the element-wise
// reduction over ranks, replicated on every rank, each step rounded to
// the tensor's dtype as the device's accumulation is.
func reduceRows(s conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	x, err := rows(in, 0, P)
	if err != nil {
		return nil, err
	}
	op := param(s, "op_name", "sum")
	n := len(x.Floats()) / P
	acc := append([]float64{}, x.Row(0)...)
	for r := 1; r < P; r++ {
		for j, v := range x.Row(r) {
			switch op {
			case "sum":
				acc[j] += v
			case "max":
				acc[j] = math.Max(acc[j], v)
			case "min":
				acc[j] = math.Min(acc[j], v)
			case "prod":
				acc[j] *= v
			default:
				return nil, fmt.Errorf("unsupported golden allreduce op %q", op)
			}
			acc[j] = floats.RoundTo(x.DType, acc[j])
		}
	}
	out := make([]float64, 0, n*P)
	for r := 0; r < P; r++ {
		out = append(out, acc...)
	}
	return [][]float64{out}, nil
}

// allreduceInputs is _make_rank_inputs of the allreduce tests: for a
// product or FP16, 1 + r/8 + (j mod 5)/16; otherwise r*100 + j.
func allreduceInputs(s conformCaseSpec, in []*emu.Tensor, P int) {
	x, err := rows(in, 0, P)
	if err != nil {
		return
	}
	small := param(s, "op_name", "sum") == "prod" || isHalf(s)
	for r := 0; r < P; r++ {
		row := x.Row(r)
		for j := range row {
			v := float64(r)*100 + float64(j)
			if small {
				v = 1 + float64(r)*0.125 + float64(j%5)*0.0625
			}
			row[j] = floats.RoundTo(x.DType, v)
		}
	}
}

// allreduceTol is the tests' tolerance: 2e-2 for FP16, else allclose's.
func allreduceTol(s conformCaseSpec) float64 {
	if isHalf(s) {
		return 2e-2
	}
	return floats.Tolerance
}

// reduceOp is reduceRows with the op fixed by the test, not a parameter.
func reduceOp(op string) func(conformCaseSpec, []*emu.Tensor, int) ([][]float64, error) {
	return func(s conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
		s.Params = map[string]string{"op_name": op}
		return reduceRows(s, in, P)
	}
}

// hostAllreduceInputs is the host allreduce test's _make_rank_inputs: for
// a product 1 + r/8 + (j mod 5)/16, otherwise r*100 + j, in any dtype.
func hostAllreduceInputs(s conformCaseSpec, in []*emu.Tensor, P int) {
	x, err := rows(in, 0, P)
	if err != nil {
		return
	}
	prod := param(s, "op_name", "sum") == "prod"
	for r := 0; r < P; r++ {
		row := x.Row(r)
		for j := range row {
			v := float64(r)*100 + float64(j)
			if prod {
				v = 1 + float64(r)*0.125 + float64(j%5)*0.0625
			}
			row[j] = floats.RoundTo(x.DType, v)
		}
	}
}

// otherFirstRow: on two ranks, rank r's output is the first row of the
// other rank's input.
func otherFirstRow(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	x, err := rows(in, 0, P)
	if err != nil {
		return nil, err
	}
	if P != 2 || len(x.Shape) < 3 {
		return nil, fmt.Errorf("the test runs two ranks with [2, ROWS, SIZE] inputs; got P=%d, shape %v", P, x.Shape)
	}
	size := x.Shape[len(x.Shape)-1]
	var out []float64
	for r := 0; r < P; r++ {
		out = append(out, x.Row(1 - r)[:size]...)
	}
	return [][]float64{out}, nil
}

// handshakeTags is the test's own expected tensor for its two ranks: each
// rank reads the tag its peer wrote (rank k writes k+1), so rank 0 sees 2
// and rank 1 sees 1.
func handshakeTags(_ conformCaseSpec, _ []*emu.Tensor, P int) ([][]float64, error) {
	if P != 2 {
		return nil, fmt.Errorf("the test's expected tags are for 2 ranks, got %d", P)
	}
	return [][]float64{{2, 1}}, nil
}

// perRound applies a golden to each round of a signal-reuse test, whose
// first input and output carry a leading [ROUNDS] dimension (inputs[rd]
// is one round's per-rank tensor, checked against the same expectation).
func perRound(g func(conformCaseSpec, []*emu.Tensor, int) ([][]float64, error)) func(conformCaseSpec, []*emu.Tensor, int) ([][]float64, error) {
	return func(s conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
		if len(in) == 0 || len(in[0].Shape) < 2 {
			return nil, fmt.Errorf("want a [ROUNDS, P, ...] input")
		}
		x := in[0]
		rounds := x.Shape[0]
		n := len(x.Floats()) / rounds
		var out []float64
		for rd := 0; rd < rounds; rd++ {
			sub := emu.NewTensor(x.DType, x.Shape[1:], x.Floats()[rd*n:(rd+1)*n])
			w, err := g(s, []*emu.Tensor{sub}, P)
			if err != nil {
				return nil, fmt.Errorf("round %d: %v", rd, err)
			}
			out = append(out, w[0]...)
		}
		return [][]float64{out}, nil
	}
}

// rootSum: rank 0 holds the element-wise sum of every rank's input; the
// other ranks' outputs are not checked (NaN: compareGolden skips them).
func rootSum(s conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	w, err := sumRows(s, in, P)
	if err != nil {
		return nil, err
	}
	n := len(w[0]) / P
	for i := n; i < len(w[0]); i++ {
		w[0][i] = math.NaN()
	}
	return w, nil
}

// addAB: the output is a + b.
func addAB(s conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	w, err := sumDiff(s, in, P)
	if err != nil {
		return nil, err
	}
	return w[:1], nil
}

// plusOne: the output is the input plus one.
var plusOne = perRow(func(P, r int, row []float64, in []*emu.Tensor) []float64 {
	return mapf(row, func(v float64) float64 { return float64(float32(v + 1)) })
})

// onInput applies a golden to the host's input i onwards (the second
// call's inputs of a back-to-back test).
func onInput(i int, g func(conformCaseSpec, []*emu.Tensor, int) ([][]float64, error)) func(conformCaseSpec, []*emu.Tensor, int) ([][]float64, error) {
	return func(s conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
		if i >= len(in) {
			return nil, fmt.Errorf("the golden reads input %d of %d", i+1, len(in))
		}
		return g(s, in[i:], P)
	}
}

// secondCallOffset is the back-to-back tests' input rule: the second
// call's inputs are the first's plus SECOND_CALL_OFFSET (100000), so data
// leaking from the first call shows.
func secondCallOffset(_ conformCaseSpec, in []*emu.Tensor, _ int) {
	if len(in) < 2 {
		return
	}
	copy(in[1].Floats(), in[0].Floats())
	for j := range in[1].Floats() {
		in[1].Floats()[j] = floats.RoundTo(in[1].DType, in[1].Floats()[j]+100000)
	}
}

// bottomHalf: each rank's output is the bottom half of its input's rows.
func bottomHalf(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	x, err := rows(in, 0, P)
	if err != nil {
		return nil, err
	}
	if len(x.Shape) != 3 {
		return nil, fmt.Errorf("want [P, N, W] inputs, got %v", x.Shape)
	}
	n, w := x.Shape[1], x.Shape[2]
	var out []float64
	for r := 0; r < P; r++ {
		out = append(out, x.Row(r)[n/2*w:]...)
	}
	return [][]float64{out}, nil
}

// swapDoubled: on two ranks, each rank holds twice its partner's input.
func swapDoubled(s conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	w, err := shiftRows(+1)(s, in, P)
	if err != nil {
		return nil, err
	}
	for i, v := range w[0] {
		w[0][i] = float64(float32(v + v))
	}
	return w, nil
}
