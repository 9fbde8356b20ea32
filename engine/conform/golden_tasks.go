package conform

import (
	"fmt"

	"pldworkbench/engine/emu"
)

// The golden of upstream's deferred-completion test
// (test_l3_deferred_completion.py): two ranks, each with waiter_count
// waiter/consumer task pairs and one publisher that sends its payload to
// the next rank.

// deferredInputs is the test's _inputs(epoch=1): rank r's payload lanes
// hold its tag r+1 (inputs[0].fill_(1), inputs[1].fill_(2)) and lane 0 of
// every rank holds the epoch, which the waiters expect and the publisher
// sets as the signal.
func deferredInputs(_ conformCaseSpec, in []*emu.Tensor, P int) {
	x, err := rows(in, 0, P)
	if err != nil {
		return
	}
	const epoch = 1
	for r := 0; r < P; r++ {
		row := x.Row(r)
		for j := range row {
			row[j] = float64(r + 1)
		}
		row[0] = epoch
	}
}

// deferredExpected is the test's _expected(waiter_count, epoch=1): every
// consumer row of rank 0 holds rank 1's tag 2 and every row of rank 1 holds
// rank 0's tag 1, lane 0 the epoch.
func deferredExpected(_ conformCaseSpec, _ []*emu.Tensor, outShapes [][]int, P int) ([][]float64, error) {
	if P != 2 {
		return nil, fmt.Errorf("the test runs at 2 ranks, got %d", P)
	}
	if len(outShapes) != 1 || len(outShapes[0]) != 3 || outShapes[0][0] != P {
		return nil, fmt.Errorf("want one output of shape [2, waiter_count, width], got %v", outShapes)
	}
	waiters, width := outShapes[0][1], outShapes[0][2]
	const epoch = 1
	want := make([]float64, 0, P*waiters*width)
	for r := 0; r < P; r++ {
		tag := 2.0 // expected[0].fill_(2)
		if r == 1 {
			tag = 1 // expected[1].fill_(1)
		}
		for k := 0; k < waiters; k++ {
			want = append(want, epoch) // expected[:, :, 0].fill_(epoch)
			for j := 1; j < width; j++ {
				want = append(want, tag)
			}
		}
	}
	return [][]float64{want}, nil
}
