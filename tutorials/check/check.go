// Package check decides whether a lesson step's kernel is right.
//
// A step's check is data (steps.go): which embedded kernels are its
// hand-rolled solution, the builtin it reveals and its classic bug. Running
// one kernel at one rank count gives a Verdict: the kernel is checked and
// run on the emulator with seeded random inputs, under the fair and the
// adversarial schedule, and it passes when every run ends with status ok (no race, no deadlock, no run-time error) and every
// output equals its golden (golden.go), computed in plain Go from the same
// inputs. A reveal step's builtin is held to the same golden as the
// hand-rolled solution, so the two agree on identical inputs whenever both
// pass.
//
// A bug variant passes verification when it fails its check for the reason
// its `#! bug:` header documents: a status (race, deadlock, runtime_error,
// wrong_data or compile_error) and a regular expression the verdict's
// reason must match, e.g.
//
//	#! bug: race read at line 56 what rank \d+ stored at line 44
//
// The package may import the engine; the kernels package below it imports
// nothing of the project.
package check

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/limits"
	"pldworkbench/kernels"
)

// Seed is the seed of every check's random inputs: a verdict is
// reproducible, and the hand-rolled kernel and its builtin see the same
// inputs.
const Seed = 20240611

// The verdict statuses beyond the emulator's own run statuses.
const (
	WrongData = "wrong_data" // the run was clean but an output differs from its golden
	NoGolden  = "no_golden"  // the entry has no golden: a gap in golden.go, not the kernel's fault
)

// Verdict is the check of one kernel entry at one rank count.
type Verdict struct {
	Kernel string `json:"kernel"`
	Entry  string `json:"entry"`
	Ranks  int    `json:"ranks"`
	Pass   bool   `json:"pass"`
	// Status is "ok" when the check passes, else one of the run statuses
	// (race, deadlock, runtime_error, compile_error, timeout) or
	// wrong_data or no_golden.
	Status string `json:"status"`
	// Reason says why the check failed, in one line: the first race, the
	// run-time error, the deadlocked waits, the first wrong elements.
	Reason string `json:"reason,omitempty"`
	// Schedule is the emulator schedule of the failing run (see
	// Schedules); empty when the check passes.
	Schedule string `json:"schedule,omitempty"`
}

// String renders a verdict as one line: "P=4 mesh_allreduce: pass", or
// "P=4 mesh_allreduce: fail (fair schedule), race: ...".
func (v Verdict) String() string {
	if v.Pass {
		return fmt.Sprintf("P=%d %s: pass", v.Ranks, v.Entry)
	}
	return fmt.Sprintf("P=%d %s: fail (%s schedule), %s: %s", v.Ranks, v.Entry, v.Schedule, v.Status, v.Reason)
}

// Bug is a bug variant's documented failure, read from its `#! bug:`
// header.
type Bug struct {
	Status string
	Reason *regexp.Regexp
}

// ParseBug reads a `#! bug:` value: a status, a space, a regular
// expression.
func ParseBug(s string) (Bug, error) {
	status, re, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok || strings.TrimSpace(re) == "" {
		return Bug{}, fmt.Errorf("#! bug: got %q, want a status and a regexp, e.g. \"race read at line 56\"", s)
	}
	if !slices.Contains(bugStatuses, status) {
		return Bug{}, fmt.Errorf("#! bug: status %q unknown, want one of %s", status, strings.Join(bugStatuses, ", "))
	}
	rx, err := regexp.Compile(strings.TrimSpace(re))
	if err != nil {
		return Bug{}, fmt.Errorf("#! bug: %v", err)
	}
	return Bug{status, rx}, nil
}

var bugStatuses = []string{string(emu.StatusRace), string(emu.StatusDeadlock), string(emu.StatusRuntimeError), WrongData, string(emu.StatusCompileError)}

// Matches reports whether v fails the way b documents.
func (b Bug) Matches(v Verdict) bool {
	return !v.Pass && v.Status == b.Status && b.Reason.MatchString(v.Reason)
}

// Schedules are the emulator schedules every check runs under, in order;
// the first failure decides the verdict. The fair schedule follows the
// cost model; the adversarial one hurries reads and delays writes as far
// as the synchronisation allows, so a wait that passes too early (a signal
// cell reused without counting on) shows up as a race or stale data
// instead of going unnoticed. A correct kernel passes under both.
var Schedules = []string{"fair", "adversarial"}

// Run checks one entry of src (a kernel's own text or a learner's file
// standing in for it) at p ranks against the golden of kernel's entry as
// written in its header ("{P}" unexpanded), under each of Schedules. Each
// run is a piece of work under b (its zero fields the engine's defaults);
// ctx bounds the whole check.
func Run(ctx context.Context, b limits.Budget, kernel, entry, file string, src []byte, p int) Verdict {
	mod := engine.Load(ctx, file, src, engine.Options{Budget: b})
	return runModule(ctx, b, kernel, entry, mod, p)
}

// runModule is Run on the module loaded from the text: a check of several
// entries and rank counts parses the text once.
func runModule(ctx context.Context, b limits.Budget, kernel, entry string, mod *engine.Module, p int) Verdict {
	expanded := strings.ReplaceAll(entry, "{P}", fmt.Sprint(p))
	v := Verdict{Kernel: kernel, Entry: expanded, Ranks: p}
	g, ok := GoldenOf(kernel, entry)
	if !ok {
		v.Status, v.Reason = NoGolden, fmt.Sprintf("no golden for %s/%s in tutorials/check/golden.go", kernel, entry)
		return v
	}
	// Compiled once, run under every schedule.
	prog, _ := mod.Compile(ctx, expanded, engine.Options{Ranks: p, Budget: b})
	for _, sched := range Schedules {
		v.Schedule = sched
		v.Status, v.Reason = runOnce(ctx, b, prog, p, sched, g)
		if v.Status != string(emu.StatusOK) {
			return v
		}
	}
	v.Schedule, v.Pass = "", true
	return v
}

// runOnce runs one entry under one schedule and returns the verdict's
// status and reason.
func runOnce(ctx context.Context, b limits.Budget, prog *engine.Program, p int, sched string, g Golden) (status, reason string) {
	// b bounds the compile and each run (by default 10 s: the kernels
	// finish in milliseconds, so the limit only turns a hang into a
	// verdict).
	res := prog.Run(ctx, engine.RunOptions{
		Options: engine.Options{Budget: b},
		Fill:    emu.FillRandn, Seed: Seed, Schedule: sched,
	})
	if res.Status != emu.StatusOK {
		return string(res.Status), runFailure(res)
	}
	if err := compareOutputs(res, g.Want(p, res.In), g.Exact); err != nil {
		reason = err.Error()
		if why := explainWrongData(ctx, b, prog, p, sched, g); why != "" {
			reason += "; " + why
		}
		return WrongData, reason
	}
	return string(emu.StatusOK), ""
}

// runFailure says in one line why a run did not end ok.
func runFailure(res *engine.RunResult) string {
	switch {
	case res.Status == emu.StatusRace && len(res.Races) > 0:
		return res.Races[0].Message
	case res.Deadlock != nil:
		var waits []string
		for _, b := range res.Deadlock.Ranks {
			waits = append(waits, fmt.Sprintf("rank %d line %d waits on %s = %d (%s %d)", b.Rank, b.Line, b.Cell, b.Value, b.Cmp, b.Expected))
		}
		return strings.Join(waits, "; ")
	case res.Error != nil:
		return res.Error.Error()
	case res.Diags.HasErrors():
		for _, d := range res.Diags {
			if d.Severity == diag.Error {
				return fmt.Sprintf("line %d: %s %s", d.Span.Start.Line, d.Code, d.Msg)
			}
		}
	}
	return "the run ended with status " + string(res.Status)
}

// compareOutputs checks every output the golden names, and that the run
// produced no other, element by element with the torch.allclose tolerance
// (or exactly).
func compareOutputs(res *engine.RunResult, want map[string]*emu.Tensor, exact bool) error {
	if len(res.OutputOrder) != len(want) {
		return fmt.Errorf("the entry has %d outputs %v, the golden names %d", len(res.OutputOrder), res.OutputOrder, len(want))
	}
	for _, name := range res.OutputOrder {
		got, w := res.Out[name], want[name]
		if w == nil {
			return fmt.Errorf("the golden has no value for output %s", name)
		}
		if !slices.Equal(got.Shape, w.Shape) {
			return fmt.Errorf("%s: got shape %v, want %v", name, got.Shape, w.Shape)
		}
		if err := sameValues(name, got, w, exact || got.DType.IsInt()); err != nil {
			return err
		}
	}
	return nil
}

// sameValues compares element by element and reports the first few
// mismatches with their index.
func sameValues(name string, got, want *emu.Tensor, exact bool) error {
	var bad []string
	n := 0
	for i, w := range want.Floats() {
		g := got.Floats()[i]
		ok := g == w
		if !exact {
			ok = floats.Close(g, w)
		}
		if !ok {
			n++
			if len(bad) < 3 {
				bad = append(bad, fmt.Sprintf("%s[%s] got %v, want %v", name, index(want.Shape, i), g, w))
			}
		}
	}
	if n > 0 {
		return fmt.Errorf("%s: %d of %d elements wrong: %s", name, n, len(want.Floats()), strings.Join(bad, "; "))
	}
	return nil
}

func index(shape []int, flat int) string {
	idx := make([]string, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		idx[i] = fmt.Sprint(flat % shape[i])
		flat /= shape[i]
	}
	return strings.Join(idx, ", ")
}

// kernelVerdicts runs every entry of k (or of the src standing in for it)
// at each rank count in ranks.
func kernelVerdicts(ctx context.Context, b limits.Budget, k kernels.Kernel, file string, src []byte, ranks []int) []Verdict {
	var out []Verdict
	mod := engine.Load(ctx, file, src, engine.Options{Budget: b})
	for _, p := range ranks {
		for _, e := range k.Entries {
			out = append(out, runModule(ctx, b, k.Name, e, mod, p))
		}
	}
	return out
}
