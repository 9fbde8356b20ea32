package check

import (
	"sort"
	"strings"

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
// is refused as the for loop's is: PyPTO's parser drops it without a
// word, so it would never run there.
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
func (fc *funcChecker) whileStmt(s *syntax.WhileStmt) {
	if s.Else != nil {
		fc.errorf(s.Pos, ErrUnsupportedStmt, "PyPTO's parser drops a loop's else suite, so it would never run there: put its statements after the loop",
			"while ... else is not allowed in a DSL function")
	}
	assigned := map[string]bool{}
	assignedNames(s.Body, assigned)
	pre := fc.scope.clone()
	for n := range assigned {
		if b, ok := pre.vars[n]; ok {
			b.known = false
			pre.vars[n] = b
		}
	}
	st := &ir.While{Body: &ir.Block{}, Span: irSpan(joinSpan(s.Pos, s.Cond.Span()))}
	li := &loopInfo{kind: "while", span: s.Cond.Span()}
	ok := true
	fc.loops = append(fc.loops, li)
	body := fc.nested(pre.clone(), st.Body, "loop", func() {
		ok = fc.whileCond(st, s.Cond)
		fc.suite(s.Body)
	})
	fc.loops = fc.loops[:len(fc.loops)-1]
	fc.scope = fc.loopJoin(pre, body, "", s.Pos)
	if fc.jitForm() {
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
	sp := irSpan(cond.sp)
	st.Cond = ir.BoolConst(true)
	neg := fc.temp(&ir.Scalar{DType: ir.BOOL})
	fc.emit(&ir.Unary{Op: ir.Not, X: x, Result: neg, Span: sp})
	fc.emit(&ir.If{Cond: neg, Then: &ir.Block{Stmts: []ir.Stmt{&ir.Break{Span: sp}}}, Span: sp})
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
	sp := irSpan(s.Pos)
	if s.Tok == "continue" {
		fc.emit(&ir.Continue{Span: sp})
		return
	}
	if fc.level == ir.InCore && len(fc.loops) == 1 {
		fc.errorf(s.Pos, WarnLoopDefect, "to take the kernel to PyPTO, guard the rest of the loop's body with an if instead of breaking, or break from a nested loop",
			"PyPTO cannot yet compile a break out of a kernel's outermost loop: its InCore passes stop with \"Operator 'eq' does not accept bool dtype\" (a break from a nested loop compiles)")
	}
	fc.emit(&ir.Break{Span: sp})
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
