package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
	bugs, runs, starters := 0, 0, 0
	for _, kr := range got.Kernels {
		runs += len(kr.Verdicts)
		if kr.Variant == "starter" {
			starters++
		}
		if kr.Variant == "bug" {
			bugs++
			for _, v := range kr.Verdicts {
				if v.Pass {
					t.Errorf("bug %s passes at %d ranks", kr.Kernel, v.Ranks)
				}
			}
		}
	}
	if bugs < 2 || runs < 100 || starters < 7 {
		t.Errorf("verify ran %d runs, %d bug variants and %d starters; want every kernel at every rank count", runs, bugs, starters)
	}
	code, out, _ = runCLI("verify")
	if code != 0 || !strings.Contains(out, "every solution and builtin passes, every bug fails as documented, every starter runs") ||
		!strings.Contains(out, "01_hello_rank_starter") {
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
		{[]string{"step", "8", "--check", mine, "--ranks", "2"}, 1, "fail (fair schedule), race: rank 1 read at line 60"},
		{[]string{"step", "4", "--kernel", "bug", "--ranks", "2"}, 1, "fail (adversarial schedule), race: rank 0 read at line 84"},
		{[]string{"step", "15", "--kernel", "bug", "--ranks", "4"}, 1, "wrong_data: y: 384 of 1024 elements wrong"},
		{[]string{"step", "8", "--ranks", "5"}, 2, "not 5"},
		{[]string{"step", "19", "--kernel", "builtin"}, 2, "step 19 has no builtin kernel; it has: [starter solution bug]"},
		{[]string{"step", "21"}, 2, "want a step number from 1 to 20"},
		{[]string{"step", "8", "--kernel", "nope"}, 2, "--kernel nope unknown, want starter, solution, builtin or bug"},
		{[]string{"step", "4", "--kernel", "starter", "--ranks", "2"}, 1, "starter: fill in the gaps marked TODO, then run `workbench step 4 --check FILE`"},
		{[]string{"step", "7", "--kernel", "starter", "--ranks", "3"}, 1, "P=3 across_by_get: fail (fair schedule), wrong_data"},
		{[]string{"step", "4", "--check", "../../kernels/04_barrier_starter.py", "--ranks", "2"}, 1, "wrong_data: tally: 2 of 4 elements wrong"},
		{[]string{"step"}, 2, "step: missing N (a step number)"},
		{[]string{"step", "--help"}, 0, "usage: workbench step N"},
		{[]string{"steps", "--help"}, 0, "usage: workbench steps [--json]"},
		{[]string{"verify", "-h"}, 0, "usage: workbench verify [--json]"},
		{[]string{"check", "--help"}, 0, "usage: workbench check FILE"},
		{[]string{"run", "--help"}, 0, "usage: workbench run FILE"},
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
		!slices.Contains(s8.Variants, "solution") || !slices.Contains(s8.Variants, "bug") {
		t.Errorf("step 8 = %+v", s8)
	}
	if slices.Contains(rows[10].Variants, "solution") || !slices.Contains(rows[10].Variants, "builtin") {
		t.Errorf("step 11 = %+v", rows[10])
	}
	// Starters are found by file name: step 4 lists one first, with its kernel.
	if s4 := rows[3]; s4.Variants[0] != "starter" || !slices.Contains(s4.Kernels, "04_barrier_starter") {
		t.Errorf("step 4 = %+v", s4)
	}
}

// TestRanksText checks the rank count is spelled right at one rank, where
// "at 1 ranks" used to come out.
func TestRanksText(t *testing.T) {
	for n, want := range map[int]string{1: "1 rank", 2: "2 ranks", 8: "8 ranks"} {
		if got := ranksText(n); got != want {
			t.Errorf("ranksText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestStepCheckFeedback: `step N --check FILE` reports the first failing
// run as `run` does (the caret and hint of a compile error, who has
// notified a deadlocked wait), and names wrong data by its pattern on the
// index fill.
func TestStepCheckFeedback(t *testing.T) {
	dir := t.TempDir()
	write := func(name, from, old, new string) string {
		src, err := os.ReadFile("../../kernels/" + from)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(src), old, new, 1)
		if s == string(src) {
			t.Fatalf("%s: %q not found", from, old)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hang := write("hang.py", "04_barrier_hand.py", "pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)", "pass")
	code, out, _ := runCLI("step", "4", "--check", hang, "--ranks", "2")
	if code != 1 || !strings.Contains(out, "the first failing run") || !strings.Contains(out, "no rank has notified it") {
		t.Errorf("a deadlocking file: exit %d\n%s", code, out)
	}
	bad := filepath.Join(dir, "order.py")
	src, _ := os.ReadFile("../../kernels/02_three_levels_bug.py")
	os.WriteFile(bad, src, 0o644)
	code, out, _ = runCLI("step", "2", "--check", bad, "--ranks", "2")
	if code != 1 || !strings.Contains(out, "    |         ^") || !strings.Contains(out, "hint: ") {
		t.Errorf("a file that does not compile: exit %d, want the caret and the hint\n%s", code, out)
	}
	code, out, _ = runCLI("step", "8", "--kernel", "starter", "--ranks", "4")
	if code != 1 || !strings.Contains(out, "on the index fill: y[0]: unchanged: the rank's own input") {
		t.Errorf("the mesh starter: exit %d, want its wrong data named on the index fill\n%s", code, out)
	}
}
