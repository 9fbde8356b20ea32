package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRunNamesKernel: a step run may name which of the variant's kernels
// it stands for (step 20 has two solutions), and its entry is matched to
// the kernel's header ignoring blanks, as lesson cells write entries
// without them. Both used to leave such runs without a golden.
func TestRunNamesKernel(t *testing.T) {
	ts := start(t, "")
	tests := []struct {
		kernel, variant, entry string
		step                   int
	}{
		{"20_signal_reuse", "solution", `build_signal_reuse(4,"ring").twice_in_kernel`, 20},
		{"20_signal_reuse", "solution", "build_signal_reuse(4).twice_on_host", 20},
		{"11_allreduce_reveal", "builtin", `build_allreduce_reveal(4,"ring","sum").allreduce`, 11},
	}
	for _, tt := range tests {
		_, ms := ts.watch(t, map[string]any{"code": kernelSource(t, tt.kernel), "step": tt.step, "variant": tt.variant,
			"kernel": tt.kernel, "entry": tt.entry, "ranks": 4, "fill": "index"})
		done := ofType(ms, "done")[0]
		var v struct {
			Pass   bool   `json:"pass"`
			Status string `json:"status"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal(done.Check, &v); err != nil {
			t.Fatalf("%s %s: check %s: %v", tt.kernel, tt.entry, done.Check, err)
		}
		if done.Status != "ok" || !v.Pass {
			t.Errorf("%s %s: %s, check %+v, want ok and a passing check", tt.kernel, tt.entry, done.Status, v)
		}
	}

	// A kernel that is not the variant's is refused with the list.
	code, b := ts.do(t, "POST", "/api/runs", map[string]any{"code": "x", "step": 20, "variant": "solution", "kernel": "08_allreduce_mesh"})
	if code != 400 || !strings.Contains(string(b), "20_debugging_lab, 20_signal_reuse") {
		t.Errorf("foreign kernel: %d %s", code, b)
	}
	code, b = ts.do(t, "POST", "/api/runs", map[string]any{"code": "x", "kernel": "08_allreduce_mesh"})
	if code != 400 || !strings.Contains(string(b), "without a step") {
		t.Errorf("kernel without step: %d %s", code, b)
	}
}
