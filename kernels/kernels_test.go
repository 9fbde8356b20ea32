package kernels_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/lower"
	"pldworkbench/kernels"
)

// supportedRanks are the rank counts a kernel may list: the ones every
// test runs at.
var supportedRanks = []int{2, 3, 4, 8}

// runTimeout bounds one emulator run. The kernels finish in milliseconds;
// the limit only turns a hang into a failure.
const runTimeout = 10 * time.Second

// TestHeaders checks what the server and the lessons rely on: every step
// of the ladder has its file, every file names its step, lists at least one
// entry, only rank counts among 2, 3, 4 and 8, and a golden for each entry.
// The bug variants (NN_..._bug.py) are listed apart: each has a #! bug line,
// and a file of the same step that it breaks. So are the starters
// (NN_..._starter.py): each has a #! starter line, no golden of its own,
// and the entries and rank counts of a working kernel of its step.
func TestHeaders(t *testing.T) {
	all := append(kernels.All(), kernels.Bugs()...)
	all = append(all, kernels.Starters()...)
	var steps, bugs []string
	var starters []kernels.Kernel
	for _, k := range all {
		if k.IsStarter() {
			starters = append(starters, k)
			if k.Starter == "" || len(k.Goldens) > 0 || k.IsBug() {
				t.Errorf("%s: a starter wants a #! starter line and no #! golden (it is judged by its solution's)", k.File)
			}
			if !strings.Contains(string(k.Source), "# TODO(you):") {
				t.Errorf("%s: a starter without a gap marked # TODO(you):", k.File)
			}
			continue
		}
		if k.Starter != "" {
			t.Errorf("%s: #! starter line in a file not named NN_..._starter.py", k.File)
		}
		if k.IsBug() {
			bugs = append(bugs, k.Name[:2])
			if k.Bug == "" {
				t.Errorf("%s: a bug variant without a #! bug line", k.File)
			}
			continue
		}
		steps = append(steps, k.Name[:2])
		if k.Bug != "" {
			t.Errorf("%s: #! bug line in a file not named NN_..._bug.py", k.File)
		}
	}
	want := []string{"01", "02", "03", "04", "04", "05", "05", "06", "07", "08", "09", "10", "11",
		"12", "12", "13", "13", "14", "14", "15", "15", "16", "17", "18", "19", "20", "20"}
	if !slices.Equal(steps, want) {
		t.Fatalf("steps = %v, want %v", steps, want)
	}
	for _, b := range bugs {
		if !slices.Contains(steps, b) {
			t.Errorf("bug variant of step %s, which has no other kernel", b)
		}
	}
	if len(starters) < 7 {
		t.Errorf("%d starters, want at least one for each of steps 01-07", len(starters))
	}
	for _, s := range starters {
		if k := kernels.Starters(); !slices.ContainsFunc(k, func(k kernels.Kernel) bool { return k.Name == s.Name }) {
			t.Errorf("Starters() leaves out %s", s.File)
		}
		found := false
		for _, k := range kernels.All() {
			if k.Step() == s.Step() && slices.Equal(k.Entries, s.Entries) && slices.Equal(k.Ranks, s.Ranks) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no kernel of step %02d has its entries %v and ranks %v", s.File, s.Step(), s.Entries, s.Ranks)
		}
	}
	for _, k := range kernels.All() {
		if k.IsStarter() || k.IsBug() {
			t.Errorf("All() includes %s", k.File)
		}
	}
	named := regexp.MustCompile(`^\d\d_[a-z0-9_]+$`)
	for _, k := range all {
		if !named.MatchString(k.Name) || k.File != k.Name+".py" {
			t.Errorf("%s: name %q does not follow NN_snake_case.py", k.File, k.Name)
		}
		if len(k.Source) == 0 || !strings.Contains(string(k.Source), `if __name__ == "__main__":`) {
			t.Errorf("%s: want a runnable script with a __main__ guard", k.File)
		}
		for _, p := range k.Ranks {
			if !slices.Contains(supportedRanks, p) {
				t.Errorf("%s: #! ranks lists %d, want only counts among %v", k.File, p, supportedRanks)
			}
		}
		if len(k.Goldens) == 0 && !k.IsStarter() {
			t.Errorf("%s: no #! golden line", k.File)
		}
		// One golden per entry, or one line that says it covers them all
		// ("for both entries", "for all three entries").
		if len(k.Entries) > 1 && !k.IsStarter() && len(k.Goldens) < len(k.Entries) && !strings.Contains(k.Goldens[0], "entries") {
			t.Errorf("%s: %d entries but %d golden lines", k.File, len(k.Entries), len(k.Goldens))
		}
		got, ok := kernels.Get(k.Name)
		if !ok || got.File != k.File {
			t.Errorf("Get(%q) = %v, %v", k.Name, got.File, ok)
		}
		if _, ok := kernels.Get(k.File); !ok {
			t.Errorf("Get(%q) failed", k.File)
		}
	}
	if _, ok := kernels.Get("99_nothing"); ok {
		t.Error(`Get("99_nothing") succeeded`)
	}
}

// TestParse covers the header reader on its own: errors name the file and
// line, and {P} expands.
func TestParse(t *testing.T) {
	src := "#! entry: build({P}).host\n  #! ranks: 2 4\n#! golden: y == x\n#! other: ignored\n#! warns: W0302\n"
	k, err := kernels.Parse("x.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(k.Ranks, []int{2, 4}) || !slices.Equal(k.EntriesAt(4), []string{"build(4).host"}) || len(k.Goldens) != 1 ||
		!slices.Equal(k.Warnings, []string{"W0302"}) {
		t.Errorf("Parse = %+v", k)
	}
	if !k.Supports(4) || k.Supports(3) {
		t.Errorf("Supports wrong for ranks %v", k.Ranks)
	}
	if _, err := kernels.Parse("07_x_bug.py", []byte("#! entry: f\n#! ranks: 2\n")); err == nil || !strings.Contains(err.Error(), "such a file needs one") {
		t.Errorf("a _bug file without a #! bug line: error = %v", err)
	}
	if k, err := kernels.Parse("07_x_bug.py", []byte("#! entry: f\n#! ranks: 2\n#! bug: race a.*b\n")); err != nil || k.Bug != "race a.*b" || !k.IsBug() {
		t.Errorf("Parse of a bug file = %+v, %v", k, err)
	}
	if _, err := kernels.Parse("07_x_starter.py", []byte("#! entry: f\n#! ranks: 2\n")); err == nil || !strings.Contains(err.Error(), "such a file needs one") {
		t.Errorf("a _starter file without a #! starter line: error = %v", err)
	}
	if k, err := kernels.Parse("07_x_starter.py", []byte("#! starter: the peers\n#! entry: f\n#! ranks: 2\n")); err != nil || k.Starter != "the peers" || !k.IsStarter() || k.IsBug() || k.Step() != 7 {
		t.Errorf("Parse of a starter file = %+v, %v", k, err)
	}
	for _, bad := range []struct{ src, msg string }{
		{"#! ranks: 2\n", "no #! entry"},
		{"#! entry: f\n", "no #! ranks"},
		{"#! entry: f\n#! ranks: 2 x\n", `x.py:2: #! ranks: got "x"`},
		{"#! entry: f\n#! ranks: 0\n", `got "0", want positive`},
		{"#! entry: f\n#! ranks: 2\n#! warns: E0250\n", `x.py:3: #! warns: got "E0250", want warning codes`},
		{"#! entry: f\n#! ranks: 2\n#! bug: race .*\n", "a #! bug line belongs in a file named NN_..._bug.py"},
		{"#! entry: f\n#! ranks: 2\n#! starter: x\n", "a #! starter line belongs in a file named NN_..._starter.py"},
	} {
		if _, err := kernels.Parse("x.py", []byte(bad.src)); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("Parse(%q) error = %v, want it to contain %q", bad.src, err, bad.msg)
		}
	}
}

// instance is one kernel entry at one rank count.
type instance struct {
	k     kernels.Kernel
	entry string // as written in the header, {P} unexpanded
	p     int
}

func (in instance) expanded() string { return strings.ReplaceAll(in.entry, "{P}", fmt.Sprint(in.p)) }
func (in instance) key() string      { return in.k.Name + "/" + in.entry }
func (in instance) String() string   { return fmt.Sprintf("%s/%s/P=%d", in.k.Name, in.expanded(), in.p) }

func instances() []instance {
	var out []instance
	for _, k := range kernels.All() {
		for _, e := range k.Entries {
			for _, p := range k.Ranks {
				out = append(out, instance{k, e, p})
			}
		}
	}
	return out
}

// compile checks one instance and requires it to be clean: no errors, no
// warnings but the ones its header announces, one program instantiated at
// the right rank count.
func compile(t testing.TB, in instance) *ir.Program {
	t.Helper()
	return compileSource(t, in, in.k.Source)
}

func compileSource(t testing.TB, in instance, src []byte) *ir.Program {
	t.Helper()
	res := engine.Load(context.Background(), in.k.File, src, engine.Options{}).Check(context.Background(), engine.Options{Entry: in.expanded(), Ranks: in.p})
	if err := onlyAnnounced(in.k, res.Diags); err != nil {
		t.Fatalf("%s: %v:\n%s", in, err, diag.RenderAll(res.Diags, src))
	}
	if len(res.Units) != 1 || res.Units[0].Program == nil {
		t.Fatalf("%s: want one program, got %d units", in, len(res.Units))
	}
	prog := res.Units[0].Program
	if prog.Ranks != in.p {
		t.Fatalf("%s: program instantiated at %d ranks, want %d", in, prog.Ranks, in.p)
	}
	return prog
}

// TestCheckClean: every kernel checks without a single diagnostic at every
// entry and rank count its header lists, and without an entry at its first
// rank count (what `workbench check FILE` does) - but for the warnings its
// header announces, each of which some entry must really produce.
func TestCheckClean(t *testing.T) {
	seen := map[string]bool{}
	for _, in := range instances() {
		compile(t, in)
		res := engine.Load(context.Background(), in.k.File, in.k.Source, engine.Options{}).Check(context.Background(), engine.Options{Entry: in.expanded(), Ranks: in.p})
		for _, d := range res.Diags {
			seen[in.k.Name+" "+string(d.Code)] = true
		}
	}
	for _, k := range kernels.All() {
		for _, c := range k.Warnings {
			if !seen[k.Name+" "+c] {
				t.Errorf("%s: the header announces warning %s, but no entry produces it", k.File, c)
			}
		}
	}
	// A bug variant is a valid program: its bug shows only when it runs,
	// unless its #! bug line documents a compile_error, and then the
	// checker must report an error. A starter checks clean: its gaps hold
	// placeholders.
	for _, k := range append(kernels.Bugs(), kernels.Starters()...) {
		wantError := strings.HasPrefix(k.Bug, "compile_error ")
		for _, p := range k.Ranks {
			for _, e := range k.EntriesAt(p) {
				res := engine.Load(context.Background(), k.File, k.Source, engine.Options{}).Check(context.Background(), engine.Options{Entry: e, Ranks: p})
				if wantError && !res.Diags.HasErrors() {
					t.Errorf("%s --entry %s --ranks %d: its #! bug line documents a compile error, but the check reports none", k.File, e, p)
				}
				if !wantError && len(res.Diags) > 0 {
					t.Errorf("%s --entry %s --ranks %d: want a clean check:\n%s", k.File, e, p, diag.RenderAll(res.Diags, k.Source))
				}
			}
		}
	}
	for _, k := range kernels.All() {
		res := engine.Load(context.Background(), k.File, k.Source, engine.Options{}).Check(context.Background(), engine.Options{Ranks: k.Ranks[0]})
		if err := onlyAnnounced(k, res.Diags); err != nil {
			t.Errorf("%s without --entry: %v:\n%s", k.File, err, diag.RenderAll(res.Diags, k.Source))
		}
	}
}

// onlyAnnounced reports a diagnostic that is not a warning the kernel's
// `#! warns:` header announces. TestCheckClean requires each announced
// code to come from at least one entry.
func onlyAnnounced(k kernels.Kernel, diags diag.List) error {
	for _, d := range diags {
		if d.Severity != diag.Warning || !slices.Contains(k.Warnings, string(d.Code)) {
			return fmt.Errorf("want a clean check (warnings allowed: %v), got %s %s", k.Warnings, d.Code, d.Msg)
		}
	}
	return nil
}

// TestRanksHonest: a rank count among 2, 3, 4, 8 that a header leaves out
// must really be refused (the factories of steps 09 and 10 raise for a
// count that does not divide SIZE), so `#! ranks:` is the exact list.
func TestRanksHonest(t *testing.T) {
	for _, k := range kernels.All() {
		for _, p := range supportedRanks {
			if k.Supports(p) {
				continue
			}
			for _, e := range k.EntriesAt(p) {
				res := engine.Load(context.Background(), k.File, k.Source, engine.Options{}).Check(context.Background(), engine.Options{Entry: e, Ranks: p})
				if !res.Diags.HasErrors() {
					t.Errorf("%s --entry %s --ranks %d checks clean, but the header leaves %d out", k.File, e, p, p)
				}
			}
		}
	}
}

// hostParam is one host tensor parameter with its shape at P ranks.
type hostParam struct {
	name  string
	dtype ir.DType
	shape []int
	out   bool // pl.Out: the kernel writes it; it starts at zero
}

// hostParams reads the entry's parameters from the IR, binding every
// dynamic dimension (NR) to p.
func hostParams(t testing.TB, prog *ir.Program, p int) []hostParam {
	t.Helper()
	var out []hostParam
	for _, prm := range prog.Entry.Params {
		tt, ok := prm.Var.Type.(*ir.Tensor)
		if !ok {
			t.Fatalf("host parameter %s is a %s; the kernels take only tensors", prm.Var.Name, prm.Var.Type)
		}
		shape := make([]int, len(tt.Shape))
		for i, d := range tt.Shape {
			shape[i] = int(d.N)
			if !d.IsStatic() {
				shape[i] = p
			}
		}
		out = append(out, hostParam{prm.Var.Name, tt.DType, shape, prm.Dir == ir.Out})
	}
	return out
}

// makeInputs fills every host tensor that is not pl.Out with seeded random
// values: standard normals rounded to float32 for float tensors, small
// integers for integer ones. The seed depends only on the instance.
func makeInputs(in instance, params []hostParam) map[string]*emu.Tensor {
	h := fnv.New64a()
	h.Write([]byte(in.String()))
	rng := rand.New(rand.NewPCG(20240611, h.Sum64()))
	inputs := map[string]*emu.Tensor{}
	for _, prm := range params {
		if prm.out {
			continue
		}
		t := emu.Zeros(prm.dtype, prm.shape...)
		for i := range t.Floats() {
			if prm.dtype.IsFloat() {
				t.Floats()[i] = float64(float32(rng.NormFloat64()))
			} else {
				t.Floats()[i] = float64(rng.IntN(201) - 100)
			}
		}
		inputs[prm.name] = t
	}
	return inputs
}

// runProgram lowers prog (builtin collectives become primitives; a program
// without builtins comes back unchanged) and runs it on the emulator.
func runProgram(t testing.TB, prog *ir.Program, inputs map[string]*emu.Tensor, opts emu.Options) *emu.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	opts.Inputs = cloneAll(inputs) // the golden reads the originals
	return emu.Run(ctx, lowered(t, prog), opts)
}

// lowered runs every lowering pass on prog and requires that no builtin
// collective is left: the emulator only knows the primitives.
func lowered(t testing.TB, prog *ir.Program) *ir.Program {
	t.Helper()
	out, err := lower.Lower(prog, "")
	if err != nil {
		t.Fatalf("lowering: %v", err)
	}
	if left := lower.Collectives(out); len(left) > 0 {
		t.Fatalf("lowering left %d collectives, the first %s at line %d", len(left), left[0].Name, left[0].Span.Line)
	}
	return out
}

func cloneAll(m map[string]*emu.Tensor) map[string]*emu.Tensor {
	out := make(map[string]*emu.Tensor, len(m))
	for k, v := range m {
		out[k] = v.Clone()
	}
	return out
}

func describe(res *emu.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %s", res.Status)
	if res.Error != nil {
		fmt.Fprintf(&b, ": %v", res.Error)
	}
	if res.Deadlock != nil {
		for _, r := range res.Deadlock.Ranks {
			fmt.Fprintf(&b, "\n  rank %d line %d waits on %s = %d (%s %d), notified by %v",
				r.Rank, r.Line, r.Cell, r.Value, r.Cmp, r.Expected, r.NotifiedBy)
		}
	}
	return b.String()
}

// TestRun runs every kernel entry at every rank count it lists with random
// inputs and compares every output with its golden. The bug variants
// (kernels.Bugs, not in All) are meant to fail; tutorials/check's
// TestVerify requires them to, for the reason each documents.
func TestRun(t *testing.T) {
	for _, in := range instances() {
		t.Run(in.String(), func(t *testing.T) {
			g, ok := goldens[in.key()]
			if !ok {
				t.Fatalf("no golden for %s in golden_test.go", in.key())
			}
			prog := compile(t, in)
			params := hostParams(t, prog, in.p)
			inputs := makeInputs(in, params)
			if launchesGrid(lowered(t, prog)) && !emuRunsGrids(t) {
				t.Skip(noGrids)
			}
			res := runProgram(t, prog, inputs, emu.Options{})
			if res.Status != emu.StatusOK {
				t.Fatalf("%s", describe(res))
			}
			if err := compareOutputs(params, inputs, res.Outputs, g.want(in.p, inputs), g.exact); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// compareOutputs checks every pl.Out parameter against want (and requires
// want to cover exactly those), and that no input changed.
func compareOutputs(params []hostParam, inputs, got, want map[string]*emu.Tensor, exact bool) error {
	outs := 0
	for _, prm := range params {
		g := got[prm.name]
		if g == nil {
			return fmt.Errorf("no output for host parameter %s", prm.name)
		}
		if !slices.Equal(g.Shape, prm.shape) || g.DType != prm.dtype {
			return fmt.Errorf("%s: got %s%v, want %s%v", prm.name, g.DType, g.Shape, prm.dtype, prm.shape)
		}
		if !prm.out {
			if err := sameValues(prm.name+" (an input)", g, inputs[prm.name], true); err != nil {
				return err
			}
			continue
		}
		outs++
		w := want[prm.name]
		if w == nil {
			return fmt.Errorf("the golden has no value for output %s", prm.name)
		}
		if !slices.Equal(w.Shape, prm.shape) {
			return fmt.Errorf("golden for %s has shape %v, want %v", prm.name, w.Shape, prm.shape)
		}
		if err := sameValues(prm.name, g, w, exact || prm.dtype.IsInt()); err != nil {
			return err
		}
	}
	if outs != len(want) {
		return fmt.Errorf("the golden names %d outputs, the entry has %d", len(want), outs)
	}
	return nil
}

// sameValues compares element by element and reports the first few
// mismatches with their row-major index.
func sameValues(name string, got, want *emu.Tensor, exact bool) error {
	var bad []string
	n := 0
	for i, w := range want.Floats() {
		g := got.Floats()[i]
		ok := g == w
		if !exact {
			ok = math.Abs(g-w) <= 1e-5+1e-5*math.Abs(w)
		}
		if !ok {
			n++
			if len(bad) < 4 {
				bad = append(bad, fmt.Sprintf("[%s] got %v, want %v", index(want.Shape, i), g, w))
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
