package conform

import (
	"fmt"

	"pldworkbench/engine/emu"
)

// Goldens of the programs whose language the workbench learned late
// (composite pl.dynamic dimensions, pl.array): one file, so the table in
// golden.go stays one line per program.
// langGoldens joins conformGoldens (conform.go looks both up).
var langGoldens = map[string]*conformGolden{
	"tests/st/distributed/test_l3_composite_shape_dim.py#_build_program": {
		from:   "test_execute: a = full(5.0), b = full(3.0) at (128, 128); expected_f = a + b (8.0), expected_g = a - b (2.0)",
		want:   compositeDims,
		inputs: fullInputs(5, 3), // a = 5.0, b = 3.0
	},
	"tests/st/distributed/test_l3_ep_dispatch_combine.py#_build_ep_dispatch_combine_program": {
		from:   "_compute_golden_recv and _compute_golden_routed on the test's inputs (routing indices from a seeded Go generator under _generate_routing_indices' constraints)",
		want:   epWant,
		inputs: epInputs,
		tols:   epTols,
	},
}

// compositeDims is the test's expected_f = a + b and expected_g = a - b
// on the (128, 128) tensors it hands the program: a run whose tensors
// took another shape (the dimensions M * 2 and N bound otherwise) fails.
func compositeDims(s conformCaseSpec, in []*emu.Tensor, _ int) ([][]float64, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("want two input tensors, got %d", len(in))
	}
	for _, t := range in[:2] {
		if len(t.Shape) != 2 || t.Shape[0] != 128 || t.Shape[1] != 128 {
			return nil, fmt.Errorf("input has shape %v, want the test's (128, 128)", t.Shape)
		}
	}
	a, b := in[0].Floats(), in[1].Floats()
	f, g := make([]float64, len(a)), make([]float64, len(a))
	for i := range a {
		f[i], g[i] = float64(float32(a[i]+b[i])), float64(float32(a[i]-b[i]))
	}
	return [][]float64{f, g}, nil
}
