// Package check type-checks a PyPTO distributed program and builds its IR.
//
// The checker is an elaborator, the way PyPTO's own parser is: it walks the
// body of the host orchestrator chosen as the entry, instantiated at P ranks
// (Options.Ranks), and every DSL function that body dispatches, transitively,
// and for each DSL function it produces one ir.Func. Walking a body it
//
//   - resolves every name: DSL locals first (parameters and assigned names,
//     which become mutable ir.Vars), then the function's meta.Env for module
//     and closure constants (nr, SIZE, chunk, mode, use_builtin);
//   - types every expression, folding those whose leaves are all
//     compile-time values with meta's operators (Python semantics: floor //
//     and %), and emitting scalar ir.Bin statements for the rest (the
//     device's truncating semantics are the emulator's business);
//   - folds `if` on a compile-time condition (if use_builtin:), so only the
//     taken branch is checked and emitted;
//   - turns each pl/pld call into one ir.Op, driven by the operation table
//     (optable.go): the levels an operation may run at, its positional and
//     keyword parameters and their kinds, its result type, and the extra
//     rules of pld-spec §3-§4 (opcheck.go, window.go, collectives.go);
//   - turns each call of another DSL function into an ir.Call, checking the
//     arguments against the callee's annotated parameters and the level
//     rules of a dispatch (host → orchestration with device=, orchestration
//     → InCore without).
//
// Every finding is a diag.Diagnostic with a stable code from codes.go, a
// lower-case concrete message and a hint. Once an expression has an error
// its operand is marked invalid and every later rule that would trip over it
// stays silent (go/types' follow-on suppression), so the first real error is
// the one a learner sees. Dead allocs, a whole-program property, are judged
// only when the rest of the program checks. The signal-shape contract of
// the collectives is the exported table SignalContract, which the lowering
// passes share; OpArgs and OpArg let them read an Op's operands by name.
//
// Files: check.go (entry points, instantiation, signatures), func.go
// (per-function state: scopes, bindings, joins), stmt.go, expr.go,
// call.go (dispatch and compile-time calls), opcall.go (binding a call to
// the table and emitting it), optable.go, opcheck.go, window.go,
// collectives.go, suggest.go (unknown operations), types.go (annotations),
// codes.go.
package check

import (
	"fmt"
	"sort"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/platform"
	"pldworkbench/engine/syntax"
)

// Options configures a check.
type Options struct {
	// Ranks is P, the number of ranks the program is instantiated for
	// (pld.world_size()). 0 means limits.DefaultRanks.
	Ranks int
	// Platform names a row of engine/platform (its default when empty);
	// it sets the AIV core budget of host collectives.
	Platform string
}

// platform is the row of the checked platform (newChecker refused an
// unknown name).
func (c *checker) platform() platform.Platform {
	p, _ := platform.Lookup(c.opts.Platform)
	return p
}

func (o Options) withDefaults() Options {
	if o.Ranks == 0 {
		o.Ranks = limits.DefaultRanks
	}
	if o.Platform == "" {
		o.Platform = platform.Default()
	}
	return o
}

// Check instantiates the host orchestrator entry at opts.Ranks ranks (or
// the chip orchestration of an L2-only program: ChipEntry)
// and checks it and every function it dispatches, returning the program's IR.
// The program is returned even when there are errors (for tooling); it is
// only meaningful when the list has no errors.
func Check(mod *meta.Module, entry *meta.DSLFunc, opts Options) (*ir.Program, diag.List) {
	c, ok := newChecker(mod, opts)
	if !ok {
		return nil, c.diags
	}
	if entry == nil {
		c.errorf(diag.Span{File: fileName(mod)}, ErrEntry, "", "no entry function given")
		return nil, c.finish()
	}
	if !c.checkEntry(entry) {
		return nil, c.finish()
	}
	c.checkProgramAllocNames(entry.Program)
	info := c.instantiate(entry, entry.Def.NamePos)
	c.checkInOutUse()
	c.checkHostViews()
	c.checkAllocs()
	prog := &ir.Program{Name: entry.Def.Name, Ranks: c.opts.Ranks, Platform: c.opts.Platform, Entry: info.fn}
	if entry.Program != nil {
		prog.Name = entry.Program.Name
	}
	defer c.markDomains(prog)
	for _, lvl := range []ir.Level{ir.Host, ir.Orchestration, ir.InCore} {
		for _, fi := range c.order {
			if fi.level == lvl {
				prog.Funcs = append(prog.Funcs, fi.fn)
			}
		}
	}
	return prog, c.finish()
}

// CheckFunc checks one DSL function on its own, its parameters typed from
// their annotations, together with the functions it calls. It is what the
// workbench uses when no entry is given. Window buffer bookkeeping that
// needs the whole program (dead allocs) is left out unless fn is a host
// orchestrator.
func CheckFunc(mod *meta.Module, fn *meta.DSLFunc, opts Options) (*ir.Func, diag.List) {
	c, ok := newChecker(mod, opts)
	if !ok {
		return nil, c.diags
	}
	if fn == nil {
		c.errorf(diag.Span{File: fileName(mod)}, ErrEntry, "", "no function given")
		return nil, c.finish()
	}
	info := c.instantiate(fn, fn.Def.NamePos)
	if fn.Kind == meta.Host {
		c.checkAllocs()
	}
	return info.fn, c.finish()
}

func fileName(mod *meta.Module) string {
	if mod != nil && mod.File() != nil {
		return mod.File().Name
	}
	return ""
}

// checker holds the state of one Check: the functions instantiated so far
// and the program-wide window buffer table.
type checker struct {
	mod   *meta.Module
	opts  Options
	diags diag.List
	seen  map[string]bool // deduplicates identical diagnostics

	funcs    map[*meta.DSLFunc]*funcInfo
	order    []*funcInfo // instantiation (first-call) order
	irNames  map[string]int
	allocs   []*alloc
	allocIDs map[string]*alloc
	// halted is set once the work's deadline passed or its caller gave up
	// (the module's meter): the checker then skips every statement left.
	halted bool
	// refused lists the element types already reported as refused: the
	// first annotation that names one is the error, the others follow-ons.
	refused map[ir.DType]bool
	// atWarned is set once WarnAtPlacement was given, taskWarned once
	// WarnTaskOrder was.
	atWarned, taskWarned bool
}

// stopped reports whether checking must stop, reporting why at span the
// first time: the work's deadline, shared with module evaluation, covers
// checking too.
func (c *checker) stopped(span diag.Span) bool {
	if c.halted {
		return true
	}
	err := c.mod.Meter().Stopped()
	if err == nil {
		return false
	}
	c.halted = true
	for _, d := range c.diags {
		if d.Code == meta.CodeTimeout || d.Code == meta.CodeCanceled {
			return true // module evaluation already said so
		}
	}
	code, msg := meta.CodeCanceled, "checking canceled: the caller gave up"
	if limits.IsTimeout(err) {
		code, msg = meta.CodeTimeout, fmt.Sprintf("checking did not finish within the wall-clock limit of %v", c.mod.Meter().Budget.Timeout)
	}
	c.report(diag.Diagnostic{Span: span, Code: code, Severity: diag.Error, Msg: msg,
		Hint: "the program is larger or its loops longer than one check can take; look for a bound far larger than meant"})
	return true
}

// funcInfo is one instantiated DSL function.
type funcInfo struct {
	dsl   *meta.DSLFunc
	fn    *ir.Func
	level ir.Level
	// sigOK is false when a parameter or result annotation had an error:
	// calls then skip argument checks instead of reporting follow-ons.
	sigOK bool
	// annotated says fn.Result comes from a return annotation; otherwise it
	// is inferred from the first return of the body.
	annotated bool
	state     funcState
}

type funcState int

const (
	stateNew funcState = iota
	stateChecking
	stateDone
)

func newChecker(mod *meta.Module, opts Options) (*checker, bool) {
	c := &checker{
		mod:      mod,
		opts:     opts.withDefaults(),
		seen:     map[string]bool{},
		funcs:    map[*meta.DSLFunc]*funcInfo{},
		irNames:  map[string]int{},
		allocIDs: map[string]*alloc{},
	}
	sp := diag.Span{File: fileName(mod)}
	if mod == nil {
		c.errorf(sp, ErrEntry, "", "no module")
		return c, false
	}
	if _, ok := platform.Lookup(c.opts.Platform); !ok {
		c.errorf(sp, ErrEntry, "use "+platform.Choices(" or "), "unknown platform %q", c.opts.Platform)
		return c, false
	}
	if c.opts.Ranks < 1 {
		c.errorf(sp, ErrEntry, "run on at least one rank", "rank count %d, want at least 1", c.opts.Ranks)
		return c, false
	}
	return c, true
}

// finish sorts the diagnostics by position.
func (c *checker) finish() diag.List {
	c.diags.Sort()
	return c.diags
}

// errorf reports a diagnostic with code's severity; an empty hint takes the
// code's default hint.
func (c *checker) errorf(sp diag.Span, code Code, hint, format string, args ...any) {
	info := codeInfo(code)
	if hint == "" {
		hint = info.Hint
	}
	msg := fmt.Sprintf(format, args...)
	key := fmt.Sprintf("%s:%d:%s:%s", sp.File, sp.Start.Offset, code, msg)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.diags.Add(diag.Diagnostic{Span: sp, Code: string(code), Severity: info.Severity, Msg: msg, Hint: hint})
}

// report adds a diagnostic made elsewhere (meta's evaluation errors).
func (c *checker) report(d diag.Diagnostic) {
	key := fmt.Sprintf("%s:%d:%s:%s", d.Span.File, d.Span.Start.Offset, d.Code, d.Msg)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.diags.Add(d)
}

func irSpan(s diag.Span) ir.Span {
	return ir.Span{File: s.File, Line: s.Start.Line, Col: s.Start.Col, EndLine: s.End.Line, EndCol: s.End.Col}
}

// irSite is the site of a statement the checker emits from the source at s
// (no origin: only lowering passes set one).
func irSite(s diag.Span) ir.Site { return ir.Site{Span: irSpan(s)} }

// joinSpan returns the span from a's start to b's end.
func joinSpan(a, b diag.Span) diag.Span {
	return diag.Span{File: a.File, Start: a.Start, End: b.End}
}

func levelOf(k meta.Kind) ir.Level {
	switch k {
	case meta.Host:
		return ir.Host
	case meta.Orchestration:
		return ir.Orchestration
	}
	return ir.InCore
}

// describeFunc names a DSL function for messages: `InCore kernel "k"`.
func describeFunc(d *meta.DSLFunc) string {
	return fmt.Sprintf("%s %q", d.Kind, d.Def.Name)
}

// instantiate returns the checked form of d, checking its signature and
// body on first use. at is the call site, for a recursion error.
func (c *checker) instantiate(d *meta.DSLFunc, at diag.Span) *funcInfo {
	if fi, ok := c.funcs[d]; ok {
		if fi.state == stateChecking {
			c.errorf(at, ErrRecursion, "", "%s calls itself (directly or through another function)", describeFunc(d))
		}
		return fi
	}
	fi := &funcInfo{dsl: d, level: levelOf(d.Kind), sigOK: true}
	c.funcs[d] = fi
	c.order = append(c.order, fi)
	name := d.Def.Name
	if n := c.irNames[name]; n > 0 {
		name = fmt.Sprintf("%s.%d", name, n)
	}
	c.irNames[d.Def.Name]++
	fi.fn = &ir.Func{Name: name, Level: fi.level, Span: irSpan(d.Def.NamePos), Body: &ir.Block{}}
	c.signature(fi)
	c.hostDims(fi)
	fi.state = stateChecking
	fc := newFuncChecker(c, fi)
	fc.body(d.Def.Body)
	fc.checkLooseDevices()
	fc.finish()
	fi.state = stateDone
	return fi
}

// signature types fi's parameters and result from their annotations.
func (c *checker) signature(fi *funcInfo) {
	d := fi.dsl
	params := d.Def.Params
	if d.Program != nil {
		if len(params) == 0 || params[0].Name != "self" {
			c.errorf(d.Def.NamePos, ErrParam, "methods of a @pl.program class take self first",
				"method %s has no self parameter", d.Def.Name)
			fi.sigOK = false
		} else {
			params = params[1:]
		}
	}
	for _, p := range params {
		switch {
		case p.Star || p.DoubleStar:
			c.errorf(p.Pos, ErrParam, "list every parameter by name", "*args and **kwargs are not allowed in a DSL function")
			fi.sigOK = false
			continue
		case p.Default != nil:
			hint := "pass every argument explicitly"
			if p.Annotation == nil {
				hint = "remove the default and annotate the parameter instead, e.g. " + p.Name + ": pl.Tensor[[N], pl.FP32]; pass every argument explicitly"
			}
			c.errorf(p.Pos, ErrParam, hint, "parameter %s has a default; DSL parameters cannot", p.Name)
			fi.sigOK = false
			if p.Annotation == nil {
				// PyPTO rejects the default; the missing annotation is a
				// follow-on of the same mistake, so one diagnostic says it.
				fi.fn.Params = append(fi.fn.Params, &ir.Param{Var: &ir.Var{Name: p.Name, Type: &ir.Invalid{}}})
				continue
			}
		case p.Annotation == nil:
			c.errorf(p.NamePos, ErrParam, "", "parameter %s has no type annotation", p.Name)
			fi.sigOK = false
			fi.fn.Params = append(fi.fn.Params, &ir.Param{Var: &ir.Var{Name: p.Name, Type: &ir.Invalid{}}})
			continue
		}
		t, dir, ok := c.annotation(p.Annotation, d.Env, true)
		if !ok {
			fi.sigOK = false
		}
		fi.fn.Params = append(fi.fn.Params, &ir.Param{Var: &ir.Var{Name: p.Name, Type: t}, Dir: dir})
	}
	if d.Def.Result != nil {
		t, _, ok := c.annotation(d.Def.Result, d.Env, false)
		if !ok {
			fi.sigOK = false
		}
		fi.fn.Result = t
		fi.annotated = true
	}
}

// sortBinds orders call-site bindings by symbol for stable printing.
func sortBinds(b []ir.Bind) {
	sort.Slice(b, func(i, j int) bool { return b[i].Sym < b[j].Sym })
}

// exprSpan is a nil-safe Span.
func exprSpan(e syntax.Expr) diag.Span {
	if e == nil {
		return diag.Span{}
	}
	return e.Span()
}
