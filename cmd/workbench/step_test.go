package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyCommand drives `workbench verify`, the acceptance gate of the
// lessons: every solution and builtin passes, every bug fails as it says.
func TestVerifyCommand(t *testing.T) {
	code, out, errs := runCLI("verify", "--json")
	var got verifyJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("verify --json: %v\n%s%s", err, out, errs)
	}
	if code != 0 || !got.OK {
		t.Fatalf("verify: exit %d, ok %v\n%s", code, got.OK, out)
	}
	bugs, runs := 0, 0
	for _, kr := range got.Kernels {
		runs += len(kr.Verdicts)
		if kr.Variant == "bug" {
			bugs++
			for _, v := range kr.Verdicts {
				if v.Pass {
					t.Errorf("bug %s passes at %d ranks", kr.Kernel, v.Ranks)
				}
			}
		}
	}
	if bugs < 2 || runs < 100 {
		t.Errorf("verify ran %d runs and %d bug variants; want every kernel at every rank count", runs, bugs)
	}
	code, out, _ = runCLI("verify")
	if code != 0 || !strings.Contains(out, "every solution and builtin passes, every bug fails as documented") {
		t.Errorf("verify: exit %d\n%s", code, out)
	}
}

func TestStepCommand(t *testing.T) {
	mine := filepath.Join(t.TempDir(), "mine.py")
	src, err := os.ReadFile("../../kernels/08_allreduce_mesh_bug.py")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, src, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"step", "8"}, 0, "P=8 mesh_allreduce: pass"},
		{[]string{"step", "8", "--ranks", "3"}, 0, "P=3 mesh_allreduce: pass"},
		{[]string{"step", "4", "--kernel", "builtin"}, 0, "04_barrier_builtin (builtin)"},
		{[]string{"step", "8", "--kernel", "bug"}, 1, "fails as documented"},
		{[]string{"step", "7", "--kernel", "bug", "--ranks", "4"}, 1, "peer -2 out of range [0, 4)"},
		{[]string{"step", "8", "--check", "../../kernels/08_allreduce_mesh.py"}, 0, "pass at every rank count"},
		{[]string{"step", "8", "--check", mine, "--ranks", "2"}, 1, "fail (fair schedule), race: rank 1 read at line 56"},
		{[]string{"step", "4", "--kernel", "bug", "--ranks", "2"}, 1, "fail (adversarial schedule), race: rank 0 read at line 80"},
		{[]string{"step", "15", "--kernel", "bug", "--ranks", "4"}, 1, "wrong_data: y: 384 of 1024 elements wrong"},
		{[]string{"step", "8", "--ranks", "5"}, 2, "not 5"},
		{[]string{"step", "1", "--kernel", "bug"}, 2, "has no bug kernel"},
		{[]string{"step", "21"}, 2, "want a step number from 1 to 20"},
		{[]string{"step", "8", "--kernel", "starter"}, 2, "unknown"},
		{[]string{"step"}, 2, "missing FILE"},
		{[]string{"verify", "x"}, 2, "no arguments"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(tt.args...)
		if code != tt.code || !strings.Contains(out+errs, tt.contains) {
			t.Errorf("workbench %s: exit %d, want %d and %q\nstdout: %s\nstderr: %s", strings.Join(tt.args, " "), code, tt.code, tt.contains, out, errs)
		}
	}
}

func TestStepsJSON(t *testing.T) {
	code, out, _ := runCLI("steps", "--json")
	var rows []stepJSON
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != 0 {
		t.Fatalf("steps --json: exit %d, %v\n%s", code, err, out)
	}
	if len(rows) != 20 {
		t.Fatalf("%d steps, want 20", len(rows))
	}
	s8 := rows[7]
	if s8.Number != 8 || s8.Slug != "allreduce-mesh" || s8.DefaultRanks != 2 || len(s8.Ranks) != 4 ||
		len(s8.Variants) != 2 || s8.Variants[1] != "bug" {
		t.Errorf("step 8 = %+v", s8)
	}
	if rows[10].Variants[0] != "builtin" {
		t.Errorf("step 11 = %+v", rows[10])
	}
}
