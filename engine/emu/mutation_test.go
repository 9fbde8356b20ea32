package emu_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
	"pldworkbench/kernels"
)

var update = flag.Bool("update", false, "rewrite testdata/mutations.golden from the emulator's verdicts")

// The mutation corpus pins down what the race and deadlock detectors say
// about every program we ship when one of its signal operations is gone:
// every pld.system.notify and pld.system.wait of the lowered IR (so the
// notifies and waits a builtin collective becomes count too) is deleted in
// turn, and the mutant runs under the fair and the adversarial schedule
// at every rank count its header lists. The verdict — status, the races
// (the two lines and ops, and whether both sides write), and whether the
// outputs differ from the unmutated program's under the same schedule —
// is recorded in testdata/mutations.golden, and so is the verdict of every
// unmutated program. A change to the detector must leave the file as it
// is: a race it stops reporting is a false negative, one it starts
// reporting a false positive.
//
//	go test ./engine/emu/ -run TestMutations -update

const mutationsGolden = "testdata/mutations.golden"

var mutationSchedules = []string{"fair", "adversarial"}

// mutCase is one program entry at one rank count.
type mutCase struct {
	file    string // as named in the golden
	src     []byte
	entry   string
	ranks   int
	scalars map[string]float64
}

func (c mutCase) String() string {
	s := fmt.Sprintf("%s %s P=%d", c.file, c.entry, c.ranks)
	for _, k := range slices.Sorted(mapKeys(c.scalars)) {
		s += fmt.Sprintf(" %s=%g", k, c.scalars[k])
	}
	return s
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// mutationCorpus lists every kernel (solutions, builtins, bugs, starters)
// at every entry and rank count of its header, the engine's test
// programs, and the emulator's own race, RMA, tile and (small) benchmark
// programs.
func mutationCorpus(t testing.TB) []mutCase {
	t.Helper()
	var out []mutCase
	all := append(kernels.All(), kernels.Bugs()...)
	for _, k := range append(all, kernels.Starters()...) {
		for _, p := range k.Ranks {
			for _, e := range k.EntriesAt(p) {
				out = append(out, mutCase{file: "kernels/" + k.File, src: k.Source, entry: e, ranks: p})
			}
		}
	}
	for _, dir := range []string{"../testdata/programs", "../testdata/run"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.py"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			entries, ranks := headerOf(src)
			if len(ranks) == 0 {
				ranks = []int{limits.DefaultRanks}
			}
			name := "engine/testdata/" + filepath.Base(dir) + "/" + filepath.Base(path)
			for _, p := range ranks {
				for _, e := range entries {
					out = append(out, mutCase{file: name, src: src, entry: strings.ReplaceAll(e, "{P}", strconv.Itoa(p)), ranks: p})
				}
			}
		}
	}
	read := func(path string) []byte {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	for _, path := range []string{"testdata/rma.py", "testdata/tiles.py"} {
		src := read(path)
		entries, ranks := headerOf(src)
		for _, p := range ranks {
			for _, e := range entries {
				out = append(out, mutCase{file: "engine/emu/" + path, src: src, entry: e, ranks: p})
			}
		}
	}
	races := read("testdata/races.py")
	entries, ranks := headerOf(races)
	for _, p := range ranks {
		for _, e := range entries {
			for _, f := range []float64{0, 1} {
				out = append(out, mutCase{file: "engine/emu/testdata/races.py", src: races, entry: e, ranks: p, scalars: map[string]float64{"fenced": f}})
			}
		}
	}
	bench := read("testdata/bench.py")
	out = append(out,
		mutCase{file: "engine/emu/testdata/bench.py", src: bench, entry: "build_bench_mesh(4, 16384, 1024).mesh_host", ranks: 4},
		mutCase{file: "engine/emu/testdata/bench.py", src: bench, entry: "build_bench_barrier(8).barrier_host", ranks: 8},
		mutCase{file: "engine/emu/testdata/bench.py", src: bench, entry: "build_bench_ring(8, 1024).ring_host", ranks: 8},
	)
	return out
}

// headerOf reads the `#! entry:` and `#! ranks:` lines of a test program.
func headerOf(src []byte) (entries []string, ranks []int) {
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "#! entry:"); ok {
			entries = append(entries, strings.TrimSpace(v))
		}
		if v, ok := strings.CutPrefix(line, "#! ranks:"); ok {
			for _, f := range strings.Fields(v) {
				if n, err := strconv.Atoi(f); err == nil {
					ranks = append(ranks, n)
				}
			}
		}
	}
	return entries, ranks
}

// signalSites lists the notify and wait statements of prog in a fixed
// order (functions in order, statements pre-order) as block and index.
type site struct {
	b    *ir.Block
	i    int
	name string // "notify" or "wait"
	line int
}

func signalSites(prog *ir.Program) []site {
	var out []site
	var walk func(b *ir.Block)
	walk = func(b *ir.Block) {
		if b == nil {
			return
		}
		for i, s := range b.Stmts {
			switch s := s.(type) {
			case *ir.Op:
				if s.Name == "pld.system.notify" || s.Name == "pld.system.wait" {
					out = append(out, site{b, i, strings.TrimPrefix(s.Name, "pld.system."), s.Span.Line})
				}
			case *ir.For:
				walk(s.Body)
			case *ir.If:
				walk(s.Then)
				walk(s.Else)
			}
		}
	}
	for _, f := range prog.Funcs {
		walk(f.Body)
	}
	return out
}

// mutants returns the unmutated program's label and, per signal site, a
// label ("-wait@L52", "#2" when a line has several) and the program
// without that site.
func mutants(prog *ir.Program) (labels []string, progs []*ir.Program) {
	sites := signalSites(prog)
	perLine := map[string]int{}
	for i, s := range sites {
		key := s.name + "@L" + strconv.Itoa(s.line)
		perLine[key]++
		label := "-" + key
		if perLine[key] > 1 {
			label += "#" + strconv.Itoa(perLine[key])
		}
		cp := prog.Clone()
		cs := signalSites(cp)[i]
		cs.b.Stmts = slices.Delete(cs.b.Stmts, cs.i, cs.i+1)
		labels, progs = append(labels, label), append(progs, cp)
	}
	return labels, progs
}

// verdict renders one run: its status, whether its outputs differ from
// ref's (the unmutated run under the same schedule), and its races.
func verdict(res, ref *emu.Result) string {
	var b strings.Builder
	b.WriteString(string(res.Status))
	if ref != nil && (res.Status == emu.StatusOK || res.Status == emu.StatusRace) && !sameOutputs(res, ref) {
		b.WriteString(" wrong-output")
	}
	if len(res.Races) > 0 {
		var rs []string
		for _, r := range res.Races {
			a := fmt.Sprintf("L%d %s", r.A.Line, r.A.Op)
			c := fmt.Sprintf("L%d %s", r.B.Line, r.B.Op)
			if c < a {
				a, c = c, a
			}
			kind := "rw"
			if strings.Contains(r.Message, " both ") {
				kind = "ww"
			}
			rs = append(rs, a+" ~"+kind+"~ "+c)
		}
		slices.Sort(rs)
		rs = slices.Compact(rs)
		b.WriteString(" races: " + strings.Join(rs, "; "))
		if res.RacesOmitted > 0 {
			fmt.Fprintf(&b, " (+%d)", res.RacesOmitted)
		}
	}
	return b.String()
}

func sameOutputs(a, b *emu.Result) bool {
	if len(a.Outputs) != len(b.Outputs) {
		return false
	}
	for k, x := range a.Outputs {
		y := b.Outputs[k]
		if y == nil || !slices.Equal(x.Shape, y.Shape) {
			return false
		}
		n := 1
		for _, d := range x.Shape {
			n *= d
		}
		for i := 0; i < n; i++ {
			idx := flatToIndex(x.Shape, i)
			if v, w := x.At(idx...), y.At(idx...); v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				return false
			}
		}
	}
	return true
}

// mutationVerdicts computes the golden's text.
func mutationVerdicts(t *testing.T) string {
	var b strings.Builder
	b.WriteString("# Verdicts of every program and of every mutant without one notify or wait\n")
	b.WriteString("# (go test ./engine/emu/ -run TestMutations -update; see mutation_test.go).\n")
	for _, c := range mutationCorpus(t) {
		res := engine.Load(context.Background(), c.file, c.src, engine.Options{}).Check(context.Background(), engine.Options{Entry: c.entry, Ranks: c.ranks})
		if res.Diags.HasErrors() || len(res.Units) == 0 || res.Units[0].Program == nil {
			fmt.Fprintf(&b, "%s: compile_error\n", c)
			continue
		}
		prog, err := lower.Lower(res.Units[0].Program, "")
		if err != nil {
			fmt.Fprintf(&b, "%s: lowering error\n", c)
			continue
		}
		in := fill(prog, "randn", 1)
		labels, progs := mutants(prog)
		labels, progs = append([]string{"none"}, labels...), append([]*ir.Program{prog}, progs...)
		refs := map[string]*emu.Result{}
		for i, p := range progs {
			var vs []string
			for _, sched := range mutationSchedules {
				r := runMutant(p, in, c.scalars, sched)
				if i == 0 {
					refs[sched] = r
				}
				vs = append(vs, sched+" "+verdict(r, refs[sched]))
			}
			fmt.Fprintf(&b, "%s %s: %s\n", c, labels[i], strings.Join(vs, " | "))
		}
	}
	return b.String()
}

func runMutant(prog *ir.Program, in map[string]*emu.Tensor, scalars map[string]float64, sched string) *emu.Result {
	cp := map[string]*emu.Tensor{}
	for k, v := range in {
		cp[k] = v.Clone()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return emu.Run(ctx, prog, emu.Options{Inputs: cp, Scalars: scalars, Schedule: sched})
}

// TestMutations recomputes the verdicts and compares them with the golden.
func TestMutations(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every program and mutant: a few seconds")
	}
	got := mutationVerdicts(t)
	if *update {
		if err := os.WriteFile(mutationsGolden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(mutationsGolden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	want := strings.Split(string(raw), "\n")
	have := strings.Split(got, "\n")
	if slices.Equal(want, have) {
		return
	}
	wantSet := map[string]bool{}
	for _, l := range want {
		wantSet[l] = true
	}
	haveSet := map[string]bool{}
	for _, l := range have {
		haveSet[l] = true
	}
	n := 0
	for _, l := range want {
		if !haveSet[l] && n < 40 {
			t.Errorf("lost:   %s", l)
			n++
		}
	}
	for _, l := range have {
		if !wantSet[l] && n < 80 {
			t.Errorf("gained: %s", l)
			n++
		}
	}
	if n == 0 {
		t.Errorf("the verdicts are the golden's lines in another order")
	}
}
