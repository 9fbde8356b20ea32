package conform

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"pldworkbench/engine"
)

// Programs with no HOST level (L2-only: chip orchestrations and their
// kernels) run here as PyPTO's single-chip CompiledProgram runs them: an
// orchestration is the entry, on one chip. Their tests also assert what
// the compiled program offers — which orchestrations, with which
// parameters, and that a plain call refuses to pick one — which the
// engine's entries answer; a testCheck ports such a test.

// A testCheck judges one upstream test that asserts no outputs. Exactly one
// of check and na is set.
type testCheck struct {
	from string // what the test asserts that check ports
	// check returns "" when the engine does what the test asserts, else
	// what it does instead.
	check func(ctx context.Context, mod *engine.Module, s conformCaseSpec, o engine.Options) string
	// na says why the test is not applicable here: what it asserts that
	// the workbench has no counterpart of.
	na string
}

// testCheck is the check of test, or nil (also for a nil golden).
func (g *conformGolden) testCheck(test string) *testCheck {
	if g == nil {
		return nil
	}
	return g.tests[test]
}

// judgeProgram judges a case that runs no single entry: a test with a
// testCheck, or one that selects no entry of a program with no default
// one. The whole program must check clean first (every entry, at the
// case's rank count).
func judgeProgram(ctx context.Context, c ConformCase, mod *engine.Module, s conformCaseSpec, o engine.Options, tc *testCheck) ConformCase {
	res := mod.Check(ctx, o)
	if why, refused := refusal(res.Diags); refused {
		c.Status, c.Reason = ConformUnsupported, why
		return c
	}
	switch {
	case tc == nil:
		c.Status, c.Reason = ConformNoGolden, "checks clean; the program has no default entry and the test selects none of its orchestrations"
	case tc.na != "":
		c.Status, c.Reason = ConformNoGolden, "checks clean; not applicable here: "+tc.na
	default:
		if msg := tc.check(ctx, mod, s, o); msg != "" {
			c.Status, c.Reason = ConformFail, msg
			return c
		}
		c.Status, c.Reason = ConformPass, "matches what "+tc.from
	}
	return c
}

// twoL2Tests are test_l2_multi_orch's tests that assert no outputs.
var twoL2Tests = map[string]*testCheck{
	"TestL2MultiOrch.test_codegen_emits_per_orch_subdirs": {na: "it asserts PyPTO's compile-output layout (a next_levels/<orch>/ sub-build per " +
		"orchestration, with its orchestration .cpp and only the .pto kernels it calls, and no root orchestration/ directory), which the workbench does not write"},
	"TestL2MultiOrch.test_dispatch_surface": {
		from: "test_dispatch_surface asserts of the entries: no default (a plain call is refused with both orchestrations named), each entry's " +
			"parameters are a, b, f, an unknown name is refused with the available ones listed; its output_dir and attribute-access checks " +
			"are PyPTO's compile layout and Python API, not modelled",
		check: dispatchSurface([]string{"chip_orch_add", "chip_orch_sub"}, []string{"a", "b", "f"}, "chip_orch_missing"),
	},
}

// dispatchSurface ports test_dispatch_surface's assertions that the
// engine answers: the orchestrations on offer are names (its
// orchestration_names), each with the parameters params (param_names);
// compiling with no entry picks none and names every one (plain
// compiled(...) raises "select one explicitly"); an entry of a name the
// program lacks, missing, is refused with the available ones listed (the
// KeyError).
func dispatchSurface(names, params []string, missing string) func(context.Context, *engine.Module, conformCaseSpec, engine.Options) string {
	return func(ctx context.Context, mod *engine.Module, s conformCaseSpec, o engine.Options) string {
		cls := s.Program.Name
		var want []string
		for _, n := range names {
			want = append(want, cls+"."+n)
		}
		if got := mod.Entries(o.Ranks); !slices.Equal(got, want) {
			return fmt.Sprintf("the entries are %q, want %q", got, want)
		}
		prog, _ := mod.Compile(ctx, "", o)
		if prog.NoEntry == "" {
			return fmt.Sprintf("compiling without an entry picked %q, want no default", prog.Entry)
		}
		for _, e := range want {
			if !strings.Contains(prog.NoEntry, e) {
				return fmt.Sprintf("no-default message %q does not name %s", prog.NoEntry, e)
			}
		}
		for _, e := range want {
			prog, diags := mod.Compile(ctx, e, o)
			if !prog.OK() {
				return fmt.Sprintf("entry %s does not compile: %v", e, diags)
			}
			var got []string
			for _, p := range prog.Checked().Entry.Params {
				got = append(got, p.Var.Name)
			}
			if !slices.Equal(got, params) {
				return fmt.Sprintf("entry %s has parameters %q, want %q", e, got, params)
			}
		}
		prog, diags := mod.Compile(ctx, cls+"."+missing, o)
		if prog.OK() || !diags.HasErrors() {
			return fmt.Sprintf("entry %s.%s compiled, want it refused", cls, missing)
		}
		text := diags[0].Msg + " " + diags[0].Hint
		for _, n := range names {
			if !strings.Contains(text, n) {
				return fmt.Sprintf("refusing %s, %q does not list %s", missing, text, n)
			}
		}
		return ""
	}
}
