package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/platform"
	"pldworkbench/engine/sweep"
	"pldworkbench/kernels"
)

// variantFlags collects repeated --entry [NAME=]TEMPLATE flags.
type variantFlags []sweep.Variant

func (v *variantFlags) String() string { return "" }

var namedEntry = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*)=(.+)$`)

func (v *variantFlags) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return fmt.Errorf("empty entry template")
	}
	name, entry := fmt.Sprintf("v%d", len(*v)+1), s
	if m := namedEntry.FindStringSubmatch(s); m != nil {
		name, entry = m[1], m[2]
	}
	*v = append(*v, sweep.Variant{Name: name, Entry: entry})
	return nil
}

func runSweep(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("sweep", "usage: workbench sweep FILE|STEP [--entry NAME=TEMPLATE]... [--ranks 2,4,8] [--sizes 1K:16M] "+platformUsage+" [--op COLLECTIVE] [--mem-limit SIZE] [--timeout DUR] [--csv|--json]", stderr)
	var variants variantFlags
	fs.Var(&variants, "entry", "a variant, NAME=TEMPLATE with {P} and {SIZE} (repeatable; default: the file's #! sweep: lines)")
	ranks := fs.String("ranks", "2,4,8", "rank counts, comma-separated")
	sizes := fs.String("sizes", "1K:16M", "payload bytes LO:HI in powers of two (K, M, G = 1024-based)")
	platform := fs.String("platform", platform.Default(), platformHelp)
	op := fs.String("op", "", "collective for the bus-bandwidth factor: allreduce, allgather, reduce_scatter, all_to_all, broadcast (default: the builtin the program calls)")
	asJSON := fs.Bool("json", false, "print one JSON object: rows and crossovers")
	asCSV := fs.Bool("csv", false, "print the rows as CSV (crossovers go to stderr)")
	// A sweep point runs up to 16 MiB per rank: it gets minutes, not the
	// 10 s of an interactive run.
	sweepBudget := limits.CLIBudget()
	sweepBudget.Timeout = 2 * time.Minute
	var bf budgetFlags
	bf.register(fs, sweepBudget)
	file, exit := parseFileArgs(fs, args, stderr)
	if exit >= 0 {
		return exit
	}
	if *asJSON && *asCSV {
		fmt.Fprintln(stderr, "sweep: --json and --csv exclude each other")
		return 2
	}
	bud, ok := bf.budget(stderr)
	if !ok {
		return 2
	}
	opts := sweep.Options{Variants: variants, Platform: *platform, Collective: *op, Budget: bud}
	var err error
	if opts.Ranks, err = parseRanks(*ranks); err != nil {
		fmt.Fprintf(stderr, "--ranks: %v\n", err)
		return 2
	}
	if opts.Sizes, err = sweep.ParseSizes(*sizes); err != nil {
		fmt.Fprintf(stderr, "--sizes: %v\n", err)
		return 2
	}
	name, src, ok := sweepSource(file, stderr)
	if !ok {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	mod := engine.Load(ctx, name, src, engine.Options{Budget: opts.Budget})
	res, err := sweep.Run(ctx, mod, opts)
	if err != nil {
		fmt.Fprintf(stderr, "sweep: %v\n", err)
		return 2
	}
	switch {
	case *asJSON:
		b, err := json.Marshal(res)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		fmt.Fprintln(stdout, string(b))
	case *asCSV:
		writeSweepCSV(stdout, res)
		for _, p := range opts.Ranks {
			fmt.Fprintln(stderr, "# "+res.CrossoverLine(p))
		}
	default:
		printSweep(stdout, name, res, opts.Ranks)
	}
	for _, r := range res.Rows {
		if r.Status != "" {
			return 1
		}
	}
	return 0
}

// sweepSource reads FILE, or for a step number the lesson kernel of that
// step with #! sweep: lines.
func sweepSource(arg string, stderr io.Writer) (string, []byte, bool) {
	if n, err := strconv.Atoi(arg); err == nil && len(arg) <= 2 {
		prefix := fmt.Sprintf("%02d_", n)
		for _, k := range kernels.All() {
			if strings.HasPrefix(k.Name, prefix) && strings.Contains(string(k.Source), "#! sweep:") {
				return "kernels/" + k.File, k.Source, true
			}
		}
		fmt.Fprintf(stderr, "sweep: step %s has no kernel with #! sweep: lines\n", arg)
		return "", nil, false
	}
	src, ok := readSource(arg, stderr)
	return arg, src, ok
}

func parseRanks(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		// No cap here: the memory budget bounds a rank count (--mem-limit).
		if err != nil || n < 1 {
			return nil, fmt.Errorf("got %q, want rank counts of 1 or more separated by commas", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// printSweep writes one nccl-tests style table per variant and rank count,
// then the crossover line of each rank count.
func printSweep(w io.Writer, name string, res *sweep.Result, ranks []int) {
	fmt.Fprintf(w, "# %s: %s, %s, platform %s; link_eff = busbw / ((P-1) x %.1f GB/s)\n",
		name, res.Collective, res.DType, res.Platform, res.LinkGBs)
	for _, p := range ranks {
		for _, v := range res.Variants {
			fmt.Fprintf(w, "#\n# %s, %d ranks: %s\n", v.Name, p, v.Entry)
			fmt.Fprintf(w, "# %12s %12s %12s %12s %12s %9s\n", "size(B)", "count", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "link_eff")
			var sum float64
			var n int
			for _, r := range res.Rows {
				if r.Ranks != p || r.Variant != v.Name {
					continue
				}
				if r.Status != "" {
					fmt.Fprintf(w, "  %12d %12d  %s: %s\n", r.Bytes, r.Count, r.Status, r.Error)
					continue
				}
				fmt.Fprintf(w, "  %12d %12d %12.3f %12.2f %12.2f %9.3f\n", r.Bytes, r.Count, float64(r.SimTimeNs)/1000, r.AlgBW, r.BusBW, r.LinkEff)
				sum += r.BusBW
				n++
			}
			if n > 0 {
				fmt.Fprintf(w, "# Avg bus bandwidth    : %.2f\n", sum/float64(n))
			}
		}
	}
	fmt.Fprintln(w, "#")
	for _, p := range ranks {
		fmt.Fprintln(w, "# "+res.CrossoverLine(p))
	}
}

func writeSweepCSV(w io.Writer, res *sweep.Result) {
	cw := csv.NewWriter(w)
	cw.Write([]string{"variant", "ranks", "bytes", "count", "sim_time_ns", "algbw_gbs", "busbw_gbs", "link_eff", "status", "error"})
	for _, r := range res.Rows {
		cw.Write([]string{r.Variant, strconv.Itoa(r.Ranks), strconv.FormatInt(r.Bytes, 10), strconv.FormatInt(r.Count, 10),
			strconv.FormatInt(r.SimTimeNs, 10), strconv.FormatFloat(r.AlgBW, 'f', 4, 64), strconv.FormatFloat(r.BusBW, 'f', 4, 64),
			strconv.FormatFloat(r.LinkEff, 'f', 4, 64), string(r.Status), r.Error})
	}
	cw.Flush()
}
