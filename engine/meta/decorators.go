package meta

import (
	"strings"

	"pldworkbench/engine/syntax"
)

// This file reads the DSL decorators: @pl.jit, @pl.jit.incore, @pl.jit.host,
// @pl.function(...) on defs and @pl.program on classes.

const decoratorForms = "@pl.jit.incore, @pl.jit, @pl.jit.host, @pl.function(type=pl.FunctionType.InCore), " +
	"@pl.function(type=pl.FunctionType.Orchestration) or @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)"

// decoratorPath evaluates the callee part of a decorator (pl.function in
// @pl.function(...)) and returns its library path, "" for anything else.
func (m *machine) decoratorPath(fr *frame, d *syntax.Decorator) (string, *syntax.CallExpr, *Error) {
	x := d.X
	call, _ := x.(*syntax.CallExpr)
	if call != nil {
		x = call.Fn
	}
	v, err := m.eval(fr, x)
	if err != nil {
		return "", nil, err
	}
	if b, ok := v.(*Builtin); ok {
		return b.Path, call, nil
	}
	return "", call, nil
}

// dslKind reports whether def carries a DSL decorator, which one, and the
// level it gives the function.
func (m *machine) dslKind(fr *frame, def *syntax.FuncDef) (Kind, *syntax.Decorator, bool, *Error) {
	var found *syntax.Decorator
	var kind Kind
	for _, d := range def.Decorators {
		path, call, err := m.decoratorPath(fr, d)
		if err != nil {
			return 0, nil, false, err
		}
		root, _, _ := strings.Cut(path, ".")
		if root != "pl" && root != "pld" {
			continue
		}
		k, isJit := dslDecorators[path]
		switch {
		case path == "pl.function":
			if k, err = m.functionKind(fr, d, call); err != nil {
				return 0, nil, false, err
			}
		case isJit:
			if call != nil && len(call.Args) > 0 {
				return 0, nil, false, fatalErr(CodeDecorator, "write it without arguments: @"+path,
					"@%s takes no arguments here, got %d", path, len(call.Args)).at(call.Pos)
			}
		case path == "pl.program":
			return 0, nil, false, fatalErr(CodeDecorator,
				"put @pl.program on the class and @pl.function(...) on each of its methods",
				"@pl.program decorates a class, not a function (%s)", def.Name).at(d.Pos)
		default:
			return 0, nil, false, fatalErr(CodeDecorator, "use one of "+decoratorForms,
				"unknown DSL decorator @%s on %s", path, def.Name).at(d.Pos)
		}
		if found != nil {
			return 0, nil, false, fatalErr(CodeDecorator, "keep exactly one DSL decorator per function",
				"%s has two DSL decorators: %s and %s", def.Name, m.text(found.Pos), m.text(d.Pos)).at(d.Pos)
		}
		found, kind = d, k
	}
	if found != nil && kind == subWorker {
		return subWorker, found, false, nil
	}
	return kind, found, found != nil, nil
}

// subWorker is what functionKind gives a HOST SubWorker callback: not a
// DSL function, a plain one marked Func.SubWorker.
const subWorker Kind = -1

// functionKind reads the arguments of @pl.function(...).
func (m *machine) functionKind(fr *frame, d *syntax.Decorator, call *syntax.CallExpr) (Kind, *Error) {
	if call == nil || len(call.Args) == 0 {
		return 0, fatalErr(CodeDecorator, "use one of "+decoratorForms,
			"@pl.function needs type= or level= and role= to say where the function runs").at(d.Pos)
	}
	args := map[string]Enum{}
	for _, a := range call.Args {
		if a.Name == "" {
			return 0, fatalErr(CodeDecorator, "pass it by keyword, e.g. type=pl.FunctionType.InCore",
				"@pl.function takes keyword arguments only").at(a.Value.Span())
		}
		want := map[string]string{"type": "pl.FunctionType", "level": "pl.Level", "role": "pl.Role"}[a.Name]
		if want == "" {
			return 0, fatalErr(CodeDecorator, "@pl.function accepts type=, level= and role=",
				"@pl.function got an unknown argument '%s'", a.Name).at(a.Value.Span())
		}
		v, err := m.eval(fr, a.Value)
		if err != nil {
			return 0, err
		}
		if v == Value(None) {
			continue
		}
		e, ok := v.(Enum)
		if !ok || e.Type != want {
			return 0, fatalErr(CodeDecorator, "write "+a.Name+"="+want+".<member>",
				"@pl.function %s= wants a %s member, got %s", a.Name, want, Repr(v)).at(a.Value.Span())
		}
		args[a.Name] = e
	}
	typ, hasType := args["type"]
	level, hasLevel := args["level"]
	role, hasRole := args["role"]
	switch {
	case hasType && (hasLevel || hasRole):
		return 0, fatalErr(CodeDecorator,
			"give type= for kernels and orchestration functions, or level=pl.Level.HOST, role=pl.Role.Orchestrator for the host, not both",
			"@pl.function mixes type=%s with level=/role=", typ.Member).at(d.Pos)
	case hasType:
		switch typ.Member {
		case "InCore":
			return InCore, nil
		case "Orchestration":
			return Orchestration, nil
		}
		return 0, fatalErr(CodeDecorator, "the workbench runs InCore kernels and Orchestration functions",
			"@pl.function(type=pl.FunctionType.%s) is not supported: want InCore or Orchestration", typ.Member).at(d.Pos)
	case hasLevel && hasRole:
		if level.Member == "HOST" && role.Member == "Orchestrator" {
			return Host, nil
		}
		if level.Member == "HOST" && role.Member == "SubWorker" {
			return subWorker, nil
		}
		return 0, fatalErr(CodeDecorator, "the host orchestrator is @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)",
			"@pl.function(level=pl.Level.%s, role=pl.Role.%s) is not supported: want level HOST with role Orchestrator",
			level.Member, role.Member).at(d.Pos)
	case hasLevel || hasRole:
		return 0, fatalErr(CodeDecorator, "write both: @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)",
			"@pl.function needs level= and role= together").at(d.Pos)
	}
	return 0, fatalErr(CodeDecorator, "use one of "+decoratorForms,
		"@pl.function needs type= or level= and role= to say where the function runs").at(d.Pos)
}

// programDecorator reports whether a class is a @pl.program. A DSL
// function decorator on a class is an error; other decorators (dataclass,
// ...) leave the class a plain *Class.
func (m *machine) programDecorator(fr *frame, s *syntax.ClassDef) (bool, *Error) {
	isProgram := false
	for _, d := range s.Decorators {
		path, call, err := m.decoratorPath(fr, d)
		if err != nil {
			return false, err
		}
		switch {
		case path == "pl.program":
			if call != nil && len(call.Args) > 0 {
				return false, fatalErr(CodeDecorator, "write it without arguments: @pl.program",
					"@pl.program takes no arguments here, got %d", len(call.Args)).at(call.Pos)
			}
			isProgram = true
		case isDSLDecoratorPath(path):
			return false, fatalErr(CodeDecorator, "put @pl.program on the class and the DSL decorators on its methods",
				"@%s decorates a function, not a class (%s)", path, s.Name).at(d.Pos)
		case call != nil:
			if _, err := m.eval(fr, d.X); err != nil {
				return false, err
			}
		}
	}
	return isProgram, nil
}
