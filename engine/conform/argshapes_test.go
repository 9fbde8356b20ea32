package conform

import (
	"fmt"
	"testing"
)

// TestConformArgShapes: the shapes of the tensors a test hands its
// compiled program are read from the torch factories that make them, by
// position; an argument made otherwise is unknown (nil).
func TestConformArgShapes(t *testing.T) {
	src := []byte(`import pypto.language as pl
import torch

ROWS = 16


@pl.program
class P:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, a: pl.Tensor[[2, 64], pl.FP32]):
        pass


class TestIt:
    @pytest.mark.parametrize("cols", [8])
    def test_shapes(self, device_ids, cols):
        compiled = ir.compile(P, distributed_config=DistributedConfig(device_ids=device_ids[:2]))
        a = torch.full((ROWS * 2, cols), 5.0, dtype=torch.float32)
        b = torch.zeros(4, cols)
        c = make_it()
        d = torch.ones([3, 5], dtype=torch.int32)
        compiled(a, b, c, d)
`)
	file, diags := parseForTest(src)
	if diags != nil {
		t.Fatal(diags)
	}
	_, cases := discoverCases(file)
	if len(cases) != 1 {
		t.Fatalf("got %d cases, want 1", len(cases))
	}
	got := fmt.Sprint(cases[0].ArgShapes)
	if want := "[[32 8] [4 8] [] [3 5]]"; got != want {
		t.Errorf("ArgShapes = %s, want %s", got, want)
	}
}
