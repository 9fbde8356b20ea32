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
