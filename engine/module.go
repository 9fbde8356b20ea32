package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"pldworkbench/engine/check"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/platform"
	"pldworkbench/engine/syntax"
)

// Module is a source file parsed and evaluated once, as go.starlark.net's
// syntax.Parse and go/types hand their callers a value to reuse: the CLI,
// the server, a comparison, a sweep and a schedule explorer load the text
// once and compile from it as often as they need. A module that failed to
// load is still a Module: its Diags say why, and what it compiles fails
// with them. A Module is not safe for concurrent use (compiling may run
// the program's factories, which can change its globals); a *Program is.
type Module struct {
	name  string
	src   []byte
	file  *syntax.File
	mod   *meta.Module
	diags diag.List
	// spent, made and took are what loading cost: every compile is
	// charged them again, so a compile's budget covers the module code
	// as it did when each piece of work parsed the text anew.
	spent, made int64
	took        time.Duration
	// internal is set when loading panicked: what is compiled or checked
	// from the module carries it, as when one piece of work loaded and
	// compiled.
	internal *InternalError
}

// Load parses name's text and evaluates its module code under opts.Budget
// (its timeout, its compile-time steps and memory). What loading reported
// is the module's Diags, which every compile carries on. It never panics:
// an engine bug comes back as an E0599 diagnostic.
func Load(ctx context.Context, name string, src []byte, opts Options) (m *Module) {
	meter, cancel := limits.Start(ctx, opts.budget())
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			ie := recovered(p)
			m = &Module{name: name, src: src, diags: diag.List{ie.Diagnostic(name)}, internal: ie}
		}
	}()
	m = loadModule(meter, name, src)
	if m.mod != nil {
		m.mod.SetMeter(nil) // each compile brings its own (start)
	}
	return m
}

// loadModule is Load charging meter.
func loadModule(meter *limits.Meter, name string, src []byte) *Module {
	start := time.Now()
	m := &Module{name: name, src: src}
	m.file, m.mod, m.diags = load(meter, name, src)
	m.spent, m.made, m.took = meter.Spent(), meter.CompileBytes(), time.Since(start)
	return m
}

// Diags returns the diagnostics of loading the module.
func (m *Module) Diags() diag.List { return m.diags }

// Name returns the file name the module was loaded as; Source its text.
func (m *Module) Name() string { return m.name }

// Render renders l, quoting each span from the text it is in: the
// module's file, or the entry expression its last compile evaluated.
func (m *Module) Render(l diag.List) string {
	return diag.RenderSources(l, func(file string) []byte {
		if m.mod != nil {
			if src := m.mod.SourceOf(file); src != nil {
				return src
			}
		}
		if file == diag.EntryFile {
			return nil
		}
		return m.src
	})
}

// Source returns the module's text.
func (m *Module) Source() []byte { return m.src }

// Entries lists the entry expressions the module offers at ranks (0 =
// limits.DefaultRanks): every host orchestrator, factories that need more
// arguments shown with their parameter names, or, in a module with no host
// orchestrator, the chip orchestrations of its programs with no HOST level
// (L2-only programs, run on one chip).
func (m *Module) Entries(ranks int) []string {
	if m.mod == nil {
		return nil
	}
	out, _, _, _ := entries(m.mod, ranks)
	return out
}

// start opens the account of one piece of work on the module: opts's
// budget less what loading took (its clock and its steps, charged again),
// so a compile is bounded as the whole front end was when it parsed the
// text itself. The module charges it until the returned function runs.
func (m *Module) start(ctx context.Context, b limits.Budget) (*limits.Meter, func()) {
	if b.Timeout > 0 {
		b.Timeout = max(b.Timeout-m.took, time.Millisecond)
	}
	meter, cancel := limits.Start(ctx, b)
	meter.Step(m.spent)
	meter.Compile(m.made)
	if m.mod == nil {
		return meter, cancel
	}
	old := m.mod.SetMeter(meter)
	return meter, func() { m.mod.SetMeter(old); cancel() }
}

// Check checks the module under opts: the entry opts.Entry names, or
// without one everything the module can instantiate (see the package
// comment). It never panics.
func (m *Module) Check(ctx context.Context, opts Options) (res *Result) {
	meter, done := m.start(ctx, opts.budget())
	defer done()
	defer giveBack(meter)
	defer func() {
		if p := recover(); p != nil {
			ie := recovered(p)
			res = &Result{Diags: diag.List{ie.Diagnostic(m.name)}, Internal: ie}
		}
	}()
	opts.Entry = expandP(opts.Entry, opts.Ranks)
	res = m.check(meter, opts)
	if m.internal != nil {
		res.Internal = m.internal
	}
	return res
}

// expandP replaces {P} in an entry with the rank count (limits.DefaultRanks when
// none is given), so the entry lines of our kernels' headers
// (build_ring_allreduce({P}).ring_allreduce) work as they are written: the
// one place it is expanded.
func expandP(entry string, ranks int) string {
	if ranks == 0 {
		ranks = limits.DefaultRanks
	}
	return strings.ReplaceAll(entry, "{P}", strconv.Itoa(ranks))
}

// Program is a module compiled at one entry: the entry resolved (the
// default entry when none was named, {P} expanded), the
// rank count and the platform fixed, checked and lowered. It is never
// changed after Compile (but for the emulator's form of it, made once by
// its first run), so one Program runs as often as needed, from several
// goroutines at once. A program that did not compile is still a
// Program: Diags (or NoEntry) say why, and Run ends with compile_error.
type Program struct {
	Name     string // the file name
	Entry    string // the entry expression, {P} expanded
	Ranks    int
	Platform string
	// Diags holds what loading, picking the entry and checking reported
	// (warnings too).
	Diags diag.List
	// NoEntry is set when no entry was named and the module has no default
	// one (defaultEntry): it says which entries there are, and Diags holds
	// it as a coded diagnostic.
	NoEntry string
	// Internal is set when the engine panicked compiling it.
	Internal *InternalError

	src      []byte
	entrySrc []byte      // the entry expression's text as evaluated, for Render
	checked  *ir.Program // nil when it did not compile
	lowered  *ir.Program
	failure  *emu.RunError // why Run cannot start, with status
	status   emu.Status

	// compiled is lowered compiled for the emulator by the first run, for
	// every later one (emulated).
	compileOnce sync.Once
	compiled    *emu.Compiled
}

// emulated returns p's lowered program compiled for the emulator, compiled
// once however many runs go at once.
func (p *Program) emulated() *emu.Compiled {
	p.compileOnce.Do(func() { p.compiled = emu.Compile(p.lowered) })
	return p.compiled
}

// Compile resolves entry ("" = the default entry, defaultEntry; {P}
// stands for the rank count), applies every default once — the rank count
// (opts.Ranks, else what the entry's tensors pin, else DefaultRanks) and
// the platform — then checks and lowers the program, under opts.Budget
// less what loading took. opts.Entry is ignored. It never panics.
func (m *Module) Compile(ctx context.Context, entry string, opts Options) (prog *Program, diags diag.List) {
	meter, done := m.start(ctx, opts.budget())
	defer done()
	defer giveBack(meter)
	defer func() {
		if p := recover(); p != nil {
			ie := recovered(p)
			prog = &Program{Name: m.name, Entry: entry, src: m.src, Diags: diag.List{ie.Diagnostic(m.name)}, Internal: ie,
				status: emu.StatusRuntimeError, failure: ie.RunError()}
			diags = prog.Diags
		}
	}()
	prog = m.compile(meter, entry, opts)
	if m.mod != nil {
		prog.entrySrc = m.mod.SourceOf(diag.EntryFile)
	}
	return prog, prog.Diags
}

// Render renders l, quoting each span from the text it is in: the
// program's file, or its entry expression.
func (p *Program) Render(l diag.List) string {
	return diag.RenderSources(l, func(file string) []byte {
		if file == diag.EntryFile {
			return p.entrySrc
		}
		return p.src
	})
}

// compile is Compile charging meter.
func (m *Module) compile(meter *limits.Meter, entry string, opts Options) *Program {
	limits.CountCompile(meter.Context())
	prog := &Program{Name: m.name, src: m.src, Platform: opts.Platform, status: emu.StatusCompileError}
	if prog.Platform == "" {
		prog.Platform = platform.Default()
	}
	if m.internal != nil {
		prog.Entry, prog.Diags, prog.Internal = entry, m.diags, m.internal
		prog.status, prog.failure = emu.StatusRuntimeError, m.internal.RunError()
		return prog
	}
	if entry == "" {
		picked, err := m.defaultEntry(meter, opts.Ranks)
		if err != nil {
			if l, isDiag := err.(diag.List); isDiag {
				prog.Diags = l
				prog.failWith(l)
				return prog
			}
			prog.NoEntry = err.Error()
			prog.failure = &emu.RunError{Rank: -1, Message: prog.NoEntry, Hint: "name the entry to run"}
			if ne, ok := err.(*noEntryError); ok {
				prog.Diags = diag.List{ne.Diag}
				prog.failure.Code, prog.failure.Hint = ne.Diag.Code, ne.Diag.Hint
			}
			return prog
		}
		entry = picked
	}
	prog.Entry = expandP(entry, opts.Ranks)
	copts := opts
	copts.Entry = prog.Entry
	checked := m.check(meter, copts)
	prog.Diags = checked.Diags
	if checked.Internal != nil {
		prog.Internal, prog.status, prog.failure = checked.Internal, emu.StatusRuntimeError, checked.Internal.RunError()
		return prog
	}
	if checked.Diags.HasErrors() || len(checked.Units) != 1 || checked.Units[0].Program == nil {
		prog.failWith(checked.Diags)
		if !checked.Diags.HasErrors() {
			// A kernel, or an orchestration under a HOST level: checked on
			// its own, but not a program.
			prog.failure = &emu.RunError{Rank: -1, Code: string(check.ErrEntry),
				Message: fmt.Sprintf("entry %s is not a program to run: want a host orchestrator, or the chip orchestration of a program with no HOST level", prog.Entry),
				Hint:    "name a host orchestrator with --entry"}
			if list, _, _, _ := entries(m.mod, opts.Ranks); len(list) > 0 {
				prog.failure.Hint = "run " + strings.Join(list, " or ")
			}
		}
		return prog
	}
	prog.checked = checked.Units[0].Program
	prog.Ranks = prog.checked.Ranks
	lowered, err := lower.LowerContext(meter.Context(), prog.checked, "")
	switch {
	case err != nil && meter.Stopped() != nil:
		d := stopDiag(meter, m.name, "lowering")
		prog.status, _ = stoppedStatus(diag.List{*d})
		prog.failure = &emu.RunError{Rank: -1, Code: d.Code, Message: d.Msg, Hint: d.Hint}
	case err != nil:
		// The checker admits only what the passes can lower; reaching
		// here is an engine bug, reported rather than hidden.
		prog.failure = &emu.RunError{Rank: -1, Message: "lowering failed: " + err.Error()}
	default:
		prog.lowered, prog.status = lowered, ""
	}
	return prog
}

// failWith records why a program whose front end reported diags cannot
// run: the deadline or a cancellation, else a compile error.
func (p *Program) failWith(diags diag.List) {
	var stopped *diag.Diagnostic
	p.status, stopped = stoppedStatus(diags)
	if stopped != nil {
		p.failure = &emu.RunError{Rank: -1, Line: stopped.Span.Start.Line, Col: stopped.Span.Start.Col, Code: stopped.Code, Message: stopped.Msg, Hint: stopped.Hint}
	}
}

// Stopped reports whether compiling was cut short by the deadline or a
// cancellation: the outcome says nothing about the program.
func (p *Program) Stopped() bool {
	return p.status == emu.StatusTimeout || p.status == emu.StatusCanceled
}

// Failure returns why Run cannot start (the error a run of p ends with),
// or nil when it can.
func (p *Program) Failure() *emu.RunError { return p.failure }

// OK reports whether the program compiled and can run.
func (p *Program) OK() bool { return p.lowered != nil }

// Checked returns the program as the checker built it, before any pass,
// or nil when it did not compile; Lowered the program as it runs.
func (p *Program) Checked() *ir.Program { return p.checked }

// Lowered returns the fully lowered program, or nil.
func (p *Program) Lowered() *ir.Program { return p.lowered }

// Source returns the text the program was compiled from.
func (p *Program) Source() []byte { return p.src }

// Run runs the program on the emulator under opts (its fill, seed,
// arguments, schedule, race detector and budget; its Entry, Ranks and
// Platform are the program's). A program that did not compile ends with
// its compile error. It never panics: an engine bug ends the run with
// runtime_error, E0599 and RunResult.Internal set.
func (p *Program) Run(ctx context.Context, opts RunOptions) (res *RunResult) {
	meter, cancel := limits.Start(ctx, opts.budget())
	defer cancel()
	defer giveBack(meter)
	defer recoverRun(&res, p.Entry)
	return p.run(meter, opts)
}

// recoverRun, deferred, ends a run the engine panicked in with
// runtime_error, E0599 and Internal set, on *res or, when the panic came
// before there was one, on a new result for entry.
func recoverRun(res **RunResult, entry string) {
	if r := recover(); r != nil {
		ie := recovered(r)
		if *res == nil {
			*res = &RunResult{Entry: entry}
			(*res).init()
		}
		(*res).Status, (*res).Error, (*res).Internal = emu.StatusRuntimeError, ie.RunError(), ie
	}
}
