package check

import (
	"sort"
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/syntax"
)

// While loops, break and continue, as PyPTO's parser takes them
// (parse_while_loop, parse_break, parse_continue in
// python/pypto/language/parser/ast_parser.py at MirrorCommit): a natural
// `while cond:` at every level, its condition a BOOL scalar (a comparison,
// a BOOL name, True or False; `while 1:` is refused), and break and
// continue in the innermost pl.range or while loop, never in a pl.unroll
// or pl.parallel one, whose iterations all run. The else suite of a loop
// is dropped, as PyPTO's parser drops it, with a warning (loopElse).
//
// A while loop's condition is an expression the checker turns into
// statements; they must run before every iteration, so unless the
// condition is a plain name or a constant the loop becomes
//
//	while True:
//	  %0: BOOL = lt(i, n)
//	  %1: BOOL = not(%0)
//	  if %1:
//	    break
//	  <body>
//
// which is what PyPTO's own CtrlFlowTransform does with a break in a
// kernel, and it lets the emulator schedule the condition's reads (a
// pl.read of a signal cell) like any other statement.

// whileStmt checks `while cond: body`.
func (fc *funcChecker) whileStmt(s *syntax.WhileStmt) { fc.whileLoop(s, false) }

// whileLoop checks a while loop; carried is set for the pl.while_ form,
// whose names the @pl.jit renamer does not touch.
func (fc *funcChecker) whileLoop(s *syntax.WhileStmt, carried bool) {
	if s.Else != nil {
		fc.loopElse("while", s.Pos, s.Else)
	}
	pre := fc.loopScope(s.Body)
	st := &ir.While{Body: &ir.Block{}, Site: irSite(joinSpan(s.Pos, s.Cond.Span()))}
	li := &loopInfo{kind: "while", span: s.Cond.Span()}
	ok := true
	fc.loops = append(fc.loops, li)
	body := fc.nested(pre.clone(), st.Body, "loop", func() {
		ok = fc.whileCond(st, s.Cond)
		fc.suite(s.Body)
	})
	fc.loops = fc.loops[:len(fc.loops)-1]
	fc.scope = fc.loopJoin(pre, body, "", s.Pos)
	if fc.jitForm() && !carried {
		fc.jitWhileRenames(s, pre)
	}
	if ok {
		fc.emit(st)
	}
}

// whileCond checks the condition into the loop's body, which must be
// fc.block, and sets st.Cond. It reports whether the condition is valid.
func (fc *funcChecker) whileCond(st *ir.While, e syntax.Expr) bool {
	cond := fc.expr(e)
	if cond.invalid() {
		return false
	}
	x, dt, ok := cond.scalar()
	if !ok || dt != ir.BOOL {
		fc.errorf(cond.sp, ErrCondition, "compare explicitly: while i < n:, or loop on a BOOL name or True",
			"while condition is %s, want a comparison or a BOOL", cond.describe())
		return false
	}
	v, isVar := x.(*ir.Var)
	if len(st.Body.Stmts) == 0 && (!isVar || !v.Temp) {
		st.Cond = x // a name the body rebinds, or a constant: read before each iteration
		return true
	}
	at := irSite(cond.sp)
	st.Cond = ir.BoolConst(true)
	neg := fc.temp(&ir.Scalar{DType: ir.BOOL})
	fc.emit(&ir.Unary{Op: ir.Not, X: x, Result: neg, Site: at})
	fc.emit(&ir.If{Cond: neg, Then: &ir.Block{Stmts: []ir.Stmt{&ir.Break{Site: at}}}, Site: at})
	return true
}

// loopControl checks break and continue: they leave (or go on with) the
// innermost loop, which must be one that can stop early.
func (fc *funcChecker) loopControl(s *syntax.BranchStmt) {
	if len(fc.loops) == 0 {
		fc.errorf(s.Pos, ErrLoopControl, "", "%s outside a loop", s.Tok)
		return
	}
	li := fc.loops[len(fc.loops)-1]
	switch li.kind {
	case "unroll", "parallel":
		fc.errorf(s.Pos, ErrLoopControl, "", "%s is not supported in a pl.%s loop: its iterations all run; %s leaves only a pl.range or while loop", s.Tok, li.kind, s.Tok)
		return
	}
	at := irSite(s.Pos)
	if s.Tok == "continue" {
		fc.emit(&ir.Continue{Site: at})
		return
	}
	if fc.level == ir.InCore && li.carried {
		// As below: PyPTO accepts it and cannot compile it.
		fc.errorf(s.Pos, ErrBreakCarried, "guard the rest of the loop's body with an if instead of breaking",
			"PyPTO cannot yet compile a break in a kernel loop that carries values (init_values): ConvertToSSA's if yields fewer values than the loop carries, and SSA verification stops (\"IfStmt then-branch YieldStmt value count ... != return_vars count ...\")")
	} else if fc.level == ir.InCore && len(fc.loops) == 1 {
		// PyPTO accepts the statement and then cannot compile it: a
		// program PyPTO cannot compile is not one to run here.
		fc.errorf(s.Pos, ErrBreakOuter, "guard the rest of the loop's body with an if instead of breaking, or break from a nested loop",
			"PyPTO cannot yet compile a break out of a kernel's outermost loop: its InCore passes stop with \"Operator 'eq' does not accept bool dtype\" (a break from a nested loop compiles)")
	}
	fc.emit(&ir.Break{Site: at})
}

// jitWhileRenames applies the @pl.jit specializer's renamer to a while
// loop. It has no case for a while statement, so it walks the body as
// straight-line code at the loop's own scope depth: a plain rebinding
// there of a name first bound at that depth (a parameter, or a name
// assigned beside the loop) becomes a new name (k = k + 1 becomes
// k_v1 = k + 1). The condition and the body's earlier reads keep reading
// the value from before the loop, so PyPTO never sees the loop change it,
// and after the loop the name means the renamed one, which is defined only
// inside it: PyPTO's SSA verifier refuses that use ("Variable 'k' used
// outside its defining scope"). The loop is a warning; a use after it is
// the error, reported where it stands (lookupLocal).
func (fc *funcChecker) jitWhileRenames(s *syntax.WhileStmt, pre *scope) {
	var renamed []string
	seen := map[string]bool{}
	for _, st := range s.Body {
		a, ok := st.(*syntax.AssignStmt)
		if !ok || len(a.Targets) != 1 || a.Value == nil {
			continue
		}
		id, ok := a.Targets[0].(*syntax.Ident)
		if !ok || seen[id.Name] {
			continue
		}
		b, bound := pre.vars[id.Name]
		if !bound || b.v == nil || b.loopVar || b.maybe || b.suite != fc.suiteID {
			continue
		}
		seen[id.Name] = true
		renamed = append(renamed, id.Name)
	}
	if len(renamed) == 0 {
		return
	}
	sort.Strings(renamed)
	at := joinSpan(s.Pos, s.Cond.Span())
	fc.errorf(at, WarnJitWhile, "",
		"PyPTO's @pl.jit renamer does not treat a while body as a loop: it renames the rebinding of %s, so in PyPTO the condition and each new iteration read the value from before the loop",
		strings.Join(renamed, ", "))
	for _, n := range renamed {
		b, ok := fc.scope.vars[n]
		if !ok || b.v == nil {
			continue
		}
		b.rebound = &rebinding{jitWhile: true, at: at}
		fc.scope.vars[n] = b
	}
}

// whileCarried checks PyPTO's SSA while form,
//
//	for (i, acc) in pl.while_(init_values=(0, a0)):
//	    pl.cond(i < n)
//	    ...
//	    i_out, acc_out = pl.yield_(i2, acc2)
//
// as the carried pl.range form is checked (carried.go): the names start as
// the init values, pl.cond is the loop's condition, read before every
// iteration, and the yield hands the next iteration its values. It is the
// form PyPTO's @pl.jit renamer leaves alone, so jitWhileRenames does not
// apply. It reports whether s was this form. The rules are
// _parse_while_as_for's in PyPTO's parser: no positional arguments,
// init_values given, a tuple of names as the target, pl.cond first and
// only there.
func (fc *funcChecker) whileCarried(s *syntax.ForStmt) bool {
	call, ok := s.Iter.(*syntax.CallExpr)
	if !ok {
		return false
	}
	if p, _ := fc.libPath(call.Fn); p != "pl.while_" {
		return false
	}
	hint := "write for (i, x) in pl.while_(init_values=(i0, x0)): with pl.cond(condition) as the body's first statement"
	var inits []syntax.Expr
	for _, a := range call.Args {
		if a.Name != "init_values" {
			fc.errorf(a.Value.Span(), ErrForIter, hint, "pl.while_() takes init_values= only, got %s", fc.c.text(a.Value))
			return true
		}
		switch v := unparenExpr(a.Value).(type) {
		case *syntax.TupleLit:
			inits = v.Elts
		case *syntax.ListLit:
			inits = v.Elts
		default:
			fc.errorf(a.Value.Span(), ErrForIter, hint, "init_values must be a list or tuple")
			return true
		}
	}
	if len(inits) == 0 {
		fc.errorf(call.Pos, ErrForIter, hint, "pl.while_() requires init_values")
		return true
	}
	var carried []*syntax.Ident
	tl, ok := unparenExpr(s.Target).(*syntax.TupleLit)
	if !ok {
		fc.errorf(s.Target.Span(), ErrForIter, hint, "the target of a pl.while_() loop must be a tuple of names")
		return true
	}
	for _, e := range tl.Elts {
		id, ok := e.(*syntax.Ident)
		if !ok {
			fc.errorf(e.Span(), ErrForIter, hint, "a loop-carried value must be one name")
			return true
		}
		carried = append(carried, id)
	}
	if len(inits) != len(carried) {
		fc.errorf(s.Target.Span(), ErrForIter, hint, "pl.while_ has %d init_values for %d loop-carried names", len(inits), len(carried))
		return true
	}
	var cond syntax.Expr
	if len(s.Body) > 0 {
		if es, ok := s.Body[0].(*syntax.ExprStmt); ok {
			if c, ok := es.X.(*syntax.CallExpr); ok && len(c.Args) == 1 && c.Args[0].Name == "" {
				if p, _ := fc.libPath(c.Fn); p == "pl.cond" {
					cond = c.Args[0].Value
				}
			}
		}
	}
	if cond == nil {
		at := s.Pos
		if len(s.Body) > 0 {
			at = s.Body[0].Span()
		}
		fc.errorf(at, ErrForIter, "add pl.cond(condition) as the first statement", "the first statement of a pl.while_() body must be pl.cond(condition)")
		return true
	}
	body, results, ok := fc.yieldBody(s.Body[1:], carried)
	if !ok {
		return true
	}
	for _, st := range body {
		if es, ok := st.(*syntax.ExprStmt); ok {
			if c, ok := es.X.(*syntax.CallExpr); ok {
				if p, _ := fc.libPath(c.Fn); p == "pl.cond" {
					fc.errorf(st.Span(), ErrForIter, "", "pl.cond() can only be the first statement in a pl.while_() loop body")
					return true
				}
			}
		}
	}
	for i, id := range carried {
		fc.stmt(&syntax.AssignStmt{Targets: []syntax.Expr{id}, Value: inits[i], StmtNode: syntax.StmtNode{Pos: joinSpan(id.Pos, inits[i].Span())}})
	}
	fc.whileLoop(&syntax.WhileStmt{Cond: cond, Body: body, Else: s.Else, StmtNode: s.StmtNode}, true)
	for i, r := range results {
		if r != nil {
			fc.stmt(&syntax.AssignStmt{Targets: []syntax.Expr{r}, Value: carried[i], StmtNode: syntax.StmtNode{Pos: r.Span()}})
		}
	}
	return true
}

// loopElse warns of a loop's else suite: PyPTO's parser reads a for or
// while statement's body only, so the suite is neither checked nor run
// there, and the checker drops it the same way (running it as Python
// would be a silent difference from what PyPTO compiles).
func (fc *funcChecker) loopElse(kw string, at diag.Span, els []syntax.Stmt) {
	fc.errorf(joinSpan(at, els[len(els)-1].Span()), WarnLoopElse, "",
		"PyPTO drops the else suite of a %s loop: it is never run, here or there", kw)
}
