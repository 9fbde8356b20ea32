package engine_test

import (
	"context"
	"os"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// TestTupleResultsFlow runs a program whose tuple results feed later calls
// (unpacked, and held in one name and indexed): out is 5x - 1 only if every
// element reaches the parameter its position names.
func TestTupleResultsFlow(t *testing.T) {
	const file = "testdata/run/tuple_flow.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Run(context.Background(), file, src, engine.RunOptions{})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	x, out := res.In["x"].Floats(), res.Out["out"].Floats()
	if len(x) != len(out) || len(x) == 0 {
		t.Fatalf("x has %d elements, out %d", len(x), len(out))
	}
	for i := range x {
		if want := 5*x[i] - 1; out[i] != want {
			t.Fatalf("out[%d] = %g, want 5*%g - 1 = %g", i, out[i], x[i], want)
		}
	}
}
