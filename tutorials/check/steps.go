package check

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/kernels"
)

// Variant names which of a step's kernels to run.
type Variant string

// The variants a step may have.
const (
	Starter  Variant = "starter"  // the learner's editable kernel: runs, with the step's key lines left as TODO gaps
	Solution Variant = "solution" // the hand-rolled kernel the step builds
	Builtin  Variant = "builtin"  // the same job done by the builtin the step reveals
	BugKind  Variant = "bug"      // the step's classic bug, which must fail its check
)

// Step is one step's check: its kernels by variant. The rank counts come
// from each kernel's `#! ranks:` header.
type Step struct {
	Number   int
	Solution []string // kernel names (file names without .py)
	Builtin  []string
	Bug      []string
	// Starter is found by file name, not listed in the table: every
	// embedded NN_..._starter.py belongs to step NN (see withStarters).
	Starter []string
}

// steps is the table of every step's kernels. Step 11 only reveals: its
// hand-rolled all-reduces are steps 08–10. Steps 16–20 use builtins as
// tools rather than revealing one, so their kernels count as solutions.
// Step 20's first solution is the lab's three programs repaired, so its
// starter and a learner's --check FILE are judged against those.
var steps = []Step{
	{Number: 1, Solution: []string{"01_hello_rank"}, Bug: []string{"01_hello_rank_bug"}},
	{Number: 2, Solution: []string{"02_three_levels"}, Bug: []string{"02_three_levels_bug"}},
	{Number: 3, Solution: []string{"03_window_roundtrip"}, Bug: []string{"03_window_roundtrip_bug"}},
	{Number: 4, Solution: []string{"04_barrier_hand"}, Builtin: []string{"04_barrier_builtin"}, Bug: []string{"04_barrier_bug"}},
	{Number: 5, Solution: []string{"05_remote_load_store"}, Builtin: []string{"05_remote_load_store_builtin"}, Bug: []string{"05_remote_load_store_bug"}},
	{Number: 6, Solution: []string{"06_put_get"}, Bug: []string{"06_put_get_bug"}},
	{Number: 7, Solution: []string{"07_dynamic_rank_count"}, Bug: []string{"07_dynamic_rank_count_bug"}},
	{Number: 8, Solution: []string{"08_allreduce_mesh"}, Bug: []string{"08_allreduce_mesh_bug"}},
	{Number: 9, Solution: []string{"09_allreduce_two_phase"}, Bug: []string{"09_allreduce_two_phase_bug"}},
	{Number: 10, Solution: []string{"10_allreduce_ring"}, Bug: []string{"10_allreduce_ring_bug"}},
	{Number: 11, Builtin: []string{"11_allreduce_reveal"}, Bug: []string{"11_allreduce_reveal_bug"}},
	{Number: 12, Solution: []string{"12_broadcast_hand"}, Builtin: []string{"12_broadcast_builtin"}, Bug: []string{"12_broadcast_bug"}},
	{Number: 13, Solution: []string{"13_allgather_hand"}, Builtin: []string{"13_allgather_builtin"}, Bug: []string{"13_allgather_bug"}},
	{Number: 14, Solution: []string{"14_reduce_scatter_hand"}, Builtin: []string{"14_reduce_scatter_builtin"}, Bug: []string{"14_reduce_scatter_bug"}},
	{Number: 15, Solution: []string{"15_all_to_all_hand"}, Builtin: []string{"15_all_to_all_builtin"}, Bug: []string{"15_all_to_all_bug"}},
	{Number: 16, Solution: []string{"16_putting_it_together"}, Bug: []string{"16_putting_it_together_bug"}},
	{Number: 17, Solution: []string{"17_many_cores"}, Bug: []string{"17_many_cores_bug"}},
	{Number: 18, Solution: []string{"18_three_ways"}, Bug: []string{"18_three_ways_bug"}},
	{Number: 19, Solution: []string{"19_mesh_or_ring"}, Bug: []string{"19_mesh_or_ring_bug"}},
	{Number: 20, Solution: []string{"20_debugging_lab", "20_signal_reuse"}, Bug: []string{"20_set_not_add_bug", "20_window_reuse_bug", "20_in_place_sum_bug"}},
}

// Steps returns every step's check, in order, each with its starters.
func Steps() []Step { return slices.Clone(withStarters()) }

// StepOf returns step n's check, with its starters.
func StepOf(n int) (Step, bool) {
	for _, s := range withStarters() {
		if s.Number == n {
			return s, true
		}
	}
	return Step{}, false
}

// withStarters is the table with each step's Starter filled in by the
// file-name convention: the embedded kernels named NN_..._starter.py whose
// NN is the step's number. A new starter needs no entry in the table above.
// It is built once (the kernels are embedded); the Step values it hands out
// share their slices, which are clipped, so a caller's append copies.
var withStarters = sync.OnceValue(func() []Step {
	out := slices.Clone(steps)
	starters := kernels.Starters()
	for i := range out {
		out[i].Starter = nil
		for _, k := range starters {
			if k.Step() == out[i].Number {
				out[i].Starter = append(out[i].Starter, k.Name)
			}
		}
		out[i].Starter = slices.Clip(out[i].Starter)
	}
	return out
})

// Reference returns the kernel a learner's file and the step's starters
// are judged against: the step's first solution, or its first builtin
// where the step has no solution (step 11). Its entries, rank counts and
// goldens are the step's.
func (s Step) Reference() (kernels.Kernel, bool) {
	names := s.Solution
	if len(names) == 0 {
		names = s.Builtin
	}
	if len(names) == 0 {
		return kernels.Kernel{}, false
	}
	return kernels.Get(names[0])
}

// Kernels returns the names of the step's kernels of variant v.
func (s Step) Kernels(v Variant) []string {
	switch v {
	case Starter:
		return s.Starter
	case Solution:
		return s.Solution
	case Builtin:
		return s.Builtin
	case BugKind:
		return s.Bug
	}
	return nil
}

// Variants lists the variants the step has kernels for, in the order of
// AllVariants.
func (s Step) Variants() []Variant {
	var out []Variant
	for _, v := range AllVariants {
		if len(s.Kernels(v)) > 0 {
			out = append(out, v)
		}
	}
	return out
}

// Ranks returns the union of the rank counts the step's solution and
// builtin kernels support, ascending; DefaultRanks is the first solution
// kernel's default (the first count of its header).
func (s Step) Ranks() []int {
	var out []int
	for _, name := range append(slices.Clone(s.Solution), s.Builtin...) {
		if k, ok := kernels.Get(name); ok {
			for _, p := range k.Ranks {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// DefaultRanks is the rank count a step runs at unless told otherwise.
func (s Step) DefaultRanks() int {
	for _, name := range append(slices.Clone(s.Solution), s.Builtin...) {
		if k, ok := kernels.Get(name); ok {
			return k.Ranks[0]
		}
	}
	return 0
}

// AllVariants are the variants in the order a step lists them.
var AllVariants = []Variant{Starter, Solution, Builtin, BugKind}

// KernelResult is the check of one kernel of a step at its rank counts.
type KernelResult struct {
	Kernel   string    `json:"kernel"`
	Variant  Variant   `json:"variant"`
	Verdicts []Verdict `json:"verdicts"`
	// Bug is the documented failure of a bug variant, as its header
	// writes it.
	Bug string `json:"bug,omitempty"`
	// OK says the kernel did what it must: every verdict passes; for a
	// bug variant, every verdict fails the documented way; for a starter,
	// every run checks clean and completes (status ok or wrong_data).
	OK bool `json:"ok"`
	// Err is set when the kernel could not be checked at all (a missing
	// file, a malformed #! bug line).
	Err string `json:"error,omitempty"`
}

// CheckKernel runs the named kernel at each of ranks (its header's counts
// when ranks is empty; a count the header does not list is refused) and
// judges the verdicts for variant v. A starter is run in the place of its
// step's Reference kernel (that kernel's entries, rank counts and goldens).
func CheckKernel(ctx context.Context, b limits.Budget, name string, v Variant, ranks []int) KernelResult {
	kr := KernelResult{Kernel: name, Variant: v}
	k, ok := kernels.Get(name)
	if !ok {
		kr.Err = fmt.Sprintf("no kernel %s", name)
		return kr
	}
	if v != Starter {
		return judge(ctx, b, k, k.File, k.Source, v, ranks)
	}
	s, _ := StepOf(k.Step())
	ref, ok := s.Reference()
	if !ok {
		kr.Err = fmt.Sprintf("%s: step %d has no solution or builtin to judge a starter against", k.File, k.Step())
		return kr
	}
	kr = judge(ctx, b, ref, k.File, k.Source, Starter, ranks)
	kr.Kernel = k.Name
	return kr
}

// CheckFile checks a learner's own file against step s: it must define the
// entries of the step's (first) solution kernel, or of its builtin where
// the step has no solution, and pass that kernel's golden at every rank
// count.
func CheckFile(ctx context.Context, b limits.Budget, s Step, file string, src []byte, ranks []int) KernelResult {
	k, ok := s.Reference()
	if !ok {
		return KernelResult{Kernel: file, Variant: Solution, Err: fmt.Sprintf("step %d has no solution kernel", s.Number)}
	}
	kr := judge(ctx, b, k, file, src, Solution, ranks)
	kr.Kernel = file
	return kr
}

func judge(ctx context.Context, b limits.Budget, k kernels.Kernel, file string, src []byte, v Variant, ranks []int) KernelResult {
	kr := KernelResult{Kernel: k.Name, Variant: v, Bug: k.Bug}
	if len(ranks) == 0 {
		ranks = k.Ranks
	}
	for _, p := range ranks {
		if !k.Supports(p) {
			kr.Err = fmt.Sprintf("%s runs at %v ranks, not %d", k.Name, k.Ranks, p)
			return kr
		}
	}
	kr.Verdicts = kernelVerdicts(ctx, b, k, file, src, ranks)
	if v == BugKind {
		bug, err := ParseBug(k.Bug)
		if err != nil {
			kr.Err = fmt.Sprintf("%s: %v", k.File, err)
			return kr
		}
		kr.OK = true
		for _, vd := range kr.Verdicts {
			kr.OK = kr.OK && bug.Matches(vd)
		}
		return kr
	}
	kr.OK = true
	for _, vd := range kr.Verdicts {
		if v == Starter {
			kr.OK = kr.OK && (vd.Status == string(emu.StatusOK) || vd.Status == WrongData)
		} else {
			kr.OK = kr.OK && vd.Pass
		}
	}
	return kr
}

// Verify checks every step: each solution and builtin kernel passes at
// every rank count it lists, each bug variant fails at every rank count
// the way its header documents, and each starter checks clean and runs to
// completion (its wrong outputs are the gaps the learner fills). ok is true
// only when all of that holds.
func Verify(ctx context.Context, b limits.Budget) (results []KernelResult, ok bool) {
	ok = true
	for _, s := range Steps() {
		for _, v := range AllVariants {
			for _, name := range s.Kernels(v) {
				kr := CheckKernel(ctx, b, name, v, nil)
				ok = ok && kr.OK && kr.Err == ""
				results = append(results, kr)
			}
		}
	}
	return results, ok
}
