package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
	"pldworkbench/engine/platform"
)

// frontFlags are the flags check, ir and run share.
type frontFlags struct {
	entry         string
	ranks         int
	explicitRanks bool // --ranks was given
	platform      string
	limits        budgetFlags
	bud           limits.Budget // set by validate
}

func (f *frontFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.entry, "entry", "", "Python expression naming the host orchestrator, e.g. build_ring_allreduce(4).ring_allreduce")
	fs.IntVar(&f.ranks, "ranks", 0, ranksHelp)
	fs.StringVar(&f.platform, "platform", platform.Default(), platformHelp)
	f.limits.register(fs, limits.CLIBudget())
}

func (f *frontFlags) options() engine.Options {
	return engine.Options{Entry: f.entry, Ranks: f.ranks, Platform: f.platform, Budget: f.bud}
}

// The --platform flag's help and usage text, from engine/platform's table.
var (
	platformHelp  = "platform profile: " + platform.Choices(" or ")
	platformUsage = "[--platform " + platform.Choices("|") + "]"
	ranksHelp     = fmt.Sprintf("number of ranks P (default: the count the host tensors pin, else %d)", limits.DefaultRanks)
)

// validate checks the flags and reads the budget. The command line has no
// rank cap: a rank count is bounded by the memory it needs (--mem-limit).
func (f *frontFlags) validate(stderr io.Writer) bool {
	if f.ranks < 0 || f.ranks == 0 && f.explicitRanks {
		fmt.Fprintf(stderr, "--ranks %d out of range: want 1 or more\n", f.ranks)
		return false
	}
	bud, ok := f.limits.budget(stderr)
	if !ok {
		return false
	}
	f.bud = bud
	if _, ok := platform.Lookup(f.platform); !ok || f.platform == "" {
		fmt.Fprintf(stderr, "--platform %q unknown: want %s\n", f.platform, platform.Choices(" or "))
		return false
	}
	return true
}

// load parses the flags around the one FILE of check and ir, validates
// them, reads the file and loads it. exit is -1 when all went well, else
// the exit status (the reason printed).
func (f *frontFlags) load(ctx context.Context, fs *flag.FlagSet, args []string, stderr io.Writer) (file string, src []byte, mod *engine.Module, exit int) {
	file, exit = parseFileArgs(fs, args, stderr)
	f.explicitRanks = flagGiven(fs, "ranks")
	if exit >= 0 {
		return "", nil, nil, exit
	}
	if !f.validate(stderr) {
		return "", nil, nil, 2
	}
	src, ok := readSource(file, stderr)
	if !ok {
		return "", nil, nil, 2
	}
	mod = engine.Load(ctx, file, src, f.options())
	return file, src, mod, -1
}

// parseFileArgs parses flags that may come before or after the one FILE
// argument (workbench check prog.py --entry x and workbench check --entry x
// prog.py both work).
func parseFileArgs(fs *flag.FlagSet, args []string, stderr io.Writer) (string, int) {
	return parseOneArg(fs, args, stderr, "FILE")
}

// parseOneArg parses fs's flags around one positional argument, named
// what in its messages. exit is -1 when parsing succeeded, else the exit
// status: 0 after -h/--help (the usage was asked for), 2 for bad usage.
func parseOneArg(fs *flag.FlagSet, args []string, stderr io.Writer, what string) (arg string, exit int) {
	for {
		if err := fs.Parse(args); err != nil {
			return "", parseExit(err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if arg != "" {
			fmt.Fprintf(stderr, "%s: want one %s, got %q and %q\n", fs.Name(), what, arg, rest[0])
			return "", 2
		}
		arg = rest[0]
		args = rest[1:]
	}
	if arg == "" {
		fmt.Fprintf(stderr, "%s: missing %s\n", fs.Name(), what)
		fs.Usage()
		return "", 2
	}
	return arg, -1
}

// newFlags is a subcommand's flag set: errors go to stderr, and -h prints
// the usage line(s), then the flags with their defaults.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseExit is the exit status for a flag parse error: 0 for -h/--help,
// whose usage the flag package has printed, 2 for anything else.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// ranksText renders a rank count: "1 rank", "4 ranks".
func ranksText(n int) string {
	if n == 1 {
		return "1 rank"
	}
	return fmt.Sprintf("%d ranks", n)
}

func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			given = true
		}
	})
	return given
}

func readSource(file string, stderr io.Writer) ([]byte, bool) {
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "workbench: %v\n", err)
		return nil, false
	}
	return src, true
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	if withPyPTO(args) {
		return runCheckWithPyPTO(args, stdout, stderr)
	}
	fs := newFlags("check", "usage: workbench check FILE [--entry EXPR] [--ranks P] "+platformUsage+" [--mem-limit SIZE] [--timeout DUR] [--json]\n       workbench check FILE --with-pypto [--entry EXPR] [--ranks P] [--platform a2a3sim|a2a3|a5|a5sim]   ours and PyPTO's compiler side by side", stderr)
	var ff frontFlags
	ff.register(fs)
	asJSON := fs.Bool("json", false, `print {"ok": bool, "diagnostics": [...]} as JSON`)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	file, _, mod, exit := ff.load(ctx, fs, args, stderr)
	if exit >= 0 {
		return exit
	}
	res := mod.Check(ctx, ff.options())
	if *asJSON {
		out, err := res.JSON()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		fmt.Fprintln(stdout, string(out))
	} else {
		fmt.Fprint(stdout, mod.Render(res.Diags))
		if !res.Diags.HasErrors() {
			fmt.Fprintln(stdout, summary(file, res, ff))
		} else {
			fmt.Fprintf(stdout, "%s: %s\n", file, countErrors(res.Diags))
		}
	}
	if res.Diags.HasErrors() {
		return 1
	}
	return 0
}

func countErrors(l diag.List) string {
	var e, w int
	for _, d := range l {
		if d.Severity == diag.Error {
			e++
		} else if d.Severity == diag.Warning {
			w++
		}
	}
	s := plural(e, "error")
	if w > 0 {
		s += ", " + plural(w, "warning")
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// summary says what was checked: "prog.py: ok, 3 functions at 4 ranks:
// host mesh_allreduce -> orchestration per_rank -> incore reduce_step".
func summary(file string, res *engine.Result, ff frontFlags) string {
	if len(res.Units) == 0 {
		return noUnits(file, res)
	}
	var lines []string
	n := 0
	for _, u := range res.Units {
		if u.Program != nil {
			var names []string
			for _, f := range u.Program.Funcs {
				names = append(names, levelWord(f.Level)+" "+f.Name)
			}
			n += len(u.Program.Funcs)
			lines = append(lines, fmt.Sprintf("  %s at %s: %s", u.Label, ranksText(u.Program.Ranks), strings.Join(names, " -> ")))
		} else {
			n++
			lines = append(lines, fmt.Sprintf("  %s: %s %s (on its own)", u.Label, levelWord(u.Func.Level), u.Func.Name))
		}
	}
	return fmt.Sprintf("%s: ok, %s checked\n%s", file, plural(n, "function"), strings.Join(lines, "\n"))
}

// noUnits says why nothing was checked: either the file has no DSL code
// at all, or its DSL functions are made by factories that need more than a
// rank count, which check cannot call without an --entry saying how.
func noUnits(file string, res *engine.Result) string {
	var calls, names []string
	if res.Module != nil {
		for _, f := range res.Module.Factories() {
			if len(f.Params) > 1 {
				calls = append(calls, fmt.Sprintf("%s(%s)", f.Name, strings.Join(f.Params, ", ")))
				names = append(names, f.Name)
			}
		}
	}
	if len(calls) == 0 {
		return fmt.Sprintf("%s: ok, but it defines no DSL function to check", file)
	}
	return fmt.Sprintf("%s: ok, but nothing was checked: its DSL functions come from factories that need more than a rank count: %s\n"+
		"  hint: name one with --entry, e.g. --entry '%s(...).FUNCTION' with the arguments filled in", file, strings.Join(calls, ", "), names[0])
}

func levelWord(l ir.Level) string {
	return strings.ToLower(l.String())
}

func runIR(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("ir", "usage: workbench ir FILE [--entry EXPR] [--ranks P] "+platformUsage+" [--mem-limit SIZE] [--timeout DUR] [--after PASS] | workbench ir --passes", stderr)
	var ff frontFlags
	ff.register(fs)
	after := fs.String("after", "", "print the program after this lowering pass (default: fully lowered; \"checked\" = before any pass)")
	passes := fs.Bool("passes", false, "list the lowering passes and exit")
	if len(args) == 1 && (args[0] == "--passes" || args[0] == "-passes") {
		*passes = true
	}
	if *passes {
		fmt.Fprintf(stdout, "  %-20s %s\n", "checked", "the program as the checker built it, before any pass")
		for _, p := range lower.Passes {
			fmt.Fprintf(stdout, "  %-20s %s\n", p.Name, p.Doc)
		}
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	_, _, mod, exit := ff.load(ctx, fs, args, stderr)
	if exit >= 0 {
		return exit
	}
	prog, _ := mod.Compile(ctx, ff.entry, ff.options())
	if prog.NoEntry != "" {
		fmt.Fprint(stderr, mod.Render(prog.Diags)) // no default entry: a usage error
		return 2
	}
	text, diags, err := prog.IRText(ctx, ff.options(), *after, ir.PrintOptions{})
	fmt.Fprint(stderr, prog.Render(diags))
	fmt.Fprint(stdout, text)
	switch {
	case diags.HasErrors():
		return 1
	case err != nil:
		fmt.Fprintln(stderr, err)
		return 2
	}
	return 0
}
