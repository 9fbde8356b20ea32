package meta

import (
	"strings"

	"pldworkbench/engine/syntax"
)

// ctl is how a statement finished: normally, or by return, break or
// continue unwinding to the enclosing function or loop.
type ctl int

const (
	ctlNone ctl = iota
	ctlReturn
	ctlBreak
	ctlContinue
)

// execBlock runs stmts in order; a return, break or continue stops the block
// and is handed to the caller.
func (m *machine) execBlock(fr *frame, stmts []syntax.Stmt) (ctl, Value, *Error) {
	for _, s := range stmts {
		c, v, err := m.exec(fr, s)
		if err != nil || c != ctlNone {
			return c, v, err
		}
	}
	return ctlNone, nil, nil
}

// exec runs one statement.
func (m *machine) exec(fr *frame, s syntax.Stmt) (ctl, Value, *Error) {
	if err := m.step(s.Span()); err != nil {
		return ctlNone, nil, err
	}
	switch s := s.(type) {
	case *syntax.ExprStmt:
		_, err := m.eval(fr, s.X)
		return ctlNone, nil, err
	case *syntax.AssignStmt:
		return ctlNone, nil, m.execAssign(fr, s)
	case *syntax.AugAssignStmt:
		return ctlNone, nil, m.execAugAssign(fr, s)
	case *syntax.ImportStmt:
		for _, n := range s.Names {
			path := strings.Join(n.Path, ".")
			if n.As != "" {
				m.bind(fr, n.As, &Builtin{Path: canonicalPath(path)}, n.Pos)
			} else {
				m.bind(fr, n.Path[0], &Builtin{Path: canonicalPath(n.Path[0])}, n.Pos)
			}
		}
		return ctlNone, nil, nil
	case *syntax.FromImportStmt:
		mod := strings.Repeat(".", s.Level) + strings.Join(s.Module, ".")
		for _, n := range s.Names {
			name := n.As
			if name == "" {
				name = n.Path[0]
			}
			full := n.Path[0]
			if mod != "" {
				full = mod + "." + full
				if strings.HasSuffix(mod, ".") {
					full = mod + n.Path[0]
				}
			}
			m.bind(fr, name, &Builtin{Path: canonicalPath(full)}, n.Pos)
		}
		return ctlNone, nil, nil
	case *syntax.FuncDef:
		return ctlNone, nil, m.execDef(fr, s)
	case *syntax.ClassDef:
		return ctlNone, nil, m.execClass(fr, s)
	case *syntax.IfStmt:
		cond, err := m.eval(fr, s.Cond)
		if err != nil {
			return ctlNone, nil, err
		}
		if Truth(cond) {
			return m.execBlock(fr, s.Body)
		}
		return m.execBlock(fr, s.Else)
	case *syntax.ForStmt:
		return m.execFor(fr, s)
	case *syntax.WhileStmt:
		return m.execWhile(fr, s)
	case *syntax.BranchStmt:
		switch s.Tok {
		case "break":
			return ctlBreak, nil, nil
		case "continue":
			return ctlContinue, nil, nil
		}
		return ctlNone, nil, nil
	case *syntax.ReturnStmt:
		if !fr.inFunc {
			return ctlNone, nil, fatalErr(CodeControl, "return only works inside a function body", "'return' outside a function").at(s.Pos)
		}
		var v Value = None
		if s.Value != nil {
			var err *Error
			if v, err = m.eval(fr, s.Value); err != nil {
				return ctlNone, nil, err
			}
		}
		return ctlReturn, v, nil
	case *syntax.YieldStmt:
		// Generators are module glue (pytest fixtures, helpers): parsed so
		// the file reads, never run at compile time.
		return ctlNone, nil, fatalErr(CodeUnsupported, "a generator is test-harness code the workbench reads but does not run; call it from no module-level code or factory",
			"generator functions are not evaluated at compile time").at(s.Pos)
	case *syntax.RaiseStmt:
		return ctlNone, nil, m.execRaise(fr, s)
	case *syntax.AssertStmt:
		return ctlNone, nil, m.execAssert(fr, s)
	case *syntax.GlobalStmt:
		return ctlNone, nil, nil // collected by declsOf before the body runs
	case *syntax.DelStmt:
		for _, t := range s.Targets {
			if err := m.deleteTarget(fr, t); err != nil {
				return ctlNone, nil, err
			}
		}
		return ctlNone, nil, nil
	case *syntax.WithStmt:
		for _, it := range s.Items {
			v, err := m.eval(fr, it.X)
			if err != nil {
				return ctlNone, nil, err
			}
			if it.Target != nil {
				if err := m.assign(fr, it.Target, v); err != nil {
					return ctlNone, nil, err
				}
			}
		}
		return m.execBlock(fr, s.Body)
	case *syntax.TryStmt:
		return m.execTry(fr, s)
	}
	return ctlNone, nil, fatalErr(CodeUnsupported, "", "this statement is not supported in compile-time code").at(s.Span())
}

// blameLoop moves a step-budget error to the innermost loop it escaped: the
// loop that never ends is what the learner needs to see, not the
// expression that happened to be running when the budget ran out.
// The span runs from the keyword to the end of the loop's header
// expression.
func blameLoop(err *Error, loop syntax.Stmt, header syntax.Expr) *Error {
	if err != nil && err.Code == CodeBudget && !err.inLoop {
		err.Span = loop.Span()
		err.Span.End = header.Span().End
		err.inLoop = true
	}
	return err
}

func (m *machine) execFor(fr *frame, s *syntax.ForStmt) (ctl, Value, *Error) {
	c, v, err := m.runFor(fr, s)
	return c, v, blameLoop(err, s, s.Iter)
}

func (m *machine) execWhile(fr *frame, s *syntax.WhileStmt) (ctl, Value, *Error) {
	c, v, err := m.runWhile(fr, s)
	return c, v, blameLoop(err, s, s.Cond)
}

func (m *machine) runFor(fr *frame, s *syntax.ForStmt) (ctl, Value, *Error) {
	seq, err := m.eval(fr, s.Iter)
	if err != nil {
		return ctlNone, nil, err
	}
	next, err := iterate(seq)
	if err != nil {
		return ctlNone, nil, err.at(s.Iter.Span())
	}
	for v, ok := next(); ok; v, ok = next() {
		if err := m.step(s.Pos); err != nil {
			return ctlNone, nil, err
		}
		if err := m.assign(fr, s.Target, v); err != nil {
			return ctlNone, nil, err
		}
		c, rv, err := m.execBlock(fr, s.Body)
		if err != nil || c == ctlReturn {
			return c, rv, err
		}
		if c == ctlBreak {
			return ctlNone, nil, nil
		}
	}
	return m.execBlock(fr, s.Else)
}

func (m *machine) runWhile(fr *frame, s *syntax.WhileStmt) (ctl, Value, *Error) {
	for {
		cond, err := m.eval(fr, s.Cond)
		if err != nil {
			return ctlNone, nil, err
		}
		if !Truth(cond) {
			return m.execBlock(fr, s.Else)
		}
		if err := m.step(s.Pos); err != nil {
			return ctlNone, nil, err
		}
		c, rv, err := m.execBlock(fr, s.Body)
		if err != nil || c == ctlReturn {
			return c, rv, err
		}
		if c == ctlBreak {
			return ctlNone, nil, nil
		}
	}
}

// execRaise evaluates the exception and reports it as the program's own.
func (m *machine) execRaise(fr *frame, s *syntax.RaiseStmt) *Error {
	if s.X == nil {
		if n := len(fr.handling); n > 0 {
			return raised(fr.handling[n-1], s)
		}
		return newErr("RuntimeError", "no active exception to re-raise").at(s.Pos)
	}
	v, err := m.eval(fr, s.X)
	if err != nil {
		return err
	}
	if s.Cause != nil {
		if _, err := m.eval(fr, s.Cause); err != nil {
			return err
		}
	}
	switch v := v.(type) {
	case *Exception:
		return raised(v, s)
	case *Builtin:
		if isExceptionClass(v.Path) {
			return raised(&Exception{Type: v.Path}, s)
		}
	case *Opaque:
		// An exception class from another library: keep its description.
		return raised(&Exception{Type: v.Desc}, s)
	}
	return typeErr("exceptions must derive from BaseException, got '%s'", v.TypeName()).at(s.X.Span())
}

func raised(exc *Exception, s *syntax.RaiseStmt) *Error {
	return &Error{
		Type: exc.Type, Msg: exc.Msg, Code: CodeRaised, Span: s.Pos, Raised: true, Exc: exc,
		Hint: "the program's own check rejected these values; read the condition just above this raise",
	}
}

func (m *machine) execAssert(fr *frame, s *syntax.AssertStmt) *Error {
	cond, err := m.eval(fr, s.Cond)
	if err != nil {
		return err
	}
	if Truth(cond) {
		return nil
	}
	exc := &Exception{Type: "AssertionError"}
	msg := "assertion failed: " + m.text(s.Cond.Span())
	if s.Msg != nil {
		v, err := m.eval(fr, s.Msg)
		if err != nil {
			return err
		}
		exc.Msg = v.String()
		msg = "assertion failed: " + exc.Msg
	}
	return &Error{
		Type: "AssertionError", Msg: msg, Code: CodeAssert, Span: s.Pos, Raised: true, Exc: exc,
		Hint: "the program's own assert rejected these values; the condition is false at compile time",
	}
}

// execTry runs try/except/else/finally. Only the program's Python
// exceptions are caught; the evaluator's limits (Fatal) pass through.
func (m *machine) execTry(fr *frame, s *syntax.TryStmt) (ctl, Value, *Error) {
	c, v, err := m.execBlock(fr, s.Body)
	if err != nil && !err.Fatal {
		exc := err.Exc
		if exc == nil {
			exc = &Exception{Type: err.Type, Msg: err.Msg}
		}
		for _, h := range s.Excepts {
			match, merr := m.exceptMatches(fr, h, exc)
			if merr != nil {
				err = merr
				break
			}
			if !match {
				continue
			}
			if h.Name != "" {
				fr.env.Set(h.Name, exc)
			}
			fr.handling = append(fr.handling, exc)
			c, v, err = m.execBlock(fr, h.Body)
			fr.handling = fr.handling[:len(fr.handling)-1]
			break
		}
	} else if err == nil && c == ctlNone {
		c, v, err = m.execBlock(fr, s.Else)
	}
	if len(s.Finally) > 0 {
		fc, fv, ferr := m.execBlock(fr, s.Finally)
		if ferr != nil || fc != ctlNone {
			return fc, fv, ferr
		}
	}
	return c, v, err
}

func (m *machine) exceptMatches(fr *frame, h *syntax.ExceptClause, exc *Exception) (bool, *Error) {
	if h.Type == nil {
		return true, nil
	}
	t, err := m.eval(fr, h.Type)
	if err != nil {
		return false, err
	}
	classes := []Value{t}
	if tup, ok := t.(Tuple); ok {
		classes = tup.Elts
	}
	for _, c := range classes {
		switch c := c.(type) {
		case *Builtin:
			if m.mod.isSubclass(exc.Type, c.Path) {
				return true, nil
			}
		case *Class:
			if m.mod.isSubclass(exc.Type, c.Name) {
				return true, nil
			}
		}
	}
	return false, nil
}

// execDef binds a def: a *DSLFunc when it carries a DSL decorator, else a
// *Func (run through any plain decorators).
func (m *machine) execDef(fr *frame, s *syntax.FuncDef) *Error {
	kind, dec, isDSL, err := m.dslKind(fr, s)
	if err != nil {
		return err
	}
	if isDSL {
		return m.bind(fr, s.Name, &DSLFunc{Def: s, Kind: kind, Env: fr.closure, Decorator: dec}, s.NamePos)
	}
	defaults, err := m.evalDefaults(fr, s.Params)
	if err != nil {
		return err
	}
	if kind == subWorker {
		return m.bind(fr, s.Name, &Func{Def: s, Env: fr.closure, Defaults: defaults, SubWorker: true}, s.NamePos)
	}
	var v Value = &Func{Def: s, Env: fr.closure, Defaults: defaults}
	for i := len(s.Decorators) - 1; i >= 0; i-- {
		d, err := m.eval(fr, s.Decorators[i].X)
		if err != nil {
			return err
		}
		switch d.(type) {
		case *Func, *Method:
			if v, err = m.callValue(d, []Value{v}, nil, s.Decorators[i].Pos, ""); err != nil {
				return err.at(s.Decorators[i].Pos)
			}
		}
		// Library decorators (functools.wraps, staticmethod, ...) leave
		// the function as it is: the evaluator has no model of them.
	}
	return m.bind(fr, s.Name, v, s.NamePos)
}

func (m *machine) evalDefaults(fr *frame, params []*syntax.Param) ([]Value, *Error) {
	defaults := make([]Value, len(params))
	for i, p := range params {
		if p.Default == nil {
			continue
		}
		v, err := m.eval(fr, p.Default)
		if err != nil {
			return nil, err
		}
		defaults[i] = v
	}
	return defaults, nil
}

// execClass runs a class body in its own scope and binds a *Program for a
// @pl.program class, else a *Class.
func (m *machine) execClass(fr *frame, s *syntax.ClassDef) *Error {
	isProgram, err := m.programDecorator(fr, s)
	if err != nil {
		return err
	}
	for _, b := range s.Bases {
		base, err := m.eval(fr, b.Value)
		if err != nil {
			return err
		}
		// A class deriving from an exception is the program's own exception
		// type: calling it makes an exception, except clauses match it.
		switch base := base.(type) {
		case *Builtin:
			if isExceptionClass(base.Path) {
				m.mod.userExc[s.Name] = base.Path
			}
		case *Class:
			if _, ok := m.mod.userExc[base.Name]; ok {
				m.mod.userExc[s.Name] = base.Name
			}
		}
	}
	body := &frame{env: NewEnv(fr.env), closure: fr.closure}
	if _, _, err := m.execBlock(body, s.Body); err != nil {
		return err
	}
	attrs := map[string]Value{}
	if !isProgram {
		for _, name := range body.env.Order {
			attrs[name] = body.env.Vars[name]
		}
		return m.bind(fr, s.Name, &Class{Name: s.Name, Def: s, Attrs: attrs}, s.NamePos)
	}
	p := &Program{Name: s.Name, Def: s, Env: fr.closure, Attrs: attrs}
	for _, name := range body.env.Order {
		switch v := body.env.Vars[name].(type) {
		case *DSLFunc:
			v.Program = p
			p.Methods = append(p.Methods, v)
		default:
			attrs[name] = v
		}
	}
	return m.bind(fr, s.Name, p, s.NamePos)
}
