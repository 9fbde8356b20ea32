package engine

import (
	"context"
	"fmt"
	"strings"

	"pldworkbench/engine/check"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/npu"
)

// npuErrors lists the diagnostics that are warnings on the emulator and
// errors on an NPU (pld-spec ruling 18): Export refuses a program that has
// one.
var npuErrors = []check.Code{check.WarnTileAlign}

// ExportOptions says what to export. Options.Platform is ignored: the
// PyPTO platform picks the cost-model profile the program is checked
// under.
type ExportOptions struct {
	Options
	NPUPlatform string // a2a3, a2a3sim, a5 or a5sim; "" is a2a3sim
	Fill        emu.Fill
	Seed        uint64
	Args        map[string]float64
	DataFile    string // base name of the randn data file beside the script
	Golden      *npu.Golden
	NoGolden    string
}

// ExportResult is the exported script, its randn data (nil for the other
// fills) and the diagnostics of the check that preceded it.
type ExportResult struct {
	Entry  string
	Ranks  int
	Script []byte
	Data   []byte
	Diags  diag.List
}

// Export checks the module at one entry (opts.Entry, else its default
// entry) under the NPU's rules and writes it as a runnable PyPTO script
// (npu.Export). A program with an error, including a warning that is an
// error on an NPU, comes back with its diagnostics and no script. The
// module is not loaded again: a caller that exports at several rank
// counts, or checks before it exports, loads the text once.
func (m *Module) Export(ctx context.Context, opts ExportOptions) (*ExportResult, error) {
	name, src := m.name, m.src
	if opts.NPUPlatform == "" {
		opts.NPUPlatform = "a2a3sim"
	}
	profile, ok := npu.Profile(opts.NPUPlatform)
	if !ok {
		return nil, fmt.Errorf("platform %q unknown: want one of %s", opts.NPUPlatform, strings.Join(npu.Platforms, ", "))
	}
	opts.Platform = profile
	if opts.Fill == "" {
		opts.Fill = emu.FillIndex
	}
	opts.Entry = expandP(opts.Entry, opts.Ranks)
	if opts.Entry == "" {
		e, err := m.pickEntry(ctx, opts.Options)
		if ne, ok := err.(*noEntryError); ok {
			return &ExportResult{Diags: diag.List{ne.Diag}}, nil // no default: E0412, the entries named
		}
		if err != nil {
			return nil, err
		}
		opts.Entry = e
	}
	res := m.Check(ctx, opts.Options)
	out := &ExportResult{Entry: opts.Entry, Diags: npuSeverity(res.Diags)}
	if res.Internal != nil {
		return out, res.Internal
	}
	if out.Diags.HasErrors() {
		return out, nil
	}
	if len(res.Units) != 1 || res.Units[0].Program == nil {
		return out, fmt.Errorf("--entry %s names no host orchestrator to export", opts.Entry)
	}
	prog := res.Units[0].Program
	out.Ranks = prog.Ranks
	params, err := npu.ParamsOf(prog, opts.Args)
	if err != nil {
		return out, err
	}
	spec := npu.Spec{File: name, Source: src, Entry: opts.Entry, Ranks: prog.Ranks, Platform: opts.NPUPlatform,
		Fill: string(opts.Fill), Seed: opts.Seed, Params: params, DataFile: opts.DataFile, Golden: opts.Golden, NoGolden: opts.NoGolden}
	if fn, _ := evalEntry(res.Module, opts.Entry); fn != nil && fn.Program != nil {
		spec.Program = strings.TrimSuffix(opts.Entry, "."+fn.Def.Name)
		if entryMethods(res.Module, fn) > 1 {
			spec.Method = fn.Def.Name
		}
	}
	if opts.Fill == emu.FillRandn {
		in, err := makeInputs(prog, opts.Fill, opts.Seed, opts.Args, nil)
		if err != nil {
			return out, err
		}
		spec.Inputs = map[string][]float64{}
		for k, t := range in {
			spec.Inputs[k] = t.Floats()
		}
	}
	out.Script, out.Data, err = npu.Export(spec)
	return out, err
}

// entryMethods counts the methods of fn's program that are entries as fn
// is: host orchestrators, or the chip orchestrations of a program with no
// HOST level. With several, PyPTO's compiled program is called through one
// by name (compiled.name(...)); a plain call of a program of several L2
// orchestrations raises.
func entryMethods(mod *meta.Module, fn *meta.DSLFunc) int {
	kind := meta.Host
	if check.ChipEntry(mod, fn) {
		kind = meta.Orchestration
	}
	n := 0
	for _, m := range fn.Program.Methods {
		if m.Kind == kind {
			n++
		}
	}
	return n
}

// npuSeverity turns the warnings of npuErrors into errors that say why.
func npuSeverity(l diag.List) diag.List {
	out := make(diag.List, 0, len(l))
	for _, d := range l {
		for _, c := range npuErrors {
			if d.Code == string(c) && d.Severity != diag.Error {
				d.Severity = diag.Error
				d.Msg += " (an error on an NPU: the emulator runs it, PyPTO's toolchain refuses it)"
			}
		}
		out = append(out, d)
	}
	return out
}
