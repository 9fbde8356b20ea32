// Package conform runs upstream PyPTO's distributed tests as workbench
// cases (`workbench conform`): each program of a snapshot of upstream's
// tests, compiled and run on the emulator, against the test's golden.
package conform

import (
	"context"
	"fmt"
	"math"
	"path"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/syntax"
)

// Conformance statuses. A case passes when its program checks, runs clean
// under the fair schedule and matches the golden ported from the test's
// own expected-value logic; no-golden when it checks and runs clean but no
// golden is ported yet; unsupported when the workbench refuses what the
// test compiles (a construct of HEAD it does not speak yet); fail when it
// runs wrong: a run error, a deadlock, a race or a wrong value.
const (
	ConformPass        = "pass"
	ConformFail        = "fail"
	ConformUnsupported = "unsupported"
	ConformNoGolden    = "no-golden"
)

// ConformStatuses lists the statuses in the order the summary counts them.
var ConformStatuses = []string{ConformPass, ConformNoGolden, ConformUnsupported, ConformFail}

// ConformCase is one row of the suite: an upstream test's case run here.
type ConformCase struct {
	Origin  string `json:"origin"` // always "upstream": the program is PyPTO's, not ours
	File    string `json:"file"`
	Program string `json:"program"`
	Case    string `json:"case"`
	Entry   string `json:"entry"`
	Ranks   int    `json:"ranks"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
}

// ConformReport is the whole suite's outcome.
type ConformReport struct {
	Upstream string         `json:"upstream"` // repository and commit the programs come from
	Cases    []ConformCase  `json:"cases"`
	Counts   map[string]int `json:"counts"`
	Files    int            `json:"files"`
	Programs int            `json:"programs"`
}

// ConformOptions says how to run the suite.
type ConformOptions struct {
	engine.Options
	// Only, when set, keeps the files whose path contains it.
	Only string
	// OnCase, when set, receives each case as soon as it is done.
	OnCase func(ConformCase)
}

// Conform runs every case of upstream's distributed tests and examples
// that the snapshot holds.
func Conform(ctx context.Context, snap *Snapshot, opts ConformOptions) (*ConformReport, error) {
	files, err := snap.List(ConformDirs...)
	if err != nil {
		return nil, err
	}
	rep := &ConformReport{Upstream: "hw-native-sys/pypto@" + snap.Commit(), Counts: map[string]int{}}
	for _, s := range ConformStatuses {
		rep.Counts[s] = 0
	}
	for _, f := range files {
		if opts.Only != "" && !strings.Contains(f, opts.Only) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		src, err := snap.Read(f)
		if err != nil {
			return rep, err
		}
		rep.Files++
		cases, nprog := conformFile(ctx, f, src, opts.Options)
		rep.Programs += nprog
		for _, c := range cases {
			rep.Counts[c.Status]++
			rep.Cases = append(rep.Cases, c)
			if opts.OnCase != nil {
				opts.OnCase(c)
			}
		}
	}
	return rep, nil
}

// conformFile runs the cases of one upstream file.
func conformFile(ctx context.Context, name string, src []byte, opts engine.Options) ([]ConformCase, int) {
	file, diags := syntax.ParseFile(path.Base(name), src)
	if file == nil || diags.HasErrors() {
		d := diags[0]
		return []ConformCase{{Origin: "upstream", File: name, Program: "(file)", Case: "(parse)", Status: ConformUnsupported,
			Reason: fmt.Sprintf("%s line %d: %s", d.Code, d.Span.Start.Line, d.Msg)}}, 0
	}
	progs, specs := discoverCases(file)
	var out []ConformCase
	covered := map[*conformProgram]bool{}
	for _, s := range specs {
		covered[s.Program] = true
		out = append(out, runConformCase(ctx, name, src, s, opts))
	}
	for _, p := range progs {
		if !covered[p] && len(p.Hosts) == 0 && len(p.Chips) == 0 {
			out = append(out, ConformCase{Origin: "upstream", File: name, Program: p.Name, Case: "(none)", Status: ConformUnsupported,
				Reason: "the program has no HOST orchestrator and no chip orchestration to run"})
			continue
		}
		if !covered[p] {
			out = append(out, ConformCase{Origin: "upstream", File: name, Program: p.Name, Case: "(none)", Status: ConformUnsupported,
				Reason: "no test of the file names this program, or its call could not be read statically"})
		}
	}
	return out, len(progs)
}

// runConformCase checks and runs one case and compares it with its golden.
func runConformCase(ctx context.Context, name string, src []byte, s conformCaseSpec, opts engine.Options) ConformCase {
	c := ConformCase{Origin: "upstream", File: name, Program: s.Program.Name, Case: s.Test, Entry: s.Entry, Ranks: s.Ranks}
	if s.Unresolved != "" {
		c.Status, c.Reason = ConformUnsupported, "the test computes an argument of the program at run time ("+s.Unresolved+"); the suite reads cases statically"
		return c
	}
	o := opts
	o.Entry, o.Ranks = s.Entry, s.Ranks
	g := conformGoldens[name+"#"+s.Program.Name]
	if g == nil {
		g = langGoldens[name+"#"+s.Program.Name]
	}
	fill := emu.FillIndex
	mod := engine.Load(ctx, path.Base(name), src, o)
	if tc := g.testCheck(s.Test); tc != nil || s.Entry == "" {
		return judgeProgram(ctx, c, mod, s, o, tc)
	}
	prog, _ := mod.Compile(ctx, o.Entry, o)
	dims := prog.ArgDims(s.ArgShapes)
	res := prog.Run(ctx, engine.RunOptions{Options: o, Fill: fill, Seed: 1, Dims: dims})
	if g != nil && g.inputs != nil && !res.Diags.HasErrors() && res.In != nil {
		// The test's own inputs: made from the first run's shapes, then run.
		var in []*emu.Tensor
		byName := map[string]*emu.Tensor{}
		for _, n := range res.InputOrder {
			t := res.In[n].Clone()
			in = append(in, t)
			byName[n] = t
		}
		g.inputs(s, in, res.Ranks)
		res = prog.Run(ctx, engine.RunOptions{Options: o, Fill: fill, Seed: 1, Inputs: byName, Dims: dims})
	}
	if why, refused := refusal(res.Diags); refused {
		c.Status, c.Reason = ConformUnsupported, why
		return c
	}
	switch {
	case res.Status == emu.StatusRace || len(res.Races) > 0:
		c.Status, c.Reason = ConformFail, "race: "+firstRace(res)
		return c
	case res.Status != emu.StatusOK:
		c.Status, c.Reason = ConformFail, string(res.Status)
		if res.Error != nil {
			c.Reason += ": " + res.Error.Message
			if res.Error.Code != "" {
				c.Reason = string(res.Status) + ": " + res.Error.Code + " " + res.Error.Message
			}
		}
		if res.Deadlock != nil {
			c.Reason = "deadlock"
		}
		return c
	}
	var notes []string
	for _, d := range res.Diags {
		if d.Severity == diag.Warning {
			notes = append(notes, d.Code+" "+d.Msg)
		}
	}
	note := ""
	if len(notes) > 0 {
		note = "; " + strings.Join(notes, "; ")
	}
	if g == nil {
		c.Status, c.Reason = ConformNoGolden, "checks and runs clean (fair schedule, race detector on); no golden ported for this program"+note
		return c
	}
	if g.only != "" && s.Test != g.only {
		why := "this test asserts what the runtime API does"
		if g.others != "" {
			why = g.others
		}
		c.Status, c.Reason = ConformNoGolden, "checks and runs clean; "+why+" ("+g.only+" has the program's golden)"+note
		return c
	}
	var in []*emu.Tensor
	for _, n := range res.InputOrder {
		in = append(in, res.In[n])
	}
	var want [][]float64
	var err error
	if g.wantShaped != nil {
		var shapes [][]int // the outputs' shapes only: a golden never reads what the run wrote
		for _, n := range res.OutputOrder {
			shapes = append(shapes, res.Out[n].Shape)
		}
		want, err = g.wantShaped(s, in, shapes, res.Ranks)
	} else {
		want, err = g.want(s, in, res.Ranks)
	}
	if err != nil {
		c.Status, c.Reason = ConformFail, "golden: "+err.Error()
		return c
	}
	tol := floats.Tolerance
	if g.tol != nil {
		tol = g.tol(s)
	}
	var tols []float64
	if g.tols != nil {
		tols = g.tols(s)
	}
	if msg := compareGolden(res, want, tol, tols); msg != "" {
		c.Status, c.Reason = ConformFail, msg
		return c
	}
	c.Status, c.Reason = ConformPass, "matches the golden ported from "+g.from
	if s.Note != "" {
		c.Reason += "; " + s.Note
	}
	c.Reason += note
	return c
}

// refusal says why the checker refused a program, if it did: its first
// error.
func refusal(diags diag.List) (string, bool) {
	if !diags.HasErrors() {
		return "", false
	}
	for _, d := range diags {
		if d.Severity == diag.Error {
			return fmt.Sprintf("%s line %d: %s", d.Code, d.Span.Start.Line, d.Msg), true
		}
	}
	return "the checker refused the program", true
}

func firstRace(res *engine.RunResult) string {
	if len(res.Races) > 0 {
		return res.Races[0].Message
	}
	return "reported"
}

// compareGolden compares every output the golden names, within tol or
// the output's own tolerance in tols; "" means equal. A nil output is one
// the test does not check.
func compareGolden(res *engine.RunResult, want [][]float64, tol float64, tols []float64) string {
	for i, w := range want {
		if i >= len(res.OutputOrder) {
			return fmt.Sprintf("the golden names %d outputs; the host has %d", len(want), len(res.OutputOrder))
		}
		if w == nil {
			continue
		}
		tol := tol
		if i < len(tols) {
			tol = tols[i]
		}
		n := res.OutputOrder[i]
		got := res.Out[n]
		if len(got.Floats()) != len(w) {
			return fmt.Sprintf("output %s has %d elements, want %d", n, len(got.Floats()), len(w))
		}
		for i := range w {
			if math.IsNaN(w[i]) {
				continue // the test does not check this element
			}
			if math.IsNaN(got.Floats()[i]) || math.Abs(got.Floats()[i]-w[i]) > tol+tol*math.Abs(w[i]) {
				return fmt.Sprintf("output %s[%d] = %g, want %g", n, i, got.Floats()[i], w[i])
			}
		}
	}
	return ""
}

// ConformTable renders the report as the command prints it.
func ConformTable(rep *ConformReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "upstream programs (%s), run here; every row is upstream's program, not ours\n\n", rep.Upstream)
	rows := [][]string{{"origin", "file", "program", "case", "P", "status", "reason"}}
	for _, c := range rep.Cases {
		rows = append(rows, []string{c.Origin, strings.TrimPrefix(c.File, "tests/st/distributed/"), c.Program, c.Case, fmt.Sprint(c.Ranks), c.Status, c.Reason})
	}
	width := make([]int, 6)
	for _, r := range rows {
		for i := 0; i < 6; i++ {
			if len(r[i]) > width[i] {
				width[i] = len(r[i])
			}
		}
	}
	for _, r := range rows {
		for i := 0; i < 6; i++ {
			fmt.Fprintf(&b, "%-*s  ", width[i], r[i])
		}
		b.WriteString(r[6] + "\n")
	}
	b.WriteString("\n" + ConformSummary(rep) + "\n")
	return b.String()
}

// ConformSummary is the report's one-line count.
func ConformSummary(rep *ConformReport) string {
	var parts []string
	for _, s := range ConformStatuses {
		parts = append(parts, fmt.Sprintf("%d %s", rep.Counts[s], s))
	}
	return fmt.Sprintf("upstream %s: %d cases of %d programs in %d files: %s", rep.Upstream, len(rep.Cases), rep.Programs, rep.Files, strings.Join(parts, ", "))
}
