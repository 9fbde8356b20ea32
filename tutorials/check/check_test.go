package check_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/kernels"
	"pldworkbench/tutorials"
	"pldworkbench/tutorials/check"
)

// TestVerify is `workbench verify`: every solution and builtin passes at
// every rank count, every bug variant fails the way it documents.
func TestVerify(t *testing.T) {
	results, ok := check.Verify(context.Background(), limits.Budget{})
	for _, kr := range results {
		if kr.Err != "" {
			t.Errorf("%s (%s): %s", kr.Kernel, kr.Variant, kr.Err)
		}
		if kr.OK {
			continue
		}
		for _, v := range kr.Verdicts {
			t.Errorf("%s (%s, bug %q): %s", kr.Kernel, kr.Variant, kr.Bug, v)
		}
	}
	if !ok && !t.Failed() {
		t.Error("Verify reports failure, but no kernel result says why")
	}
}

// TestTableCoversKernels: every embedded kernel belongs to exactly one step
// of the table, under the step its name starts with, and the table has the
// syllabus's twenty steps.
func TestTableCoversKernels(t *testing.T) {
	steps := check.Steps()
	if len(steps) != len(tutorials.Syllabus) {
		t.Fatalf("%d steps in the check table, %d in the syllabus", len(steps), len(tutorials.Syllabus))
	}
	seen := map[string]int{}
	for i, s := range steps {
		if s.Number != i+1 || s.Number != tutorials.Syllabus[i].Number {
			t.Errorf("row %d is step %d", i, s.Number)
		}
		if len(s.Solution)+len(s.Builtin) == 0 || len(s.Ranks()) == 0 || s.DefaultRanks() == 0 {
			t.Errorf("step %d has no kernel to run", s.Number)
		}
		for _, v := range s.Variants() {
			for _, name := range s.Kernels(v) {
				seen[name]++
				k, ok := kernels.Get(name)
				if !ok {
					t.Errorf("step %d names %s, which is not a kernel", s.Number, name)
					continue
				}
				if k.Name[:2] != fmt.Sprintf("%02d", s.Number) {
					t.Errorf("step %d names %s", s.Number, name)
				}
				if (v == check.BugKind) != k.IsBug() || (v == check.Starter) != k.IsStarter() {
					t.Errorf("step %d lists %s as %s", s.Number, name, v)
				}
			}
		}
	}
	for _, k := range append(append(kernels.All(), kernels.Bugs()...), kernels.Starters()...) {
		if seen[k.Name] != 1 {
			t.Errorf("%s is in %d steps of the check table, want 1", k.Name, seen[k.Name])
		}
	}
}

// TestBugsFailOnlyAsDocumented: a bug line that names the wrong status or
// reason does not match, so verification really reads the header.
func TestBugsFailOnlyAsDocumented(t *testing.T) {
	kr := check.CheckKernel(context.Background(), limits.Budget{}, "08_allreduce_mesh_bug", check.BugKind, []int{2})
	if !kr.OK || len(kr.Verdicts) != 1 || kr.Verdicts[0].Status != "race" {
		t.Fatalf("08 bug at 2 ranks: %+v", kr)
	}
	for _, line := range []string{"deadlock .*", "race line 99", "wrong_data ."} {
		b, err := check.ParseBug(line)
		if err != nil {
			t.Fatal(err)
		}
		if b.Matches(kr.Verdicts[0]) {
			t.Errorf("bug line %q matches %s", line, kr.Verdicts[0])
		}
	}
	for _, bad := range []string{"", "race", "hang .*", "race ("} {
		if _, err := check.ParseBug(bad); err == nil {
			t.Errorf("ParseBug(%q) succeeded", bad)
		}
	}
	// A solution's verdicts all pass; the same kernel judged as a bug
	// does not "fail as documented".
	sol := check.CheckKernel(context.Background(), limits.Budget{}, "08_allreduce_mesh", check.Solution, []int{2, 4})
	if !sol.OK || len(sol.Verdicts) != 2 || !strings.Contains(sol.Verdicts[1].String(), "P=4 mesh_allreduce: pass") {
		t.Errorf("08 solution: %+v", sol)
	}
	if got := check.CheckKernel(context.Background(), limits.Budget{}, "08_allreduce_mesh", check.Solution, []int{5}); got.Err == "" {
		t.Errorf("P=5 accepted: %+v", got)
	}
}

// TestStarters: steps 01-07 find their starter by file name alone; a
// starter runs in its solution's place to completion and fails the golden
// with wrong data at every rank count, and a starter judged as a solution
// is not OK.
func TestStarters(t *testing.T) {
	for n := 1; n <= 7; n++ {
		s, _ := check.StepOf(n)
		if len(s.Starter) != 1 || s.Variants()[0] != check.Starter {
			t.Errorf("step %d: starters %v, variants %v", n, s.Starter, s.Variants())
			continue
		}
		ref, _ := s.Reference()
		kr := check.CheckKernel(context.Background(), limits.Budget{}, s.Starter[0], check.Starter, nil)
		if !kr.OK || kr.Err != "" || len(kr.Verdicts) != len(ref.Entries)*len(ref.Ranks) {
			t.Errorf("step %d starter: %+v", n, kr)
		}
		for _, v := range kr.Verdicts {
			if v.Pass || v.Status != check.WrongData {
				t.Errorf("step %d starter: want wrong data before the gaps are filled, got %s", n, v)
			}
		}
	}
	s4, _ := check.StepOf(4)
	k, _ := kernels.Get("04_barrier_starter")
	if kr := check.CheckFile(context.Background(), limits.Budget{}, s4, k.File, k.Source, []int{2}); kr.OK || len(kr.Verdicts) != 1 || kr.Verdicts[0].Status != check.WrongData {
		t.Errorf("04 starter checked as a learner's file: %+v", kr)
	}
}

// TestStepCheckDeadline: a step check respects its deadline, front end
// included: a learner's file whose module code never ends stops every
// verdict within the deadline plus a second (issue 11: one took 234 s
// against 90).
func TestStepCheckDeadline(t *testing.T) {
	s, _ := check.StepOf(8)
	src := []byte("import pypto.language as pl\n\nx = 0\nwhile True:\n    x = x + 1\n")
	const deadline = time.Second
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	// The step budget out of the way: only the clock can stop it.
	kr := check.CheckFile(ctx, limits.Budget{Steps: 1 << 60, Timeout: time.Hour}, s, "spin.py", src, nil)
	if took := time.Since(start); took > deadline+time.Second {
		t.Errorf("the check ended after %v, want within %v", took, deadline+time.Second)
	}
	if kr.OK || len(kr.Verdicts) == 0 {
		t.Fatalf("ok %v with %d verdicts, want failing verdicts", kr.OK, len(kr.Verdicts))
	}
	for _, v := range kr.Verdicts {
		if v.Status != string(emu.StatusTimeout) {
			t.Errorf("%s: status %s (%s), want timeout", v, v.Status, v.Reason)
		}
	}
}
