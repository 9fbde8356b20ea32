package check

import (
	"context"
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/sweep"
	"pldworkbench/engine/trace"
	"pldworkbench/kernels"
	"pldworkbench/tutorials"
)

// FigureFields are the fields a lesson's figure macro may quote, each with
// what it is. A field is computed by the engine from the macro's kernel and
// args exactly as `workbench run` (or `workbench check` for diag.*) would.
var FigureFields = map[string]string{
	"status":       "the run's status (ok, race, deadlock, ...)",
	"race":         "the first race's message",
	"race.what":    "the first race's message up to its advice (before the first ';')",
	"race.a.line":  "the line of the race's first access",
	"race.b.line":  "the line of the race's second access",
	"remote_bytes": "stats: bytes moved to or from another rank's window, summed over ranks",
	"local_bytes":  "stats: bytes moved within a rank, summed over ranks",
	"notifies":     "stats: notifies, summed over ranks",
	"waits":        "stats: waits, summed over ranks",
	"time_us":      "stats: the simulated makespan in µs, three decimals",
	"error.code":   "the run-time error's code",
	"error.line":   "the run-time error's line",
	"error":        "the run-time error as `workbench run` prints it: \"rank 0, line 65: message\"",
	"wrong":        "the step's check at --ranks P: \"N of M\" elements of the first wrong output",
	// sweep:... is also accepted, from `workbench sweep` at --ranks P (see
	// sweepFigure): sweep:line, sweep:near, sweep:time_us:V:SIZE,
	// sweep:busbw:V:SIZE, sweep:link_eff:V:SIZE, sweep:slope:V:LO:HI (ns
	// per byte) and sweep:diff:V1:V2:SIZE (µs).
	// line_of:TEXT is also accepted: the first line of the kernel's code
	// (after its docstring) that contains TEXT, for a sentence that names where a call sits (the IR's
	// "# from ... (line N)" comments quote that line).
	// deadlock:R is also accepted: rank R's blocked wait as `workbench run`
	// prints it, without the "rank R, " in front: "line 65: wait ...".
	"failed":        "with --schedules N: how many of the N random schedules fail",
	"failing_seeds": "with --schedules N: the failing seeds, as a list in words",
	"diagram":       "an SVG of the run, round by round, from its trace (rendered as an image)",
	"diag.code":     "`workbench check`: the first error's code",
	"diag.line":     "`workbench check`: the first error's line",
	"diag.message":  "`workbench check`: the first error's code and message",
	// first:NAME is also accepted: rank by rank, the first element of output
	// NAME; and last3:NAME:RANK, the last three elements of rank RANK's row.
}

// FigureValue computes one figure from the engine.
func FigureValue(ctx context.Context, f tutorials.Figure) (string, error) {
	k, ok := kernels.Get(f.Kernel)
	if !ok {
		return "", fmt.Errorf("figure %s: no kernel %q", f.Key(), f.Kernel)
	}
	fs := flag.NewFlagSet("fig", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	entry := fs.String("entry", "", "")
	ranks := fs.Int("ranks", 0, "")
	sched := fs.String("schedule", "fair", "")
	fill := fs.String("fill", "index", "")
	seed := fs.Uint64("seed", 1, "")
	n := fs.Int("schedules", 0, "")
	noRaces := fs.Bool("no-races", false, "")
	platform := fs.String("platform", "", "")
	if err := fs.Parse(f.ArgList()); err != nil {
		return "", fmt.Errorf("figure %s: %v", f.Key(), err)
	}
	file := "kernels/" + k.File
	src := k.Source
	if old, new, ok := f.EditParts(); ok {
		if n := strings.Count(string(src), old); n != 1 {
			return "", fmt.Errorf("figure %s: edit: %q occurs %d times in the kernel, want once", f.Key(), old, n)
		}
		src = []byte(strings.Replace(string(src), old, new, 1))
	}
	if text, ok := strings.CutPrefix(f.Field, "line_of:"); ok {
		// The docstring is skipped by starting after its closing quotes.
		lines := strings.Split(string(src), "\n")
		start, quotes := 0, 0
		for i, l := range lines {
			quotes += strings.Count(l, `"""`)
			if quotes >= 2 {
				start = i + 1
				break
			}
		}
		for i := start; i < len(lines); i++ {
			if strings.Contains(lines[i], text) {
				return strconv.Itoa(i + 1), nil
			}
		}
		return "", fmt.Errorf("figure %s: no line of the kernel's code contains %q", f.Key(), text)
	}
	if spec, ok := strings.CutPrefix(f.Field, "sweep:"); ok {
		return sweepFigure(ctx, f, k, src, spec, *ranks, *platform)
	}
	if f.Field == "wrong" {
		return wrongFigure(ctx, f, k, file, src, *entry, *ranks)
	}
	// {P} in an entry is the rank count, as in a kernel's #! entry: lines.
	*entry = strings.ReplaceAll(*entry, "{P}", strconv.Itoa(*ranks))
	opts := engine.Options{Entry: *entry, Ranks: *ranks, Platform: *platform, Budget: limits.CLIBudget()}
	if strings.HasPrefix(f.Field, "diag.") {
		res := engine.Load(ctx, file, src, opts).Check(ctx, opts)
		for _, d := range res.Diags {
			if d.Severity != diag.Error {
				continue
			}
			switch f.Field {
			case "diag.code":
				return string(d.Code), nil
			case "diag.line":
				return strconv.Itoa(d.Span.Start.Line), nil
			case "diag.message":
				return string(d.Code) + " " + d.Msg, nil
			}
		}
		return "", fmt.Errorf("figure %s: the check reports no error", f.Key())
	}
	fl, err := emu.ParseFill(*fill)
	if err != nil {
		return "", fmt.Errorf("figure %s: %v", f.Key(), err)
	}
	ro := engine.RunOptions{Options: opts, Fill: fl, Seed: *seed, Schedule: *sched, NoRaces: *noRaces}
	mod := engine.Load(ctx, file, src, opts)
	prog, _ := mod.Compile(ctx, *entry, opts)
	if prog.Entry == "" {
		if prog.NoEntry != "" {
			return "", fmt.Errorf("figure %s: %s", f.Key(), prog.NoEntry)
		}
		return "", fmt.Errorf("figure %s: %v", f.Key(), prog.Diags)
	}
	if f.Field == "failed" || f.Field == "failing_seeds" {
		if *n <= 0 {
			return "", fmt.Errorf("figure %s: %s needs --schedules N", f.Key(), f.Field)
		}
		_, outs := prog.Schedules(ctx, ro, *n)
		var failed []string
		for _, o := range outs {
			if o.Failed {
				failed = append(failed, strconv.FormatUint(o.Seed, 10))
			}
		}
		if f.Field == "failed" {
			return strconv.Itoa(len(failed)), nil
		}
		if len(failed) == 0 {
			return "none", nil
		}
		return inWords(failed), nil
	}
	var events trace.Collector
	if f.Field == "diagram" {
		ro.OnEvent = events.Sink()
	}
	res := prog.Run(ctx, ro)
	if res.Status == emu.StatusCompileError {
		return "", fmt.Errorf("figure %s: the kernel does not compile", f.Key())
	}
	st := res.Stats
	switch f.Field {
	case "diagram":
		if res.Status != "ok" {
			return "", fmt.Errorf("figure %s: a diagram needs a clean run, got %s", f.Key(), res.Status)
		}
		rs := rounds(events.Events)
		if len(rs) == 0 {
			return "", fmt.Errorf("figure %s: the run moved nothing between ranks", f.Key())
		}
		return diagramSVG(fmt.Sprintf("%s at %d ranks, round by round (from the emulator's trace)", res.Entry, res.Ranks), res.Ranks, rs), nil
	case "status":
		return string(res.Status), nil
	case "remote_bytes":
		return strconv.FormatInt(st.RemoteBytes, 10), nil
	case "local_bytes":
		return strconv.FormatInt(st.LocalBytes, 10), nil
	case "notifies":
		return strconv.FormatInt(st.Notifies, 10), nil
	case "waits":
		return strconv.FormatInt(st.Waits, 10), nil
	case "time_us":
		return strconv.FormatFloat(float64(st.SimTimeNs)/1000, 'f', 3, 64), nil
	case "race", "race.what", "race.a.line", "race.b.line":
		if len(res.Races) == 0 {
			return "", fmt.Errorf("figure %s: the run reports no race (status %s)", f.Key(), res.Status)
		}
		r := res.Races[0]
		switch f.Field {
		case "race.a.line":
			return strconv.Itoa(r.A.Line), nil
		case "race.b.line":
			return strconv.Itoa(r.B.Line), nil
		case "race.what":
			what, _, _ := strings.Cut(r.Message, ";")
			return what, nil
		}
		return r.Message, nil
	case "error":
		if res.Error == nil {
			return "", fmt.Errorf("figure %s: the run reports no error (status %s)", f.Key(), res.Status)
		}
		return res.Error.Error(), nil
	case "error.code", "error.line":
		if res.Error == nil {
			return "", fmt.Errorf("figure %s: the run reports no error (status %s)", f.Key(), res.Status)
		}
		if f.Field == "error.code" {
			return res.Error.Code, nil
		}
		return strconv.Itoa(res.Error.Line), nil
	}
	if rs, ok := strings.CutPrefix(f.Field, "deadlock:"); ok {
		if res.Deadlock == nil {
			return "", fmt.Errorf("figure %s: the run does not deadlock (status %s)", f.Key(), res.Status)
		}
		for _, b := range res.Deadlock.Ranks {
			if strconv.Itoa(b.Rank) != rs {
				continue
			}
			by := "no rank has notified it"
			if len(b.NotifiedBy) > 0 {
				parts := make([]string, len(b.NotifiedBy))
				for i, r := range b.NotifiedBy {
					parts[i] = strconv.Itoa(r)
				}
				by = "notified so far by rank " + strings.Join(parts, ", ")
			}
			cmp := map[string]string{"Ge": ">=", "Eq": "=="}[b.Cmp]
			if cmp == "" {
				cmp = b.Cmp
			}
			return fmt.Sprintf("line %d: wait %s %s %d, but it holds %d; %s", b.Line, b.Cell, cmp, b.Expected, b.Value, by), nil
		}
		return "", fmt.Errorf("figure %s: rank %s is not among the blocked ranks", f.Key(), rs)
	}
	if name, ok := strings.CutPrefix(f.Field, "first:"); ok {
		t := res.Out[name]
		if t == nil || len(t.Shape) == 0 || t.Shape[0] == 0 {
			return "", fmt.Errorf("figure %s: no output %q", f.Key(), name)
		}
		per := len(t.Floats()) / t.Shape[0]
		var vals []string
		for r := 0; r < t.Shape[0]; r++ {
			vals = append(vals, strconv.FormatFloat(t.Floats()[r*per], 'g', -1, 64))
		}
		return inWords(vals), nil
	}
	if spec, ok := strings.CutPrefix(f.Field, "last3:"); ok {
		name, rs, _ := strings.Cut(spec, ":")
		r, err := strconv.Atoi(rs)
		t := res.Out[name]
		if err != nil || t == nil || len(t.Shape) == 0 || r < 0 || r >= t.Shape[0] {
			return "", fmt.Errorf("figure %s: want last3:OUTPUT:RANK naming an output and a rank", f.Key())
		}
		per := len(t.Floats()) / t.Shape[0]
		row := t.Floats()[r*per : (r+1)*per]
		var vals []string
		for _, v := range row[max(0, len(row)-3):] {
			vals = append(vals, strconv.FormatFloat(v, 'g', -1, 64))
		}
		return inWords(vals), nil
	}
	return "", fmt.Errorf("figure %s: unknown field %q", f.Key(), f.Field)
}

// sweepFigure computes a sweep figure at p ranks: the crossover line or
// its "near" size over the default sizes (1K:16M, as `workbench sweep`),
// or one variant's time, busbw or link_eff at one size, the growth of its
// time per byte between two sizes, or the time one variant is behind
// another at one size.
func sweepFigure(ctx context.Context, f tutorials.Figure, k kernels.Kernel, src []byte, spec string, p int, platform string) (string, error) {
	if p <= 0 {
		return "", fmt.Errorf("figure %s: a sweep figure needs --ranks P", f.Key())
	}
	parts := strings.Split(spec, ":")
	run := func(sizes string) (*sweep.Result, error) {
		ss, err := sweep.ParseSizes(sizes)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %v", f.Key(), err)
		}
		mod := engine.Load(ctx, k.Name, src, engine.Options{Budget: limits.CLIBudget()})
		res, err := sweep.Run(ctx, mod, sweep.Options{Ranks: []int{p}, Sizes: ss, Platform: platform, Budget: limits.CLIBudget()})
		if err != nil {
			return nil, fmt.Errorf("figure %s: %v", f.Key(), err)
		}
		return res, nil
	}
	row := func(res *sweep.Result, v string) (sweep.Row, error) {
		for _, r := range res.Rows {
			if r.Variant == v {
				if r.Status != "" {
					return r, fmt.Errorf("figure %s: %s ended %s: %s", f.Key(), v, r.Status, r.Error)
				}
				return r, nil
			}
		}
		return sweep.Row{}, fmt.Errorf("figure %s: no variant %q", f.Key(), v)
	}
	at := func(v, size string) (sweep.Row, error) {
		res, err := run(size + ":" + size)
		if err != nil {
			return sweep.Row{}, err
		}
		return row(res, v)
	}
	us := func(r sweep.Row) float64 { return float64(r.SimTimeNs) / 1000 }
	switch {
	case spec == "line" || spec == "near":
		res, err := run("1K:16M")
		if err != nil {
			return "", err
		}
		if spec == "line" {
			return res.CrossoverLine(p), nil
		}
		for _, c := range res.Crossovers {
			if c.Ranks == p {
				return sweep.FormatBytes(c.NearBytes), nil
			}
		}
		return "", fmt.Errorf("figure %s: no crossover at %d ranks", f.Key(), p)
	case len(parts) == 3 && (parts[0] == "time_us" || parts[0] == "busbw" || parts[0] == "link_eff"):
		r, err := at(parts[1], parts[2])
		if err != nil {
			return "", err
		}
		switch parts[0] {
		case "time_us":
			return strconv.FormatFloat(us(r), 'f', 3, 64), nil
		case "busbw":
			return strconv.FormatFloat(r.BusBW, 'f', 2, 64), nil
		}
		return strconv.FormatFloat(r.LinkEff, 'f', 3, 64), nil
	case len(parts) == 4 && parts[0] == "slope":
		lo, err := at(parts[1], parts[2])
		if err != nil {
			return "", err
		}
		hi, err := at(parts[1], parts[3])
		if err != nil {
			return "", err
		}
		return strconv.FormatFloat(float64(hi.SimTimeNs-lo.SimTimeNs)/float64(hi.Bytes-lo.Bytes), 'f', 2, 64), nil
	case len(parts) == 4 && parts[0] == "diff":
		a, err := at(parts[1], parts[3])
		if err != nil {
			return "", err
		}
		b, err := at(parts[2], parts[3])
		if err != nil {
			return "", err
		}
		return strconv.FormatFloat(us(a)-us(b), 'f', 1, 64), nil
	}
	return "", fmt.Errorf("figure %s: unknown sweep field %q", f.Key(), spec)
}

// wrongCount finds "N of M" in a check's "y: N of M elements wrong: ...".
var wrongCount = regexp.MustCompile(`^\w+: (\d+ of \d+) elements wrong`)

// wrongFigure runs the step's check (randn inputs, every schedule, as
// `workbench step N --check` does) on one entry at p ranks and quotes how
// many elements of the first wrong output are wrong.
func wrongFigure(ctx context.Context, f tutorials.Figure, k kernels.Kernel, file string, src []byte, entry string, p int) (string, error) {
	if entry == "" && len(k.Entries) > 0 {
		entry = k.Entries[0]
	}
	if p <= 0 {
		return "", fmt.Errorf("figure %s: wrong needs --ranks P", f.Key())
	}
	v := Run(ctx, limits.CLIBudget(), k.Name, entry, file, src, p)
	if v.Status != WrongData {
		return "", fmt.Errorf("figure %s: the check says %s, not wrong_data: %s", f.Key(), v.Status, v.Reason)
	}
	m := wrongCount.FindStringSubmatch(v.Reason)
	if m == nil {
		return "", fmt.Errorf("figure %s: no element count in %q", f.Key(), v.Reason)
	}
	return m[1], nil
}

// inWords joins "8", "11" as "8 and 11" and "1", "2", "3" as "1, 2 and 3".
func inWords(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// LessonFigures computes every figure macro of every lesson: key → value.
func LessonFigures(ctx context.Context) (map[string]string, error) {
	ls, err := tutorials.Lessons()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	var errs []string
	for _, l := range ls {
		figs, err := l.Figures()
		if err != nil {
			return nil, err
		}
		for _, f := range figs {
			if _, done := out[f.Key()]; done {
				continue
			}
			v, err := FigureValue(ctx, f.Figure)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: body line %d: %v", l.File, f.Line, err))
				continue
			}
			out[f.Key()] = v
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return out, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return out, nil
}
