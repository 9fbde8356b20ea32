package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"pldworkbench/engine/limits"
	"strconv"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// argFlags collects repeated --arg name=value flags.
type argFlags map[string]float64

func (a argFlags) String() string { return "" }

func (a argFlags) Set(s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	v, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return fmt.Errorf("%s: %q is not a number", name, val)
	}
	a[name] = v
	return nil
}

func runRun(args []string, stdout, stderr io.Writer) int {
	return runRunContext(context.Background(), args, stdout, stderr)
}

// runRunContext is runRun under ctx (the tests count the engine's work
// through it).
func runRunContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch b, _ := flagArg(args, "backend"); b {
	case "pypto":
		return runPyPTO(args, stdout, stderr)
	case "", "emu":
	default:
		fmt.Fprintf(stderr, "--backend %q unknown: want emu (the default) or pypto\n", b)
		return 2
	}
	fs := newFlags("run", "usage: workbench run FILE [--entry EXPR] [--ranks P] [--fill index|randn|ones|zeros] [--seed N] [--arg name=value]...\n       [--schedule fair|random:SEED|adversarial] [--schedules N] [--no-races] [--mem-limit SIZE] [--timeout DUR] [--json] [--trace FILE]", stderr)
	fs.String("backend", "emu", "emu (the bundled emulator, the default) or pypto (PyPTO's toolchain on NPUs or its simulator; see run --backend pypto -h)")
	var ff frontFlags
	ff.register(fs)
	fill := fs.String("fill", "index", "inputs: index (element i = i), randn, ones or zeros")
	seed := fs.Uint64("seed", 1, "seed for --fill randn")
	scalars := argFlags{}
	fs.Var(scalars, "arg", "a host scalar parameter, name=value (repeatable)")
	schedule := fs.String("schedule", "fair", "interleaving: fair (deterministic), random:SEED, or adversarial (reads early, writes late)")
	schedules := fs.Int("schedules", 0, "rerun under N random schedules (seeds 1..N) and list the seeds whose run does not end ok (a race included) or whose outputs differ from the fair schedule's")
	noRaces := fs.Bool("no-races", false, "turn the race detector off")
	asJSON := fs.Bool("json", false, "print one JSON object and nothing else on stdout")
	traceFile := fs.String("trace", "", "write every event to FILE: a Chrome trace for Perfetto if FILE ends in .json, JSON lines otherwise")
	file, exit := parseFileArgs(fs, args, stderr)
	ff.explicitRanks = flagGiven(fs, "ranks")
	if exit >= 0 {
		return exit
	}
	if !ff.validate(stderr) {
		return 2
	}
	f, err := emu.ParseFill(*fill)
	if err != nil {
		fmt.Fprintf(stderr, "--fill: %v\n", err)
		return 2
	}
	if err := emu.ValidateSchedule(*schedule); err != nil {
		fmt.Fprintf(stderr, "--schedule: %v\n", err)
		return 2
	}
	if *schedules < 0 || *schedules > limits.CLISchedules {
		fmt.Fprintf(stderr, "--schedules %d out of range: want 0..%d\n", *schedules, limits.CLISchedules)
		return 2
	}
	src, ok := readSource(file, stderr)
	if !ok {
		return 2
	}
	opts := engine.RunOptions{Options: ff.options(), Fill: f, Seed: *seed, Args: scalars, Schedule: *schedule, NoRaces: *noRaces}
	prog, exit := compile(ctx, file, src, ff.entry, opts.Options, stderr)
	if exit >= 0 {
		return exit
	}

	var closeTrace func(title string) error
	if *traceFile != "" {
		sink, done, err := openTrace(*traceFile)
		if err != nil {
			fmt.Fprintf(stderr, "--trace: %v\n", err)
			return 2
		}
		opts.OnEvent, closeTrace = sink, done
		if traceStreams(*traceFile) {
			opts.EventBytes = -1
		}
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	if *schedules > 0 {
		code := runSchedules(ctx, prog, opts, *schedules, *asJSON, stdout, stderr)
		if closeTrace != nil {
			if err := closeTrace(prog.Entry); err != nil {
				fmt.Fprintf(stderr, "--trace: %v\n", err)
			}
		}
		return code
	}
	if *asJSON {
		opts.JSONAhead = limits.JSONAhead
	}
	res := prog.Run(ctx, opts)
	if closeTrace != nil {
		if err := closeTrace(fmt.Sprintf("%s at P=%d", res.Entry, res.Ranks)); err != nil {
			fmt.Fprintf(stderr, "--trace: %v\n", err)
		}
	}
	if *asJSON {
		// Streamed: the same bytes as json.Marshal, without holding them.
		if err := res.WriteJSON(stdout); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	} else {
		printRun(stdout, file, prog, res)
	}
	if res.Status != emu.StatusOK {
		return 1
	}
	return 0
}

// compile loads and compiles file at entry ("" = its only host
// orchestrator) for run and step. exit is -1 when there is a program to
// run (which may still have compile errors: its run says so), else the
// exit status after the reason was printed: the module's diagnostics
// (1), or no default entry to pick (2).
func compile(ctx context.Context, file string, src []byte, entry string, opts engine.Options, stderr io.Writer) (*engine.Program, int) {
	mod := engine.Load(ctx, file, src, opts)
	prog, diags := mod.Compile(ctx, entry, opts)
	switch {
	case prog.NoEntry != "":
		fmt.Fprint(stderr, mod.Render(prog.Diags)) // its coded diagnostic
		return nil, 2
	case prog.Entry == "" && prog.Internal != nil:
		fmt.Fprintln(stderr, prog.Internal)
		return nil, 2
	case prog.Entry == "":
		fmt.Fprint(stderr, mod.Render(diags))
		return nil, 1
	}
	return prog, -1
}

// runSchedules reruns a program under n random schedules and lists the
// seeds that fail.
func runSchedules(ctx context.Context, prog *engine.Program, opts engine.RunOptions, n int, asJSON bool, stdout, stderr io.Writer) int {
	file := prog.Name
	fair, seeds := prog.Schedules(ctx, opts, n)
	var failed []engine.SeedOutcome
	for _, s := range seeds {
		if s.Failed {
			failed = append(failed, s)
		}
	}
	if asJSON {
		b, err := json.Marshal(struct {
			Fair   *engine.RunResult    `json:"fair"`
			Seeds  []engine.SeedOutcome `json:"seeds"`
			Failed int                  `json:"failed"`
		}{fair, seeds, len(failed)})
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		fmt.Fprintln(stdout, string(b))
	} else {
		printRun(stdout, file, prog, fair)
		if fair.Status != emu.StatusCompileError {
			fmt.Fprintf(stdout, "\n%d random schedules: %d failed\n", len(seeds), len(failed))
			for _, s := range failed {
				fmt.Fprintf(stdout, "  --schedule %s: %s\n", s.Schedule, s.Why)
			}
		}
	}
	if fair.Status != emu.StatusOK || len(failed) > 0 {
		return 1
	}
	return 0
}

// printRun writes the readable summary: diagnostics, the status, what went
// wrong, every output row per rank (long rows elided in the middle), stats.
func printRun(w io.Writer, file string, prog *engine.Program, res *engine.RunResult) {
	fmt.Fprint(w, prog.Render(res.Diags))
	fmt.Fprintf(w, "%s: %s", file, res.Status)
	if res.Ranks > 0 {
		fmt.Fprintf(w, " (%s at %s)", res.Entry, ranksText(res.Ranks))
	}
	fmt.Fprintln(w)
	if e := res.Error; e != nil && res.Deadlock == nil {
		where := "host"
		if e.Rank >= 0 {
			where = fmt.Sprintf("rank %d", e.Rank)
		}
		if e.Line > 0 {
			where += fmt.Sprintf(", line %d", e.Line)
		}
		code := ""
		if e.Code != "" {
			code = e.Code + " "
		}
		fmt.Fprintf(w, "  %s: %s%s\n", where, code, e.Message)
		if e.Hint != "" {
			fmt.Fprintf(w, "  hint: %s\n", e.Hint)
		}
	}
	if d := res.Deadlock; d != nil {
		fmt.Fprintln(w, "  every unfinished rank is waiting:")
		for _, b := range d.Ranks {
			by := "no rank has notified it"
			if len(b.NotifiedBy) > 0 {
				parts := make([]string, len(b.NotifiedBy))
				for i, r := range b.NotifiedBy {
					parts[i] = strconv.Itoa(r)
				}
				by = "notified so far by rank " + strings.Join(parts, ", ")
			}
			fmt.Fprintf(w, "  rank %d, line %d: wait %s %s %d, but it holds %d; %s\n",
				b.Rank, b.Line, b.Cell, cmpSymbol(b.Cmp), b.Expected, b.Value, by)
		}
	}
	for i, r := range res.Races {
		if i == 0 {
			fmt.Fprintln(w, "  races (accesses no notify/wait orders):")
		}
		fmt.Fprintf(w, "  - %s\n      rank %d, line %d: %s %s\n      rank %d, line %d: %s %s\n",
			r.Message, r.A.Rank, r.A.Line, r.A.Op, r.A.Region, r.B.Rank, r.B.Line, r.B.Op, r.B.Region)
	}
	if res.RacesOmitted > 0 {
		fmt.Fprintf(w, "  ... and %d more distinct races\n", res.RacesOmitted)
	}
	if res.Status != emu.StatusCompileError {
		for _, name := range res.OutputOrder {
			printTensor(w, name, res.Out[name])
		}
		s := res.Stats
		fmt.Fprintf(w, "  stats: %d events, %d notifies, %d waits, %d remote bytes, %d local bytes, %.3f µs simulated\n",
			s.Events, s.Notifies, s.Waits, s.RemoteBytes, s.LocalBytes, float64(s.SimTimeNs)/1000)
	}
}

func cmpSymbol(c string) string {
	switch c {
	case "Ge":
		return ">="
	case "Eq":
		return "=="
	}
	return c
}

// printTensor prints a host tensor one leading-dimension row at a time (for
// the per-rank tensors of a host orchestrator, one row per rank), at most
// 16 rows and 12 values a row. It reads only the elements it prints
// (Tensor.Float), so a large output is not converted to float64s whole.
func printTensor(w io.Writer, name string, t *emu.Tensor) {
	fmt.Fprintf(w, "  %s: %s%v\n", name, t.DType, t.Shape)
	n := t.Len()
	rows, per := 1, n
	if len(t.Shape) > 1 {
		rows = t.Shape[0]
		if rows > 0 {
			per = n / rows
		}
	}
	for r := 0; r < rows; r++ {
		if rows > 16 && r == 8 {
			fmt.Fprintf(w, "    ... %d rows ...\n", rows-16)
			r = rows - 8
		}
		label := name
		if len(t.Shape) > 1 {
			label = fmt.Sprintf("%s[%d]", name, r)
		}
		fmt.Fprintf(w, "    %s = %s\n", label, formatRow(t, r*per, per))
	}
}

// formatRow formats the per elements of t from flat index lo on.
func formatRow(t *emu.Tensor, lo, per int) string {
	const head, tail = 8, 3
	var parts []string
	for i := 0; i < per; i++ {
		if per > head+tail && i == head {
			parts = append(parts, fmt.Sprintf("... (%d more)", per-head-tail))
			i = per - tail - 1
			continue
		}
		parts = append(parts, strconv.FormatFloat(t.Float(lo+i), 'g', 6, 64))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
