// Package engine is the facade the server and the command line use. As
// go.starlark.net and go/types hand out values, it parses once and
// compiles once: Load runs the front end's first stages (syntax.ParseFile,
// meta.Load) and returns a *Module; Module.Compile resolves an entry (the
// default entry when none is named: the module's only host orchestrator,
// or the only chip orchestration of a program with no HOST level, run on
// one chip; {P} expanded),
// applies every default once (the rank count the entry's tensors pin,
// else limits.DefaultRanks; the platform), checks and lowers it, and returns a
// *Program that runs as often as needed (Program.Run, Program.Schedules,
// Program.IRText; engine/compare and engine/sweep take programs and
// modules too). Diagnostics and IR come back together, so a caller never
// has to know which stage found a problem. Nothing here starts from text
// but Load: a caller that checks, runs or exports loads once and works on
// the *Module and its *Program.
//
// Without an entry, Module.Check checks every DSL function the module can
// instantiate without arguments: module-level host orchestrators (and,
// transitively, what they dispatch), module-level kernels and wrappers that
// no host reaches (on their own), the host orchestrators of module-level
// @pl.program classes, the chip orchestrations of programs with no HOST
// level (as programs, at one rank), and every factory that takes only a
// rank count, called at Options.Ranks.
package engine

import (
	"fmt"
	"sort"
	"strings"

	"pldworkbench/engine/check"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// Options selects what to instantiate.
type Options struct {
	Entry    string // Python expression naming a host orchestrator; "" = everything instantiable
	Ranks    int    // P; 0 means the count the host's annotations pin (pinnedRanks), else DefaultRanks
	Platform string // a row of engine/platform by name; "" is platform.Default()
	// Budget bounds the piece of work (a check, an IR dump, a run); zero
	// fields take limits.CLIBudget's. Its Timeout covers the whole
	// pipeline, its step budget is shared by module code, factories and
	// annotations, and its rank cap applies to the rank count the work
	// really uses, however it was derived.
	Budget limits.Budget
}

// budget is o.Budget with the defaults applied: the one place they are.
func (o Options) budget() limits.Budget { return o.Budget.WithDefaults(limits.CLIBudget()) }

// Unit is one checked function tree: a host orchestrator with everything it
// dispatches (Program set), or a lone kernel/wrapper (Func set).
type Unit struct {
	Label   string // how to name it on the command line: the entry expression
	Program *ir.Program
	Func    *ir.Func
}

// Result is what Module.Check found.
type Result struct {
	File   *syntax.File
	Module *meta.Module
	Diags  diag.List
	Units  []Unit
	// Internal is set when the engine panicked (Diags then holds its E0599
	// diagnostic): the stack is for the caller's log.
	Internal *InternalError
}

// load parses and evaluates a module, charging meter.
func load(meter *limits.Meter, name string, src []byte) (*syntax.File, *meta.Module, diag.List) {
	if d := stopDiag(meter, name, "parsing"); d != nil {
		return nil, nil, diag.List{*d}
	}
	limits.CountParse(meter.Context())
	file, diags := syntax.ParseFile(name, src)
	if diags.HasErrors() || file == nil {
		return file, nil, diags
	}
	mod, mdiags := meta.Load(file, meta.Options{Meter: meter})
	diags = append(diags, mdiags...)
	return file, mod, diags
}

func (o Options) checkOptions() check.Options {
	p := o.Ranks
	return check.Options{Ranks: p, Platform: o.Platform} // check applies platform.Default()
}

// check checks the module at opts.Entry, or everything it can instantiate,
// charging meter (which the module charges too).
func (m *Module) check(meter *limits.Meter, opts Options) *Result {
	res := &Result{File: m.file, Module: m.mod, Diags: append(diag.List(nil), m.diags...)}
	if res.Diags.HasErrors() || res.Module == nil {
		return res
	}
	name := m.name
	copts := opts.checkOptions()
	if opts.Ranks > 0 && !res.ranksFit(meter, opts.Ranks, diag.Span{File: name, Start: diag.Pos{Line: 1, Col: 1}, End: diag.Pos{Line: 1, Col: 1}}) {
		return res
	}
	if opts.Entry != "" {
		fn, diags := evalEntry(res.Module, opts.Entry)
		res.Diags = append(res.Diags, diags...)
		if fn == nil {
			return res
		}
		res.checkFunc(meter, opts.Entry, fn, copts)
		return res
	}
	cands, diags := candidates(res.Module, factoryRanks(opts.Ranks))
	res.Diags = append(res.Diags, diags...)
	// A kernel or wrapper that some host orchestrator dispatches is checked
	// as part of that program, with the argument types it really receives;
	// only the ones no host reaches are checked on their own.
	reached := map[string]bool{}
	for _, c := range cands {
		if !isProgramEntry(res.Module, c.Func) {
			continue
		}
		res.checkFunc(meter, c.Label, c.Func, copts)
		for _, u := range res.Units {
			if u.Program != nil {
				for _, f := range u.Program.Funcs {
					reached[funcKey(f.Name, f.Span.Line)] = true
				}
			}
		}
	}
	for _, c := range cands {
		if !isProgramEntry(res.Module, c.Func) && !reached[funcKey(c.Func.Def.Name, c.Func.Def.NamePos.Start.Line)] {
			res.checkFunc(meter, c.Label, c.Func, copts)
		}
	}
	if d := stopDiag(meter, name, "checking"); d != nil && !hasCode(res.Diags, d.Code) {
		res.Diags = append(res.Diags, *d)
	}
	res.Diags = dedupe(res.Diags)
	return res
}

func hasCode(l diag.List, code string) bool {
	for _, d := range l {
		if d.Code == code {
			return true
		}
	}
	return false
}

// ranksFit reports whether the work may run at p ranks: within the rank
// cap, and with the per-rank state of a run at p ranks inside the memory
// budget. It reports why not at span. Both are asked before anything is
// built for p ranks, so a rank count of 100000, however derived, costs
// nothing.
func (res *Result) ranksFit(meter *limits.Meter, p int, span diag.Span) bool {
	b := meter.Budget
	if b.MaxRanks > 0 && p > b.MaxRanks {
		res.Diags = append(res.Diags, diag.Diagnostic{Span: span, Code: emu.CodeRanks, Severity: diag.Error,
			Msg:  fmt.Sprintf("the program runs at %d ranks; the limit is %d", p, b.MaxRanks),
			Hint: "run it at fewer ranks: a rank count comes from the request, the host's tensor annotations or a factory's argument"})
		return false
	}
	if want := emu.RankStateBytes(p); b.Memory > 0 && want > b.Memory {
		res.Diags = append(res.Diags, diag.Diagnostic{Span: span, Code: emu.CodeMemory, Severity: diag.Error,
			Msg:  fmt.Sprintf("%d ranks want %s of per-rank state; the limit is %s", p, limits.Bytes(want), limits.Bytes(b.Memory)),
			Hint: "run it at fewer ranks, or raise the limit (workbench --mem-limit)"})
		return false
	}
	return true
}

func (res *Result) checkFunc(meter *limits.Meter, label string, fn *meta.DSLFunc, copts check.Options) {
	if copts.Ranks == 0 {
		copts.Ranks = limits.DefaultRanks
		if n, ok := pinnedRanks(res.Module, fn); ok {
			copts.Ranks = n
		}
	}
	if !res.ranksFit(meter, copts.Ranks, fn.Def.NamePos) || !res.chipFits(res.Module, label, fn, copts.Ranks) {
		return
	}
	if isProgramEntry(res.Module, fn) {
		prog, diags := check.Check(res.Module, fn, copts)
		res.Diags = append(res.Diags, diags...)
		if prog != nil {
			res.Units = append(res.Units, Unit{Label: label, Program: prog})
		}
		return
	}
	f, diags := check.CheckFunc(res.Module, fn, copts)
	res.Diags = append(res.Diags, diags...)
	if f != nil {
		res.Units = append(res.Units, Unit{Label: label, Func: f})
	}
}

// chipFits reports whether fn may run at p ranks: anything but the chip
// orchestration of a program with no HOST level (check.ChipEntry), which
// runs on one chip (pinnedRanks gives it 1), as PyPTO's single-chip
// CompiledProgram runs on one device. It reports why not at fn.
func (res *Result) chipFits(mod *meta.Module, label string, fn *meta.DSLFunc, p int) bool {
	if p == 1 || !check.ChipEntry(mod, fn) {
		return true
	}
	res.Diags = append(res.Diags, diag.Diagnostic{Span: fn.Def.NamePos, Code: emu.CodeChipRanks, Severity: diag.Error,
		Msg:  fmt.Sprintf("%s is the chip orchestration of a program with no HOST level, which runs on one chip; got %d ranks", label, p),
		Hint: "run it at one rank (leave the rank count out), or write a HOST orchestrator that dispatches it with device=r on each rank"})
	return false
}

// isProgramEntry reports whether fn starts a program of its own: a host
// orchestrator, or the chip orchestration of a program with no HOST level.
func isProgramEntry(mod *meta.Module, fn *meta.DSLFunc) bool {
	return fn.Kind == meta.Host || check.ChipEntry(mod, fn)
}

func funcKey(name string, line int) string { return fmt.Sprintf("%s:%d", name, line) }

// factoryRanks is the rank count factories are called with when no entry
// names one.
func factoryRanks(ranks int) int {
	if ranks == 0 {
		return limits.DefaultRanks
	}
	return ranks
}

// withArticle is "a str", "an int": a Python type name as a sentence
// says it.
func withArticle(typ string) string {
	if typ != "" && strings.ContainsRune("aeiou", rune(typ[0])) {
		return "an " + typ
	}
	return "a " + typ
}

// evalEntry evaluates an --entry expression and requires a DSL function.
func evalEntry(mod *meta.Module, entry string) (*meta.DSLFunc, diag.List) {
	v, diags := mod.Eval(entry)
	if diags.HasErrors() {
		return nil, diags
	}
	fn, ok := v.(*meta.DSLFunc)
	if !ok {
		span := diag.Span{File: diag.EntryFile, Start: diag.Pos{Line: 1, Col: 1}, End: diag.Pos{Offset: len(entry), Line: 1, Col: len(entry) + 1}}
		hint := "name a function decorated with @pl.jit.host or @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)"
		if p, isProg := v.(*meta.Program); isProg {
			var hosts []string
			for _, m := range p.Methods {
				if m.Kind == meta.Host {
					hosts = append(hosts, entry+"."+m.Def.Name)
				}
			}
			if len(hosts) > 0 {
				hint = "name its host orchestrator: " + strings.Join(hosts, ", ")
			}
		}
		diags.Errorf(span, string(check.ErrEntry), hint, "--entry %s is %s, want a DSL function", entry, withArticle(v.TypeName()))
		return nil, diags
	}
	return fn, diags
}

// candidate is a DSL function the module can instantiate on its own, with
// the entry expression that names it.
type candidate struct {
	Label string
	Func  *meta.DSLFunc
}

// candidates lists what can be checked without an entry: module-level DSL
// functions (and the methods of module-level programs), and the DSL
// functions of every factory that takes only a rank count, called at ranks.
// Factories with more parameters are listed as diagnostics-free hints via
// Factories.
func candidates(mod *meta.Module, ranks int) ([]candidate, diag.List) {
	var out []candidate
	var diags diag.List
	for _, fn := range mod.DSLFuncs() {
		label := fn.Def.Name
		if fn.Program != nil {
			label = fn.Program.Name + "." + fn.Def.Name
		}
		out = append(out, candidate{Label: label, Func: fn})
	}
	for _, f := range mod.Factories() {
		if len(f.Params) != 1 {
			continue
		}
		v, d := mod.Call(f.Func, []meta.Value{meta.Int{V: int64(ranks)}}, nil)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		call := fmt.Sprintf("%s(%d)", f.Name, ranks)
		switch v := v.(type) {
		case *meta.Program:
			for _, m := range v.Methods {
				out = append(out, candidate{Label: call + "." + m.Def.Name, Func: m})
			}
		case *meta.DSLFunc:
			out = append(out, candidate{Label: call, Func: v})
		}
	}
	return out, diags
}

// entries lists the entry expressions the module offers at ranks, with
// the diagnostics of the factory calls it made (a factory that refuses the
// rank count raises): every host orchestrator (factories that need more
// arguments shown with their parameter names, e.g.
// "build_broadcast(4, use_builtin)"), or, when there is none, the chip
// orchestrations of its programs with no HOST level (check.ChipEntry),
// which chip reports. It is the one list the default entry is picked from;
// at is where a diagnostic about them points: the first one's program
// class, else its function, else the file's start.
func entries(mod *meta.Module, ranks int) (out []string, chip bool, at diag.Span, diags diag.List) {
	ranks = factoryRanks(ranks)
	cands, diags := candidates(mod, ranks)
	at = diag.Span{File: fileOf(mod), Start: diag.Pos{Line: 1, Col: 1}, End: diag.Pos{Line: 1, Col: 1}}
	first := func(fn *meta.DSLFunc) {
		if len(out) == 1 {
			at = fn.Def.NamePos
			if fn.Program != nil && fn.Program.Def != nil {
				at = fn.Program.Def.NamePos
			}
		}
	}
	for _, c := range cands {
		if c.Func.Kind == meta.Host {
			out = append(out, c.Label)
			first(c.Func)
		}
	}
	for _, f := range mod.Factories() {
		if len(f.Params) > 1 {
			args := append([]string{fmt.Sprint(ranks)}, f.Params[1:]...)
			out = append(out, fmt.Sprintf("%s(%s).<host orchestrator>", f.Name, strings.Join(args, ", ")))
		}
	}
	if len(out) > 0 {
		return out, false, at, diags
	}
	for _, c := range cands {
		if check.ChipEntry(mod, c.Func) {
			out = append(out, c.Label)
			first(c.Func)
		}
	}
	return out, len(out) > 0, at, diags
}

func fileOf(mod *meta.Module) string {
	if mod.File() != nil {
		return mod.File().Name
	}
	return ""
}

// dedupe drops diagnostics reported twice at the same place with the same
// message (a kernel shared by two host orchestrators is checked twice).
func dedupe(l diag.List) diag.List {
	seen := map[string]bool{}
	out := l[:0]
	for _, d := range l {
		k := fmt.Sprintf("%s|%d|%s|%s", d.Span.File, d.Span.Start.Offset, d.Code, d.Msg)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Span.Start.Offset < out[j].Span.Start.Offset })
	return out
}
