package meta

import (
	"context"
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/syntax"
)

// Defaults of Options.
const (
	// DefaultName is bound to __name__, so a program's
	// `if __name__ == "__main__":` harness is skipped.
	DefaultName = "workbench_program"
	// DefaultMaxSteps bounds the statements and expressions one Load, Eval,
	// Call or EvalExpr evaluates. The 16 tutorial programs need under a
	// thousand; a million is a few hundred milliseconds of evaluation.
	DefaultMaxSteps = 1_000_000
	// DefaultMaxDepth bounds nested calls of the program's own functions.
	DefaultMaxDepth = 200
)

// Options configures a module evaluation. The zero value uses the defaults.
type Options struct {
	Name     string // value of __name__; DefaultName when empty
	MaxSteps int    // DefaultMaxSteps when 0; ignored when Meter is set (its Budget.Steps applies)
	MaxDepth int    // DefaultMaxDepth when 0
	// Meter is the account of the piece of work the module belongs to:
	// every Load, Eval, Call and EvalExpr on the module charges its steps
	// and the bytes of the values it makes there, and stops when its
	// context is done. nil means a meter of MaxSteps steps, no memory
	// limit and no deadline.
	Meter *limits.Meter
}

// Module is an evaluated program module: its globals after the top-level
// statements ran, and what the checker needs to find its DSL functions.
// Eval, Call and EvalExpr may run the program's functions, which can mutate
// its globals, so a Module is not safe for concurrent use.
type Module struct {
	file    *syntax.File
	opts    Options
	globals *Env
	// defined lists the *DSLFunc and *Program values made at module scope,
	// in the order their statements ran.
	defined []Value
	// srcs maps a span's file name to its text, so messages can quote a
	// call as written ("build_ring_allreduce(3)").
	srcs map[string][]byte
	// scopes caches each function's global/nonlocal declarations.
	scopes map[*syntax.FuncDef]*scopeDecl
	// builtins and methods are the tables of Python builtin functions and
	// of the builtin kinds' methods (builtins.go, methods.go).
	builtins map[string]builtinFn
	methods  map[string]map[string]methodFn
	// userExc maps the program's own exception classes to their bases.
	userExc map[string]string
	// meter is opts.Meter, or the module's own; nextPoll is the step count
	// at which the evaluator next looks at its deadline.
	meter    *limits.Meter
	nextPoll int64
}

// Factory is a module-level plain function whose body directly defines a
// @pl.program class or a DSL function: build_ring_allreduce(nr) and the
// like. Params lists its parameter names as written (with * and ** on the
// variadic ones); Required counts those without a default.
type Factory struct {
	Name     string
	Func     *Func
	Params   []string
	Required int
}

// Load runs file's top-level statements with Python semantics and returns
// the module. A module whose code fails still returns the Module (with the
// globals bound so far) along with the diagnostics.
func Load(file *syntax.File, opts Options) (*Module, diag.List) {
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	meter := opts.Meter
	if meter == nil {
		meter = limits.NewMeter(context.Background(), limits.Budget{Steps: int64(opts.MaxSteps)})
	}
	m := &Module{
		meter:    meter,
		file:     file,
		opts:     opts,
		srcs:     map[string][]byte{file.Name: file.Src},
		scopes:   map[*syntax.FuncDef]*scopeDecl{},
		builtins: builtinFuncs,
		methods:  methodTables,
		userExc:  map[string]string{},
	}
	m.globals = NewEnv(newBuiltinScope())
	m.globals.Set("__name__", Str{opts.Name})
	m.globals.Set("__file__", Str{file.Name})
	if file.Doc != nil {
		m.globals.Set("__doc__", Str{file.Doc.Value})
	} else {
		m.globals.Set("__doc__", None)
	}
	mc := m.newMachine()
	fr := &frame{env: m.globals, closure: m.globals, module: true}
	if _, _, err := mc.execBlock(fr, file.Body); err != nil {
		return m, diag.List{err.Diagnostic()}
	}
	return m, nil
}

// newBuiltinScope returns the scope outside module globals that holds
// Python's builtin names (range, len, ValueError, ...), each a *Builtin.
func newBuiltinScope() *Env {
	env := NewEnv(nil)
	for _, name := range builtinNames() {
		env.Set(name, &Builtin{Path: name})
	}
	return env
}

// Meter returns the account the module charges.
func (m *Module) Meter() *limits.Meter { return m.meter }

// SetMeter makes meter the account that Eval, Call and EvalExpr charge
// from now on and returns the one it replaces: a module loaded once is
// compiled by several pieces of work (an entry per request, a sweep's
// points), each under its own budget and deadline. nil is an unlimited
// meter.
func (m *Module) SetMeter(meter *limits.Meter) (old *limits.Meter) {
	old, m.meter, m.nextPoll = m.meter, meter, 0
	return old
}

// SourceOf returns the text a span's file names: the module's file, or
// the entry expression Eval last parsed (diag.EntryFile); nil for any
// other.
func (m *Module) SourceOf(file string) []byte { return m.srcs[file] }

// Globals returns the module's global scope. Its Parent holds Python's
// builtins.
func (m *Module) Globals() *Env { return m.globals }

// File returns the parsed file the module was loaded from.
func (m *Module) File() *syntax.File { return m.file }

// Eval parses src as an expression (file name "<entry>") and evaluates it in
// the module's globals: "orchestrator", "Program.host_fn",
// "build_ring_allreduce(4).ring_allreduce". An exception raised inside a
// factory is reported at its raise in the module's file.
func (m *Module) Eval(src string) (Value, diag.List) {
	m.srcs[diag.EntryFile] = []byte(src) // quoted by a parse error too
	e, errs := syntax.ParseExpr(diag.EntryFile, src)
	if errs.HasErrors() {
		return nil, errs
	}
	mc := m.newMachine()
	fr := &frame{env: m.globals, closure: m.globals, module: true}
	v, err := mc.eval(fr, e)
	if err != nil {
		return nil, diag.List{err.Diagnostic()}
	}
	return v, nil
}

// Call calls fn (a *Func, a Python builtin, ...) with args and kwargs, as
// fn(*args, **kwargs) would at module level. kwargs are passed in name order.
func (m *Module) Call(fn Value, args []Value, kwargs map[string]Value) (Value, diag.List) {
	kw := make([]kwarg, 0, len(kwargs))
	for _, name := range sortedKeys(kwargs) {
		kw = append(kw, kwarg{name, kwargs[name]})
	}
	mc := m.newMachine()
	parts := make([]string, 0, len(args)+len(kw))
	for _, a := range args {
		parts = append(parts, Repr(a))
	}
	for _, k := range kw {
		parts = append(parts, k.name+"="+Repr(k.v))
	}
	via := calleeName(fn) + "(" + strings.Join(parts, ", ") + ")"
	span := diag.Span{File: m.file.Name}
	v, err := mc.callValue(fn, args, kw, span, via)
	if err != nil {
		if err.Via == "" {
			err.Via = via
		}
		return nil, diag.List{err.at(span).Diagnostic()}
	}
	return v, nil
}

// EvalExpr evaluates the pure expression e in env with m's builtins and
// library: a type annotation such as
// pl.InOut[pld.DistributedTensor[[total_rounds, nr], pl.INT32]], or a
// subexpression whose leaves are all compile-time names. The error is
// reported at the offending part of e.
func EvalExpr(m *Module, e syntax.Expr, env *Env) (Value, *diag.Diagnostic) {
	if e == nil {
		// A caller's bug (an absent annotation), reported rather than a
		// nil dereference.
		d := fatalErr(CodeUnsupported, "", "no expression to evaluate").Diagnostic()
		return nil, &d
	}
	mc := m.newMachine()
	fr := &frame{env: env, closure: env}
	v, err := mc.eval(fr, e)
	if err != nil {
		d := err.at(e.Span()).Diagnostic()
		return nil, &d
	}
	return v, nil
}

// DSLFuncs lists the module-level DSL functions and the methods of the
// module-level @pl.program classes, in source order. Functions made by
// factories are not listed: call the factory (see Factories) to get them.
func (m *Module) DSLFuncs() []*DSLFunc {
	var out []*DSLFunc
	for _, v := range m.defined {
		switch v := v.(type) {
		case *DSLFunc:
			if cur, ok := m.globals.Vars[v.Def.Name]; ok && cur == Value(v) {
				out = append(out, v)
			}
		case *Program:
			if cur, ok := m.globals.Vars[v.Name]; ok && cur == Value(v) {
				out = append(out, v.Methods...)
			}
		}
	}
	return out
}

// Factories lists the module-level plain functions whose body directly
// (outside nested defs) defines a @pl.program class or a DSL function, in
// source order.
func (m *Module) Factories() []*Factory {
	var out []*Factory
	for _, name := range m.globals.Order {
		f, ok := m.globals.Vars[name].(*Func)
		if !ok || f.Def == nil || f.Env != m.globals || !m.definesDSL(f.Def.Body) {
			continue
		}
		fac := &Factory{Name: name, Func: f}
		for i, p := range f.Def.Params {
			switch {
			case p.Star:
				fac.Params = append(fac.Params, "*"+p.Name)
			case p.DoubleStar:
				fac.Params = append(fac.Params, "**"+p.Name)
			default:
				fac.Params = append(fac.Params, p.Name)
				if f.Defaults[i] == nil {
					fac.Required++
				}
			}
		}
		out = append(out, fac)
	}
	return out
}

// definesDSL reports whether body (not counting nested defs' bodies) holds
// a def with a DSL decorator or a @pl.program class.
func (m *Module) definesDSL(body []syntax.Stmt) bool {
	for _, s := range body {
		switch s := s.(type) {
		case *syntax.FuncDef:
			for _, d := range s.Decorators {
				if isDSLDecoratorPath(m.staticPath(d.X)) {
					return true
				}
			}
		case *syntax.ClassDef:
			for _, d := range s.Decorators {
				if m.staticPath(d.X) == "pl.program" {
					return true
				}
			}
		default:
			for _, blk := range childBlocks(s) {
				if m.definesDSL(blk) {
					return true
				}
			}
		}
	}
	return false
}

// staticPath resolves a decorator expression such as pl.jit.incore or
// pl.function(...) to its canonical library path using the module globals,
// without evaluating anything; "" when it is not a library symbol.
func (m *Module) staticPath(e syntax.Expr) string {
	switch e := e.(type) {
	case *syntax.Ident:
		if b, ok := m.globals.Vars[e.Name].(*Builtin); ok {
			return b.Path
		}
	case *syntax.AttrExpr:
		if p := m.staticPath(e.X); p != "" {
			return canonicalPath(p + "." + e.Name)
		}
	case *syntax.CallExpr:
		return m.staticPath(e.Fn)
	case *syntax.ParenExpr:
		return m.staticPath(e.X)
	}
	return ""
}

// childBlocks returns the statement lists nested in a compound statement
// other than def and class.
func childBlocks(s syntax.Stmt) [][]syntax.Stmt {
	switch s := s.(type) {
	case *syntax.IfStmt:
		return [][]syntax.Stmt{s.Body, s.Else}
	case *syntax.ForStmt:
		return [][]syntax.Stmt{s.Body, s.Else}
	case *syntax.WhileStmt:
		return [][]syntax.Stmt{s.Body, s.Else}
	case *syntax.WithStmt:
		return [][]syntax.Stmt{s.Body}
	case *syntax.TryStmt:
		out := [][]syntax.Stmt{s.Body, s.Else, s.Finally}
		for _, x := range s.Excepts {
			out = append(out, x.Body)
		}
		return out
	}
	return nil
}

func calleeName(fn Value) string {
	switch fn := fn.(type) {
	case *Func:
		return fn.Name()
	case *Builtin:
		return fn.Path
	case *DSLFunc:
		return fn.Def.Name
	}
	return fn.String()
}
