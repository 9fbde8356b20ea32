package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/tutorials/check"
)

// stepJSON is one row of `workbench steps --json`: the step's summary
// and its kernels.
type stepJSON struct {
	check.Summary
	Kernels []string `json:"kernels"`
}

// runSteps lists the ladder: the syllabus joined with each step's check.
func runSteps(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("steps", "usage: workbench steps [--json]\n\nLists the 20 lessons: number, title, what each teaches.", stderr)
	asJSON := fs.Bool("json", false, "print the steps as JSON")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "steps takes no arguments, got %s\n", strings.Join(fs.Args(), " "))
		return 2
	}
	var rows []stepJSON
	for _, sum := range check.Summaries() {
		c, _ := check.StepOf(sum.Number)
		row := stepJSON{Summary: sum}
		for _, v := range c.Variants() {
			row.Kernels = append(row.Kernels, c.Kernels(v)...)
		}
		rows = append(rows, row)
	}
	if *asJSON {
		return writeJSON(stdout, rows)
	}
	for _, r := range rows {
		line := fmt.Sprintf("%02d  %-32s %s", r.Number, r.Title, r.Teaches)
		if r.Reveals != "" {
			line += "; reveals " + r.Reveals
		}
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintln(stdout, "\nRun one with 'workbench step N'; 'workbench verify' checks them all.")
	return 0
}

func writeJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return 1
	}
	return 0
}

// runStep runs one step's kernels of one variant, or a learner's file, and
// prints the check's verdict per kernel entry and rank count.
func runStep(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("step", "usage: workbench step N [--kernel starter|solution|builtin|bug] [--ranks P] [--check FILE] [--mem-limit SIZE] [--timeout DUR] [--json]", stderr)
	kind := fs.String("kernel", "solution", "which kernel to run: starter, solution, builtin or bug")
	ranks := fs.Int("ranks", 0, "run at this rank count only (default: every count the kernel lists)")
	own := fs.String("check", "", "check this file of yours against the step instead of the step's kernel")
	asJSON := fs.Bool("json", false, "print the verdicts as JSON")
	var bf budgetFlags
	bf.register(fs, limits.CLIBudget())
	arg, exit := parseOneArg(fs, args, stderr, "N (a step number)")
	if exit >= 0 {
		return exit
	}
	bud, ok := bf.budget(stderr)
	if !ok {
		return 2
	}
	n, err := strconv.Atoi(arg)
	s, found := check.StepOf(n)
	if err != nil || !found {
		fmt.Fprintf(stderr, "step: got %q, want a step number from 1 to %d\n", arg, len(check.Steps()))
		return 2
	}
	var only []int
	if *ranks != 0 {
		only = []int{*ranks}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var results []check.KernelResult
	if *own != "" {
		if flagGiven(fs, "kernel") {
			fmt.Fprintln(stderr, "step: --check FILE and --kernel exclude each other")
			return 2
		}
		src, ok := readSource(*own, stderr)
		if !ok {
			return 2
		}
		results = append(results, check.CheckFile(ctx, bud, s, *own, src, only))
		if !*asJSON {
			defer printFirstFailure(ctx, bud, stdout, *own, src, results[0])
		}
	} else {
		v := check.Variant(*kind)
		if !slices.Contains(check.AllVariants, v) {
			fmt.Fprintf(stderr, "step: --kernel %s unknown, want starter, solution, builtin or bug\n", *kind)
			return 2
		}
		names := s.Kernels(v)
		if len(names) == 0 {
			fmt.Fprintf(stderr, "step %d has no %s kernel; it has: %v\n", n, v, s.Variants())
			return 2
		}
		for _, name := range names {
			results = append(results, check.CheckKernel(ctx, bud, name, v, only))
		}
	}
	for _, kr := range results {
		if kr.Err != "" {
			fmt.Fprintf(stderr, "step %d: %s\n", n, kr.Err)
			return 2
		}
	}
	if *asJSON {
		if writeJSON(stdout, results) != 0 {
			return 1
		}
	} else {
		for _, kr := range results {
			printKernelResult(stdout, kr)
			if kr.Variant == check.Starter {
				fmt.Fprintf(stdout, "starter: fill in the gaps marked TODO, then run `workbench step %d --check FILE`\n", n)
			}
		}
	}
	// The exit status is the kernel's own verdict, whatever the variant:
	// 0 only when every check passed. A bug variant failing as documented,
	// or a starter whose gaps are still open, exits 1 and says so;
	// `workbench verify` is where that counts as success.
	for _, kr := range results {
		for _, v := range kr.Verdicts {
			if !v.Pass {
				return 1
			}
		}
	}
	return 0
}

// printFirstFailure re-runs the first failing verdict of a --check FILE as
// the check ran it and prints what `workbench run` prints for it: the
// diagnostics with their caret and hint, the deadlocked waits with who has
// notified so far, the races with their advice. One feedback path: the
// check says which run failed, the run says why, in the same words.
func printFirstFailure(ctx context.Context, b limits.Budget, w io.Writer, file string, src []byte, kr check.KernelResult) {
	for _, v := range kr.Verdicts {
		if v.Pass || v.Status == check.NoGolden {
			continue
		}
		opts := engine.RunOptions{Options: engine.Options{Entry: v.Entry, Ranks: v.Ranks, Budget: b},
			Fill: emu.FillRandn, Seed: check.Seed, Schedule: v.Schedule}
		fmt.Fprintf(w, "\nthe first failing run, as `workbench run %s --entry '%s' --ranks %d --schedule %s --fill randn --seed %d` reports it:\n",
			file, v.Entry, v.Ranks, v.Schedule, check.Seed)
		mod := engine.Load(ctx, file, src, opts.Options)
		prog, _ := mod.Compile(ctx, v.Entry, opts.Options)
		printRun(w, file, prog, prog.Run(ctx, opts))
		return
	}
}

// printKernelResult prints a kernel's verdicts and a closing line.
func printKernelResult(w io.Writer, kr check.KernelResult) {
	fmt.Fprintf(w, "%s (%s)\n", kr.Kernel, kr.Variant)
	for _, v := range kr.Verdicts {
		fmt.Fprintf(w, "  %s\n", v)
	}
	switch {
	case kr.Variant == check.BugKind && kr.OK:
		fmt.Fprintf(w, "  fails as documented (#! bug: %s)\n", kr.Bug)
	case kr.Variant == check.BugKind:
		fmt.Fprintf(w, "  does NOT fail as documented (#! bug: %s)\n", kr.Bug)
	case kr.Variant == check.Starter && kr.OK:
		fmt.Fprintf(w, "  runs to completion; the outputs stay wrong until the gaps are filled\n")
	case kr.Variant == check.Starter:
		fmt.Fprintf(w, "  does NOT run to completion: a starter must check clean and finish with wrong data, never crash or hang\n")
	case kr.OK:
		fmt.Fprintf(w, "  pass at every rank count\n")
	default:
		fmt.Fprintf(w, "  fail\n")
	}
}

// verifyJSON is what `workbench verify --json` prints.
type verifyJSON struct {
	OK      bool                 `json:"ok"`
	Kernels []check.KernelResult `json:"kernels"`
}

// wrongData counts a kernel's verdicts that ran clean but failed the golden.
func wrongData(kr check.KernelResult) int {
	n := 0
	for _, v := range kr.Verdicts {
		if v.Status == check.WrongData {
			n++
		}
	}
	return n
}

// runVerify checks every step: solutions and builtins pass at every rank
// count, bug variants fail as documented, starters run to completion.
func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify", "usage: workbench verify [--json]\n\nChecks every step: solutions and builtins pass, bugs fail as documented, starters run.", stderr)
	asJSON := fs.Bool("json", false, "print every kernel's verdicts as JSON")
	var bf budgetFlags
	bf.register(fs, limits.CLIBudget())
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	bud, ok := bf.budget(stderr)
	if !ok {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "verify takes no arguments, got %s\n", strings.Join(fs.Args(), " "))
		return 2
	}
	results, ok := check.Verify(context.Background(), bud)
	code := 0
	if !ok {
		code = 1
	}
	if *asJSON {
		if writeJSON(stdout, verifyJSON{ok, results}) != 0 {
			return 1
		}
		return code
	}
	runs, bad := 0, 0
	for _, kr := range results {
		runs += len(kr.Verdicts)
		mark := "ok  "
		if !kr.OK || kr.Err != "" {
			mark, bad = "FAIL", bad+1
		}
		what := fmt.Sprintf("%d checks pass", len(kr.Verdicts))
		if kr.Variant == check.BugKind {
			what = fmt.Sprintf("%d checks fail as documented", len(kr.Verdicts))
		}
		if kr.Variant == check.Starter {
			what = fmt.Sprintf("%d runs complete, %d with the gaps showing as wrong data", len(kr.Verdicts), wrongData(kr))
		}
		if !kr.OK || kr.Err != "" {
			what = kr.Err
		}
		fmt.Fprintf(stdout, "%s %-30s %-8s %s\n", mark, kr.Kernel, kr.Variant, what)
		if !kr.OK {
			for _, v := range kr.Verdicts {
				fmt.Fprintf(stdout, "       %s\n", v)
			}
		}
	}
	fmt.Fprintf(stdout, "\n%d kernels, %d checks (entry x rank count, each run under the %s schedules): ", len(results), runs, strings.Join(check.Schedules, " and "))
	if ok {
		fmt.Fprintln(stdout, "every solution and builtin passes, every bug fails as documented, every starter runs")
	} else {
		fmt.Fprintf(stdout, "%d kernels wrong\n", bad)
	}
	return code
}
