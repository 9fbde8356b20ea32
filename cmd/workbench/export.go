package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/npu"
	"pldworkbench/engine/platform"
	"pldworkbench/tutorials/check"
)

// exportFlags are the flags of workbench export (and of run --backend
// pypto, which exports first).
type exportFlags struct {
	entry    string
	ranks    int
	fill     string
	seed     uint64
	platform string
	step     int
	scalars  argFlags
	limits   budgetFlags
}

func (f *exportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.entry, "entry", "", "Python expression naming the host orchestrator ({P} is the rank count)")
	fs.IntVar(&f.ranks, "ranks", 0, ranksHelp)
	fs.StringVar(&f.fill, "fill", "index", "inputs: index, ones, zeros (made by the script) or randn (written beside it)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed for --fill randn")
	fs.StringVar(&f.platform, "platform", platform.DefaultPyPTO(), "PyPTO platform: "+strings.Join(npu.Platforms, ", "))
	fs.IntVar(&f.step, "step", 0, "check the outputs against step N's golden (default: the golden of the course kernel FILE is, if it is one)")
	f.scalars = argFlags{}
	fs.Var(f.scalars, "arg", "a host scalar parameter, name=value (repeatable)")
	f.limits.register(fs, limits.CLIBudget())
}

// exportFile checks and exports file; dataName is the randn data file's
// base name. It prints diagnostics to stderr and returns the result, or
// an exit status when there is nothing to write.
func (f *exportFlags) exportFile(file string, src []byte, dataName string, stderr io.Writer) (*engine.ExportResult, int) {
	fill, err := emu.ParseFill(f.fill)
	if err != nil {
		fmt.Fprintf(stderr, "--fill: %v\n", err)
		return nil, 2
	}
	if _, ok := npu.Profile(f.platform); !ok {
		fmt.Fprintf(stderr, "--platform %q unknown: want one of %s\n", f.platform, strings.Join(npu.Platforms, ", "))
		return nil, 2
	}
	if f.ranks < 0 {
		fmt.Fprintf(stderr, "--ranks %d out of range: want 1 or more\n", f.ranks)
		return nil, 2
	}
	bud, ok := f.limits.budget(stderr)
	if !ok {
		return nil, 2
	}
	opts := engine.ExportOptions{
		Options:     engine.Options{Entry: f.entry, Ranks: f.ranks, Budget: bud},
		NPUPlatform: f.platform, Fill: fill, Seed: f.seed, Args: f.scalars, DataFile: dataName,
	}
	kernel := strings.TrimSuffix(filepath.Base(file), ".py")
	if f.step != 0 {
		s, ok := check.StepOf(f.step)
		ref, hasRef := s.Reference()
		if !ok || !hasRef {
			fmt.Fprintf(stderr, "--step %d: no such step (want 1..20)\n", f.step)
			return nil, 2
		}
		kernel = ref.Name
	}
	res, err := check.Export(context.Background(), kernel, file, src, opts)
	if l, isDiag := err.(diag.List); isDiag {
		res, err = &engine.ExportResult{Diags: l}, nil
	}
	if res != nil && len(res.Diags) > 0 {
		fmt.Fprint(stderr, diag.RenderAll(res.Diags, src))
	}
	if err != nil {
		fmt.Fprintf(stderr, "workbench export: %v\n", err)
		return nil, 1
	}
	if res.Script == nil {
		fmt.Fprintf(stderr, "%s: not exported: %d error(s)\n", file, len(errorsOf(res.Diags)))
		return nil, 1
	}
	return res, -1
}

func errorsOf(l diag.List) diag.List {
	var out diag.List
	for _, d := range l {
		if d.Severity == diag.Error {
			out = append(out, d)
		}
	}
	return out
}

func runExport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("export", "usage: workbench export FILE [--entry E] [--ranks P] [--step N] [--fill index|ones|zeros|randn --seed N] [--platform a2a3|a2a3sim|a5|a5sim] [--arg name=value]... [-o out.py]", stderr)
	var ef exportFlags
	ef.register(fs)
	out := fs.String("o", "", "the script to write (default: FILE's name with _pypto.py, in the current directory; - for stdout)")
	file, exit := parseFileArgs(fs, args, stderr)
	if exit >= 0 {
		return exit
	}
	src, ok := readSource(file, stderr)
	if !ok {
		return 2
	}
	path := *out
	if path == "" {
		path = strings.TrimSuffix(filepath.Base(file), ".py") + "_pypto.py"
	}
	if path == "-" && ef.fill == "randn" {
		fmt.Fprintln(stderr, "--fill randn writes its inputs beside the script: give -o FILE, not -")
		return 2
	}
	dataName := strings.TrimSuffix(filepath.Base(path), ".py") + ".inputs.bin"
	res, exit := ef.exportFile(file, src, dataName, stderr)
	if exit >= 0 {
		return exit
	}
	if path == "-" {
		stdout.Write(res.Script)
		return 0
	}
	if err := os.WriteFile(path, res.Script, 0o644); err != nil {
		fmt.Fprintf(stderr, "workbench export: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (entry %s, %s)\n", path, res.Entry, ranksText(res.Ranks))
	if res.Data != nil {
		dp := filepath.Join(filepath.Dir(path), dataName)
		if err := os.WriteFile(dp, res.Data, 0o644); err != nil {
			fmt.Fprintf(stderr, "workbench export: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s (the randn inputs, %d bytes)\n", dp, len(res.Data))
	}
	fmt.Fprintf(stdout, "run it where PyPTO is installed: python3 %s --platform %s\n", path, ef.platform)
	return 0
}
