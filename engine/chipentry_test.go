package engine_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
)

// The entry rule for programs with no HOST level (L2-only programs): the
// only chip orchestration is the default entry, run on one chip; with
// several there is no default, and the diagnostic names each; --entry picks
// one; a rank count above one is refused.

func loadFile(t *testing.T, path string) *engine.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mod := engine.Load(context.Background(), path, src, engine.Options{})
	diags := mod.Diags()
	if diags.HasErrors() {
		t.Fatalf("%s: %v", path, diags)
	}
	return mod
}

// runChip runs prog on randn inputs and returns the run, failing on
// anything but a clean run.
func runChip(t *testing.T, prog *engine.Program) *engine.RunResult {
	t.Helper()
	if !prog.OK() {
		t.Fatalf("%s: did not compile: %v %s", prog.Entry, prog.Diags, prog.NoEntry)
	}
	res := prog.Run(context.Background(), engine.RunOptions{Fill: emu.FillRandn, Seed: 7})
	if res.Status != emu.StatusOK || len(res.Races) > 0 {
		t.Fatalf("%s: status %s, error %v, races %v", prog.Entry, res.Status, res.Error, res.Races)
	}
	return res
}

// elementwise is f applied to the inputs a and b in FP32.
func elementwise(a, b []float64, f func(x, y float32) float32) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = float64(f(float32(a[i]), float32(b[i])))
	}
	return out
}

func TestChipEntryDefault(t *testing.T) {
	mod := loadFile(t, "testdata/heads/l2_single.py")
	if got := mod.Entries(0); !slices.Equal(got, []string{"axpy"}) {
		t.Fatalf("Entries = %q, want [axpy]", got)
	}
	prog, diags := mod.Compile(context.Background(), "", engine.Options{})
	if diags.HasErrors() || prog.Entry != "axpy" || prog.Ranks != 1 {
		t.Fatalf("default entry %q at %d ranks, diagnostics %v; want axpy at 1", prog.Entry, prog.Ranks, diags)
	}
	if e := prog.Checked().Entry; e.Level != ir.Orchestration || e.Name != "axpy" {
		t.Fatalf("checked entry %s %s, want orchestration axpy", e.Level, e.Name)
	}
	res := runChip(t, prog)
	want := elementwise(res.In["x"].Floats(), res.In["y"].Floats(), func(x, y float32) float32 { return x + x + y })
	if got := res.Out["z"].Floats(); !slices.Equal(got, want) {
		t.Errorf("z = %v..., want 2x + y = %v...", got[:4], want[:4])
	}
}

func TestChipEntryNoDefault(t *testing.T) {
	mod := loadFile(t, "check/testdata/ok/l2_only.py")
	names := []string{"Blend.blend", "Blend.distance"}
	if got := mod.Entries(0); !slices.Equal(got, names) {
		t.Fatalf("Entries = %q, want %q", got, names)
	}
	prog, _ := mod.Compile(context.Background(), "", engine.Options{})
	if prog.NoEntry == "" || prog.OK() {
		t.Fatalf("compiled without an entry to %q; want no default", prog.Entry)
	}
	if len(prog.Diags) != 1 || prog.Diags[0].Code != "E0412" || prog.Diags[0].Span.Start.Line == 0 {
		t.Fatalf("diagnostics %v, want one positioned E0412", prog.Diags)
	}
	d := prog.Diags[0]
	for _, n := range names {
		if !strings.Contains(d.Msg, "'"+n+"'") {
			t.Errorf("message %q does not name %s", d.Msg, n)
		}
	}
	if !strings.Contains(d.Hint, "--entry") || !strings.Contains(d.Hint, "entry field") {
		t.Errorf("hint %q does not say how to pick one", d.Hint)
	}
	if f := prog.Failure(); f == nil || f.Code != "E0412" || f.Message != prog.NoEntry {
		t.Errorf("failure %+v, want E0412 with the message", f)
	}
	// A run of it ends with that error, and the IR view reports it too.
	if res := prog.Run(context.Background(), engine.RunOptions{}); res.Status != emu.StatusCompileError || res.Error == nil || res.Error.Code != "E0412" {
		t.Errorf("run: status %s, error %+v; want compile_error E0412", res.Status, res.Error)
	}
	if text, diags, err := prog.IRText(context.Background(), engine.Options{}, "", ir.PrintOptions{}); text != "" || err == nil || len(diags) != 1 || diags[0].Code != "E0412" {
		t.Errorf("IR: %q, %v, %v; want no text, E0412", text, diags, err)
	}
}

func TestChipEntrySelect(t *testing.T) {
	mod := loadFile(t, "check/testdata/ok/l2_only.py")
	for _, c := range []struct {
		entry string
		f     func(x, w float32) float32
	}{
		{"Blend.blend", func(x, w float32) float32 { return x*w + x }},
		{"Blend.distance", func(x, w float32) float32 { return w - x }},
	} {
		prog, diags := mod.Compile(context.Background(), c.entry, engine.Options{})
		if diags.HasErrors() || prog.Ranks != 1 {
			t.Fatalf("%s: %d ranks, %v", c.entry, prog.Ranks, diags)
		}
		// Each entry's program holds only what its orchestration calls.
		var funcs []string
		for _, f := range prog.Checked().Funcs {
			funcs = append(funcs, f.Name)
		}
		res := runChip(t, prog)
		want := elementwise(res.In["x"].Floats(), res.In["w"].Floats(), c.f)
		if got := res.Out["out"].Floats(); !slices.Equal(got, want) {
			t.Errorf("%s (%v): out = %v..., want %v...", c.entry, funcs, got[:4], want[:4])
		}
		if len(funcs) != 2 {
			t.Errorf("%s: functions %v, want the orchestration and its one kernel", c.entry, funcs)
		}
	}
}

func TestChipEntryRanks(t *testing.T) {
	mod := loadFile(t, "testdata/heads/l2_single.py")
	prog, _ := mod.Compile(context.Background(), "", engine.Options{Ranks: 1})
	if !prog.OK() || prog.Ranks != 1 {
		t.Fatalf("--ranks 1: %v", prog.Diags)
	}
	for _, p := range []int{2, 4} {
		prog, diags := mod.Compile(context.Background(), "axpy", engine.Options{Ranks: p})
		if prog.OK() || len(diags) != 1 || diags[0].Code != emu.CodeChipRanks || diags[0].Hint == "" ||
			!strings.Contains(diags[0].Msg, "runs on one chip") || diags[0].Span.Start.Line == 0 {
			t.Errorf("ranks %d: diagnostics %v, want one positioned %s with a hint", p, diags, emu.CodeChipRanks)
		}
		if res := prog.Run(context.Background(), engine.RunOptions{}); res.Status != emu.StatusCompileError {
			t.Errorf("ranks %d: run status %s, want compile_error", p, res.Status)
		}
	}
	// A check of the whole module at two ranks refuses it the same way.
	res := mod.Check(context.Background(), engine.Options{Ranks: 2})
	if len(res.Diags) != 1 || res.Diags[0].Code != emu.CodeChipRanks {
		t.Errorf("check at 2 ranks: %v, want %s", res.Diags, emu.CodeChipRanks)
	}
}

// TestChipEntryUnderHost keeps an orchestration that a HOST level
// dispatches from being an entry of its own: only a program with no HOST
// level runs its chip orchestration directly.
func TestChipEntryUnderHost(t *testing.T) {
	src := []byte(`import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Ranked:
    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, x: pl.Tensor[[1, 32], pl.FP32], y: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        return pl.store(pl.load(x, [0, 0], [1, 32]), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def per_rank(self, x: pl.Tensor[[1, 32], pl.FP32], y: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        return self.copy(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[2, 1, 32], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, 32], pl.FP32]]):
        for r in pl.range(pld.world_size()):
            self.per_rank(x[r], y[r], device=r)
`)
	mod := engine.Load(context.Background(), "ranked.py", src, engine.Options{})
	if got := mod.Entries(0); !slices.Equal(got, []string{"Ranked.host_orch"}) {
		t.Errorf("Entries = %q, want the host orchestrator alone", got)
	}
	// It checks on its own, but it is no program to run.
	prog, diags := mod.Compile(context.Background(), "Ranked.per_rank", engine.Options{Ranks: 1})
	if f := prog.Failure(); prog.OK() || diags.HasErrors() || f == nil || f.Code != "E0412" || !strings.Contains(f.Hint, "Ranked.host_orch") {
		t.Errorf("per_rank as the entry: %v, failure %+v; want E0412 naming Ranked.host_orch", diags, f)
	}
}

// TestChipEntryExport: the exported script calls the entry PyPTO's
// compiled program offers by name when there are several (a plain call of
// a program of several L2 orchestrations raises), and plainly when there
// is one.
func TestChipEntryExport(t *testing.T) {
	for _, c := range []struct{ file, entry, call string }{
		{"check/testdata/ok/l2_only.py", "Blend.distance", `getattr(compiled, "distance")(*args, config=run_config)`},
		{"testdata/heads/l2_single.py", "", "    compiled(*args, config=run_config)"},
	} {
		src, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Load(context.Background(), c.file, src, engine.Options{}).Export(context.Background(), engine.ExportOptions{Options: engine.Options{Entry: c.entry}})
		if err != nil || res.Diags.HasErrors() || res.Ranks != 1 {
			t.Fatalf("%s: %v %v at %d ranks", c.file, err, res.Diags, res.Ranks)
		}
		if !strings.Contains(string(res.Script), c.call) {
			t.Errorf("%s: the script does not call %s", c.file, c.call)
		}
	}
}
