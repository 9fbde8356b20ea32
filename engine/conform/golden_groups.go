package conform

import (
	"fmt"

	"pldworkbench/engine/emu"
)

// The golden of upstream's multi-group test (test_l3_multi_group.py): two
// overlapping two-device groups, A = {0, 1} and B = {1, 2}, each swapping
// its members' inputs.

// groupSwapInputs is the test's per-device constant payloads:
// torch.full((1, SIZE), 10.0 + d) for device d.
func groupSwapInputs(_ conformCaseSpec, in []*emu.Tensor, P int) {
	x, err := rows(in, 0, P)
	if err != nil {
		return
	}
	for d := 0; d < P; d++ {
		row := x.Row(d)
		for j := range row {
			row[j] = 10 + float64(d)
		}
	}
}

// groupSwapExpected is the test's expected_a and expected_b: group A's
// devices read each other (outputs_a = [inputs[1], inputs[0], 0]), group
// B's too (outputs_b = [0, inputs[2], inputs[1]]); the slot of the device
// outside a group stays zero.
func groupSwapExpected(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	if P != 3 {
		return nil, fmt.Errorf("the test runs at 3 ranks, got %d", P)
	}
	x, err := rows(in, 0, P)
	if err != nil {
		return nil, err
	}
	zero := make([]float64, len(x.Row(0)))
	stack := func(rows ...[]float64) []float64 {
		var out []float64
		for _, r := range rows {
			out = append(out, r...)
		}
		return out
	}
	a := stack(x.Row(1), x.Row(0), zero)
	b := stack(zero, x.Row(2), x.Row(1))
	return [][]float64{a, b}, nil
}

// fullInputs is a test's torch.full inputs: input i is all vs[i] (an
// input past vs keeps its values).
func fullInputs(vs ...float64) func(conformCaseSpec, []*emu.Tensor, int) {
	return func(_ conformCaseSpec, in []*emu.Tensor, _ int) {
		for i, v := range vs {
			if i < len(in) {
				xs := in[i].Floats()
				for j := range xs {
					xs[j] = v
				}
			}
		}
	}
}

// parallelReduceExpected is test_execute's f = (a + b) + (a - b), the two
// chip tasks' FP32 results summed by the reduce_sum callback.
func parallelReduceExpected(_ conformCaseSpec, in []*emu.Tensor, _ int) ([][]float64, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("want inputs a and b, got %d", len(in))
	}
	a, b := in[0].Floats(), in[1].Floats()
	f := make([]float64, len(a))
	for i := range a {
		f[i] = float64(float32(float32(a[i]+b[i]) + float32(a[i]-b[i])))
	}
	return [][]float64{f}, nil
}
