package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/compare"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/platform"
)

// entryFlags collects repeated --entry flags.
type entryFlags []string

func (e *entryFlags) String() string     { return strings.Join(*e, ", ") }
func (e *entryFlags) Set(s string) error { *e = append(*e, s); return nil }

func runCompare(args []string, stdout, stderr io.Writer) int {
	if _, ok := flagArg(args, "backends"); ok {
		return runCompareBackends(args, stdout, stderr)
	}
	fs := newFlags("compare", "usage: workbench compare A [B] --entry EXPR_A [--entry EXPR_B] [--ranks P] [--fill index|randn|ones|zeros] [--seed N] [--mem-limit SIZE] [--timeout DUR] [--json]", stderr)
	var entries entryFlags
	fs.Var(&entries, "entry", "host orchestrator of A, then of B (give it twice to compare two entries of one file)")
	ranks := fs.Int("ranks", 0, ranksHelp)
	platform := fs.String("platform", platform.Default(), platformHelp)
	fill := fs.String("fill", "index", "inputs: index, randn, ones or zeros")
	seed := fs.Uint64("seed", 1, "seed for --fill randn")
	asJSON := fs.Bool("json", false, "print one JSON object and nothing else on stdout")
	var bf budgetFlags
	bf.register(fs, limits.CLIBudget())
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return parseExit(err)
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	ff := frontFlags{ranks: *ranks, platform: *platform, explicitRanks: flagGiven(fs, "ranks"), limits: bf}
	if !ff.validate(stderr) {
		return 2
	}
	f, err := emu.ParseFill(*fill)
	if err != nil {
		fmt.Fprintf(stderr, "--fill: %v\n", err)
		return 2
	}
	switch {
	case len(files) == 0 || len(files) > 2:
		fmt.Fprintf(stderr, "compare: want one or two FILEs, got %d\n", len(files))
		fs.Usage()
		return 2
	case len(files) == 1 && len(entries) != 2:
		fmt.Fprintln(stderr, "compare: with one FILE, give two --entry flags: the two host orchestrators to compare")
		return 2
	case len(entries) > 2:
		fmt.Fprintln(stderr, "compare: at most two --entry flags")
		return 2
	}
	if len(files) == 1 {
		files = append(files, files[0])
	}
	opts := engine.RunOptions{Options: engine.Options{Ranks: *ranks, Platform: *platform, Budget: ff.bud}, Fill: f, Seed: *seed}
	var progs [2]*engine.Program
	for i := range progs {
		src, ok := readSource(files[i], stderr)
		if !ok {
			return 2
		}
		entry := ""
		switch {
		case i < len(entries):
			entry = entries[i]
		case len(entries) == 1:
			entry = entries[0] // one --entry names both files' orchestrator
		}
		mod := engine.Load(context.Background(), files[i], src, opts.Options)
		prog, _ := mod.Compile(context.Background(), entry, opts.Options)
		if prog.Entry == "" {
			// No default entry to pick, or the module does
			// not load: a usage error of the comparison.
			switch {
			case prog.NoEntry != "":
				fmt.Fprint(stderr, mod.Render(prog.Diags))
			case prog.Internal != nil:
				fmt.Fprintln(stderr, prog.Internal)
			default:
				fmt.Fprintln(stderr, prog.Diags)
			}
			return 2
		}
		progs[i] = prog
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cr := compare.Programs(ctx, progs[0], progs[1], compare.Options{RunOptions: opts})
	if *asJSON {
		b, err := json.Marshal(cr)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		fmt.Fprintln(stdout, string(b))
	} else {
		printCompare(stdout, progs, cr)
	}
	if cr.Verdict != "equal" {
		return 1
	}
	return 0
}

func printCompare(w io.Writer, sides [2]*engine.Program, cr *compare.Result) {
	runs := [2]*engine.RunResult{cr.A, cr.B}
	for i, r := range runs {
		label := string(rune('A' + i))
		fmt.Fprint(w, sides[i].Render(r.Diags))
		fmt.Fprintf(w, "%s: %s --entry '%s': %s\n", label, sides[i].Name, sides[i].Entry, r.Status)
		if e := r.Error; e != nil {
			where := "host"
			if e.Rank >= 0 {
				where = fmt.Sprintf("rank %d", e.Rank)
			}
			fmt.Fprintf(w, "   %s, line %d: %s\n", where, e.Line, e.Message)
		}
	}
	fmt.Fprintf(w, "\nverdict: %s at %s\n", cr.Verdict, ranksText(cr.Ranks))
	for _, o := range cr.Outputs {
		name := o.Name
		if o.NameB != o.Name && o.NameB != "" {
			name += " vs " + o.NameB
		}
		switch {
		case o.Note != "":
			fmt.Fprintf(w, "  %s: not comparable: %s\n", name, o.Note)
		case o.Equal:
			fmt.Fprintf(w, "  %s: equal within tolerance (max abs diff %g)\n", name, o.MaxAbsDiff)
		default:
			var rows []string
			for r, j := range o.FirstDiff {
				if j >= 0 {
					rows = append(rows, fmt.Sprintf("row %d at %d", r, j))
				}
			}
			fmt.Fprintf(w, "  %s: DIFFERENT (max abs diff %g; first difference: %s)\n", name, o.MaxAbsDiff, strings.Join(rows, ", "))
		}
	}
	if cr.A.Status == "ok" || cr.B.Status == "ok" {
		fmt.Fprintf(w, "\n  %-14s %14s %14s\n", "", "A", "B")
		a, b := cr.A.Stats, cr.B.Stats
		row := func(name string, x, y int64) { fmt.Fprintf(w, "  %-14s %14d %14d\n", name, x, y) }
		row("notifies", a.Notifies, b.Notifies)
		row("waits", a.Waits, b.Waits)
		row("remote bytes", a.RemoteBytes, b.RemoteBytes)
		row("local bytes", a.LocalBytes, b.LocalBytes)
		row("events", a.Events, b.Events)
		fmt.Fprintf(w, "  %-14s %14.3f %14.3f\n", "sim time (µs)", float64(a.SimTimeNs)/1000, float64(b.SimTimeNs)/1000)
	}
	if cr.KernelDiff != "" {
		fmt.Fprintf(w, "\nlowered InCore kernels, A -> B:\n%s", cr.KernelDiff)
	} else {
		fmt.Fprintln(w, "\nlowered InCore kernels: identical")
	}
}
