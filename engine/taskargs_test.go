package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// TestTensorAfterScalarFailsAtRunTime pins the stage of the scalar-before-
// tensor bug: PyPTO compiles such a kernel and its runtime refuses the
// dispatch (TaskArgs: cannot add tensor after scalar), so the check is
// clean and the run fails with E0518 at the wrapper's call of the kernel.
func TestTensorAfterScalarFailsAtRunTime(t *testing.T) {
	const file = "testdata/run/tensor_after_scalar.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if res := engine.Load(context.Background(), file, src, engine.Options{}).Check(context.Background(), engine.Options{}); res.Diags.HasErrors() {
		t.Fatalf("check reports errors, want none (PyPTO compiles it): %v", res.Diags)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{})
	if res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0518" {
		t.Fatalf("status %s, error %+v, want runtime_error E0518", res.Status, res.Error)
	}
	if !strings.Contains(res.Error.Message, "TaskArgs: cannot add tensor after scalar") || res.Error.Line == 0 {
		t.Errorf("error %+v, want PyPTO's TaskArgs message with a line", res.Error)
	}
}
