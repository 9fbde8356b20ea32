package check

import (
	"fmt"
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// body checks a function's top-level statements.
func (fc *funcChecker) body(stmts []syntax.Stmt) {
	fc.suite(liftReturns(stmts))
	if fc.drainAtReturn && !fc.returned { // an orchestration that ends without return (tasks.go)
		fc.emit(&ir.Op{Name: ir.TaskDrainOp, Site: irSite(fc.dsl.Def.NamePos)})
	}
	fi := fc.info
	if !fc.retSeen && fi.annotated && fi.fn.Result != nil {
		if _, bad := fi.fn.Result.(*ir.Invalid); !bad {
			fc.errorf(fc.dsl.Def.NamePos, ErrReturnType, "",
				"%s declares result %s but never returns a value", describeFunc(fc.dsl), describeType(fi.fn.Result))
		}
	}
}

// suite checks a statement list into the current block.
func (fc *funcChecker) suite(stmts []syntax.Stmt) {
	for _, s := range stmts {
		if fc.returned {
			fc.errorf(s.Span(), ErrReturnPlace, "", "statement after return is never reached")
			return
		}
		fc.stmt(s)
	}
}

func (fc *funcChecker) stmt(s syntax.Stmt) {
	if fc.c.stopped(s.Span()) {
		return
	}
	switch s := s.(type) {
	case *syntax.ExprStmt:
		fc.exprStmt(s)
	case *syntax.AssignStmt:
		fc.assignStmt(s)
	case *syntax.AugAssignStmt:
		fc.augAssign(s)
	case *syntax.IfStmt:
		fc.ifStmt(s)
	case *syntax.ForStmt:
		fc.forStmt(s)
	case *syntax.ReturnStmt:
		fc.returnStmt(s)
	case *syntax.WithStmt:
		fc.withStmt(s)
	case *syntax.WhileStmt:
		fc.whileStmt(s)
	case *syntax.BranchStmt:
		if s.Tok != "pass" {
			fc.loopControl(s)
		}
	default:
		fc.errorf(s.Span(), ErrUnsupportedStmt, "", "%s is not allowed in a DSL function", stmtKind(s))
	}
}

// stmtKind names a statement for messages: those outside the DSL, and the
// ones a sub-worker body may not hold.
func stmtKind(s syntax.Stmt) string {
	switch s.(type) {
	case *syntax.WhileStmt:
		return "while"
	case *syntax.WithStmt:
		return "with"
	case *syntax.TryStmt:
		return "try"
	case *syntax.RaiseStmt:
		return "raise"
	case *syntax.AssertStmt:
		return "assert"
	case *syntax.ImportStmt, *syntax.FromImportStmt:
		return "import"
	case *syntax.FuncDef:
		return "a nested def"
	case *syntax.ClassDef:
		return "a class"
	case *syntax.GlobalStmt:
		return "global/nonlocal"
	case *syntax.DelStmt:
		return "del"
	case *syntax.YieldStmt:
		return "yield"
	case *syntax.IfStmt: // the three below only a sub-worker body refuses
		return "an if"
	case *syntax.ForStmt:
		return "a loop"
	case *syntax.ExprStmt:
		return "a bare expression"
	}
	return "this statement"
}

func (fc *funcChecker) exprStmt(s *syntax.ExprStmt) {
	switch x := s.X.(type) {
	case *syntax.StringLit:
		return // docstring
	case *syntax.ConstLit:
		if x.Kind == syntax.ConstEllipsis {
			return
		}
	case *syntax.CallExpr:
		o := fc.call(x)
		if o.slot != nil {
			*o.slot = nil // result discarded
		}
		return
	}
	fc.errorf(s.Pos, ErrUnsupportedStmt, "", "a bare expression does nothing here")
}

func (fc *funcChecker) assignStmt(s *syntax.AssignStmt) {
	if fc.sliceAssign(s) || fc.arrayAssign(s) {
		return
	}
	if len(s.Targets) != 1 {
		fc.errorf(s.Pos, ErrAssignTarget, "", "chained assignment a = b = ... is not allowed in a DSL function")
		return
	}
	if lit, ok := s.Targets[0].(*syntax.TupleLit); ok && s.Value != nil {
		fc.unpackAssign(s, lit)
		return
	}
	id, ok := s.Targets[0].(*syntax.Ident)
	if !ok {
		fc.badTarget(s.Targets[0])
		return
	}
	if s.Value == nil {
		fc.errorf(s.Pos, ErrUnsupportedStmt, "give the name a value: x: T = ...", "declaration without a value")
		return
	}
	var declared ir.Type
	if s.Annotation != nil {
		t, _, ok := fc.c.annotation(s.Annotation, fc.dsl.Env, false)
		if ok {
			declared = t
		}
	}
	if call, ok := s.Value.(*syntax.CallExpr); ok {
		fc.allocTarget = &allocTarget{name: id.Name, span: id.Pos, call: call}
	}
	o := fc.expr(s.Value)
	fc.allocTarget = nil
	fc.assign(id.Name, id.Pos, o, declared)
}

// badTarget reports an assignment target other than a plain name.
func (fc *funcChecker) badTarget(t syntax.Expr) {
	switch t.(type) {
	case *syntax.TupleLit, *syntax.ListLit:
		fc.errorf(t.Span(), ErrAssignTarget, "assign each name on its own line", "tuple unpacking is not allowed in a DSL function")
	case *syntax.IndexExpr:
		fc.errorf(t.Span(), ErrAssignTarget, "write elements with pl.write(t, [i, j], v) or tiles with pl.store",
			"cannot assign to an element")
	default:
		fc.errorf(t.Span(), ErrAssignTarget, "", "cannot assign to %s", fc.c.text(t))
	}
}

// assign binds name to the value of o.
func (fc *funcChecker) assign(name string, sp diag.Span, o *operand, declared ir.Type) {
	switch o.mode {
	case modeInvalid:
		_, nb := fc.bindName(name, &ir.Invalid{}, sp)
		fc.scope.vars[name] = nb
		return
	case modeNoValue:
		fc.errorf(o.sp, ErrNoValue, "", "%s returns no value to assign to %s", fc.c.text(calleeExpr(o.expr)), name)
		_, nb := fc.bindName(name, &ir.Invalid{}, sp)
		fc.scope.vars[name] = nb
		return
	case modeList, modeSelf:
		fc.errorf(o.sp, ErrNotRuntime, "pass lists straight to the operation that takes them",
			"cannot assign %s to %s: lists are only offsets and shapes of an operation", o.describe(), name)
		_, nb := fc.bindName(name, &ir.Invalid{}, sp)
		fc.scope.vars[name] = nb
		return
	case modeStatic:
		x, dt, ok := o.scalar()
		if !ok {
			fc.errorf(o.sp, ErrNotRuntime, "use the compile-time name directly where it is needed",
				"cannot assign %s to DSL variable %s: only numbers, tensors, tiles and scalars are run-time values",
				o.describe(), name)
			_, nb := fc.bindName(name, &ir.Invalid{}, sp)
			fc.scope.vars[name] = nb
			return
		}
		var t ir.Type = &ir.Scalar{DType: dt}
		if ds, ok := declared.(*ir.Scalar); ok && ir.Compatible(ds, t) {
			t = ds
			x = convertConst(x.(*ir.Const), ds.DType)
		} else if declared != nil {
			fc.errorf(o.sp, ErrCallArg, "", "%s is declared %s but assigned %s", name, describeType(declared), o.describe())
		}
		said := fc.reassigned(name, t, sp)
		v, nb := fc.bindName(name, t, sp)
		nb.changed = nb.changed || said
		fc.emit(&ir.Assign{Dst: v, Src: x, Site: irSite(joinSpan(sp, o.sp))})
		nb.known, nb.kv = o.known, o.kv
		fc.scope.vars[name] = nb
		return
	}
	t := o.t
	if declared != nil && !ir.Identical(declared, t) {
		if ir.Compatible(declared, t) {
			t = declared
		} else {
			fc.errorf(o.sp, ErrCallArg, "", "%s is declared %s but assigned %s", name, describeType(declared), describeType(o.t))
		}
	}
	said := fc.reassigned(name, t, sp)
	v, nb := fc.bindName(name, t, sp)
	nb.changed = nb.changed || said
	if o.slot != nil && *o.slot != nil && (*o.slot).Temp && ir.Identical(v.Type, o.t) {
		*o.slot = v
	} else {
		fc.emit(&ir.Assign{Dst: v, Src: o.x, Site: irSite(joinSpan(sp, o.sp))})
	}
	nb.known, nb.kv, nb.loop, nb.buf = o.known, o.kv, o.loop, o.buf
	fc.scope.vars[name] = nb
}

// calleeExpr returns the function part of a call expression.
func calleeExpr(e syntax.Expr) syntax.Expr {
	if c, ok := e.(*syntax.CallExpr); ok {
		return c.Fn
	}
	return e
}

// convertConst retypes a numeric constant to d of the same category.
func convertConst(c *ir.Const, d ir.DType) *ir.Const {
	switch {
	case d.IsFloat() && !c.DType.IsFloat():
		return ir.FloatConst(float64(c.Int), d)
	case d.IsInt() && c.DType.IsFloat():
		return ir.IntConst(int64(c.Float), d)
	}
	n := *c
	n.DType = d
	return &n
}

// augAssign reports x op= y, which PyPTO's parser does not take
// ("Unsupported statement type: AugAssign", in both forms), then checks it
// as x = x op y so the rest of the body is checked as the learner meant it.
func (fc *funcChecker) augAssign(s *syntax.AugAssignStmt) {
	id, ok := s.Target.(*syntax.Ident)
	if !ok {
		fc.badTarget(s.Target)
		return
	}
	fc.errorf(s.OpPos, ErrUnsupportedStmt, fmt.Sprintf("write %[1]s = %[1]s %[2]s %[3]s", id.Name, s.Op, fc.c.text(s.Value)),
		"%s %s= ... is not a PyPTO statement: its parser takes no augmented assignment", id.Name, s.Op)
	x := fc.ident(id)
	y := fc.expr(s.Value)
	o := fc.arith(s.Op, x, y, &syntax.BinaryExpr{Op: s.Op, OpPos: s.OpPos, X: s.Target, Y: s.Value, ExprNode: syntax.ExprNode{Pos: s.Pos}}, s.OpPos)
	fc.assign(id.Name, id.Pos, o, nil)
}

func (fc *funcChecker) ifStmt(s *syntax.IfStmt) {
	cond := fc.expr(s.Cond)
	if cond.mode == modeStatic {
		// A compile-time condition (if use_builtin:) selects one branch;
		// the other is neither checked nor emitted.
		if meta.Truth(cond.cv) {
			fc.suite(s.Body)
		} else {
			fc.suite(s.Else)
		}
		return
	}
	var c ir.Operand
	switch cond.mode {
	case modeValue:
		if st, ok := cond.t.(*ir.Scalar); ok && st.DType == ir.BOOL {
			c = cond.x
		} else {
			fc.errorf(cond.sp, ErrCondition, "", "if condition is %s, want a comparison", cond.describe())
		}
	case modeInvalid:
	default:
		fc.errorf(cond.sp, ErrCondition, "", "if condition is %s, want a comparison", cond.describe())
	}
	st := &ir.If{Cond: c, Then: &ir.Block{}, Site: irSite(s.Cond.Span())}
	pre := fc.scope
	thenScope := fc.nested(pre.clone(), st.Then, "branch", func() { fc.suite(s.Body) })
	elseScope := pre.clone()
	if s.Else != nil {
		st.Else = &ir.Block{}
		elseScope = fc.nested(elseScope, st.Else, "branch", func() { fc.suite(s.Else) })
	}
	fc.scope = fc.join(thenScope, elseScope, s.Cond.Span())
	if c != nil {
		fc.emit(st)
	}
}

// nested runs check with sc as the scope and blk as the block, one level
// deeper, and returns the scope it ends with.
func (fc *funcChecker) nested(sc *scope, blk *ir.Block, kind string, check func()) *scope {
	saveScope, saveBlock := fc.scope, fc.block
	fc.scope, fc.block = sc, blk
	fc.depth++
	fc.suites = append(fc.suites, kind)
	saveSuite := fc.suiteID
	fc.nSuites++
	fc.suiteID = fc.nSuites
	check()
	fc.suiteID = saveSuite
	fc.suites = fc.suites[:len(fc.suites)-1]
	fc.depth--
	out := fc.scope
	fc.scope, fc.block = saveScope, saveBlock
	return out
}

func (fc *funcChecker) forStmt(s *syntax.ForStmt) {
	if fc.whileCarried(s) || fc.carriedLoop(s) {
		return
	}
	carried := fc.carryNext
	fc.carryNext = false
	id, ok := s.Target.(*syntax.Ident)
	if !ok {
		fc.errorf(s.Target.Span(), ErrForIter, "", "the loop variable must be one name")
		return
	}
	if s.Else != nil {
		fc.loopElse("for", s.Pos, s.Else)
	}
	li, bounds, ok := fc.rangeBounds(s.Iter)
	if !ok {
		// Check the body anyway, with the loop variable unknown, so its own
		// errors are reported.
		bounds = nil
	}
	v, nb := fc.bindName(id.Name, &ir.Scalar{DType: ir.INDEX}, id.Pos)
	li.v = v
	li.broken = !ok
	li.carried = carried
	nb.loop = li
	nb.loopVar = true
	pre := fc.loopScope(s.Body, id.Name)
	body := pre.clone()
	body.vars[id.Name] = nb
	st := &ir.For{Var: v, Body: &ir.Block{}, Site: irSite(joinSpan(s.Pos, s.Iter.Span()))}
	if bounds != nil {
		st.Start, st.Stop, st.Step = bounds[0], bounds[1], bounds[2]
	}
	fc.loops = append(fc.loops, li)
	body = fc.nested(body, st.Body, "loop", func() { fc.suite(s.Body) })
	fc.loops = fc.loops[:len(fc.loops)-1]
	fc.scope = fc.loopJoin(pre, body, id.Name, id.Pos)
	if bounds != nil {
		fc.emit(st)
	}
}

// loopJoin is the scope after a loop: names first bound in the body may be
// unbound (the loop may not run); names rebound in the body keep their
// variable; knowledge of their values is gone. A name the loop bound to a
// value of another type without an error in the body (the loop variable
// reusing a parameter's name) is invalid after it, and its first use is the
// error: silently invalid, it would drop every statement that uses it.
func (fc *funcChecker) loopJoin(pre, body *scope, loopVar string, at diag.Span) *scope {
	out := pre.clone()
	for name, b := range body.vars {
		old, ok := pre.vars[name]
		switch {
		case !ok:
			b.maybe = true
			b.known = false
			out.vars[name] = b
		case old.v != b.v:
			nb := binding{v: &ir.Var{Name: name, Type: &ir.Invalid{}}, changed: true, depth: fc.depth}
			_, wasInvalid := old.v.Type.(*ir.Invalid)
			switch {
			case b.rebound != nil:
				// An inner loop's rebinding not used yet: it stays pending.
				nb.rebound = b.rebound
			case !b.changed && b.v != nil && !wasInvalid:
				// Nothing was reported inside the loop (the loop variable
				// itself rebinds the name, or the old binding was only
				// maybe bound): say so at the first use after the loop.
				nb.rebound = &rebinding{was: old.v.Type, now: b.v.Type, loopVar: name == loopVar, at: at}
			}
			out.vars[name] = nb
		default:
			old.maybe = old.maybe || b.maybe
			old.known = false
			out.vars[name] = old
		}
	}
	if b, ok := out.vars[loopVar]; ok {
		if _, existed := pre.vars[loopVar]; !existed {
			b.maybe = true
		}
		b.loop = nil
		out.vars[loopVar] = b
	}
	return out
}

// rangeBounds checks the iterable of a for loop, which must be
// pl.range(stop), pl.range(start, stop) or pl.range(start, stop, step).
func (fc *funcChecker) rangeBounds(iter syntax.Expr) (*loopInfo, []ir.Operand, bool) {
	li := &loopInfo{span: iter.Span()}
	call, ok := iter.(*syntax.CallExpr)
	path := ""
	if ok {
		path, _ = fc.libPath(call.Fn)
		if path == "" {
			if id, isID := call.Fn.(*syntax.Ident); isID {
				if _, local := fc.scope.vars[id.Name]; !local {
					if b, ok := fc.dsl.Env.Lookup(id.Name); ok {
						if bb, ok := b.(*meta.Builtin); ok {
							path = bb.Path
						}
					}
				}
			}
		}
	}
	if strings.HasPrefix(path, "pl.") {
		li.kind = path[len("pl."):]
	}
	switch {
	case path == "pl.range", path == "pl.unroll":
		// pl.unroll is a loop the compiler unrolls: the same iterations
		// in the same order.
	case path == "pl.parallel":
		fc.errorf(call.Fn.Span(), WarnSequential, "", "pl.parallel runs its iterations one after another on the emulator: iterations that race with each other are not reported")
	case path == "range":
		fc.errorf(call.Fn.Span(), ErrForIter, "write pl.range(...): the DSL's loop, which the compiler keeps as a loop",
			"Python's range() is not a DSL loop")
		return li, nil, false
	default:
		fc.errorf(iter.Span(), ErrForIter, "", "a DSL for loop iterates over pl.range(...), got %s", fc.c.text(iter))
		return li, nil, false
	}
	for _, a := range call.Args {
		if a.Name != "" || a.Star || a.DoubleStar {
			hint := ""
			if a.Name == "init_values" {
				hint = "loop-carried values are plain names here: assign them before the loop and rebind them inside"
			}
			fc.errorf(a.Value.Span(), ErrRange, hint, "pl.range argument %s is not supported", argLabel(a))
			return li, nil, false
		}
	}
	n := len(call.Args)
	if n < 1 || n > 3 {
		fc.errorf(call.Pos, ErrRange, "", "pl.range takes 1 to 3 arguments, got %d", n)
		return li, nil, false
	}
	ops := make([]*operand, n)
	vals := make([]ir.Operand, n)
	for i, a := range call.Args {
		ops[i] = fc.expr(a.Value)
	}
	for i, o := range ops {
		if o.invalid() {
			return li, nil, false
		}
		x, dt, ok := o.scalar()
		if !ok || !dt.IsInt() {
			fc.errorf(o.sp, ErrRange, "", "pl.range bound must be an integer, got %s", o.describe())
			return li, nil, false
		}
		vals[i] = x
	}
	start, stop, step := &operand{mode: modeStatic, cv: meta.Int{}, known: true}, ops[0], &operand{mode: modeStatic, cv: meta.Int{V: 1}, known: true, kv: 1}
	startX, stopX, stepX := ir.Operand(ir.IntConst(0, ir.INDEX)), vals[0], ir.Operand(ir.IntConst(1, ir.INDEX))
	if n >= 2 {
		start, stop = ops[0], ops[1]
		startX, stopX = vals[0], vals[1]
	}
	if n == 3 {
		step, stepX = ops[2], vals[2]
		if step.known && step.kv == 0 {
			fc.errorf(step.sp, ErrRange, "", "pl.range step is 0")
			return li, nil, false
		}
	}
	if start.known && stop.known && step.known {
		li.known, li.start, li.stop, li.step = true, start.kv, stop.kv, step.kv
	}
	return li, []ir.Operand{startX, stopX, stepX}, true
}

func argLabel(a syntax.Arg) string {
	switch {
	case a.Star:
		return "*args"
	case a.DoubleStar:
		return "**kwargs"
	}
	return a.Name + "="
}

func (fc *funcChecker) returnStmt(s *syntax.ReturnStmt) {
	fi := fc.info
	if fc.drainAtReturn { // the deferred tasks end before the orchestration does (tasks.go)
		fc.emit(&ir.Op{Name: ir.TaskDrainOp, Site: irSite(s.Pos)})
	}
	if fc.depth > 0 {
		fc.errorf(s.Pos, ErrReturnPlace, "", "return inside an if or a loop")
	}
	defer func() {
		if fc.depth == 0 {
			fc.returned = true
		}
	}()
	if s.Value == nil {
		if fi.annotated && fi.fn.Result != nil {
			fc.errorf(s.Pos, ErrReturnType, "", "bare return in %s, which declares result %s", describeFunc(fc.dsl), describeType(fi.fn.Result))
		}
		fc.emit(&ir.Return{Site: irSite(s.Pos)})
		return
	}
	var o *operand
	if lit, ok := s.Value.(*syntax.TupleLit); ok {
		o = fc.tupleValue(lit)
	} else {
		o = fc.expr(s.Value)
	}
	switch o.mode {
	case modeInvalid:
		fc.retSeen = true
		return
	case modeNoValue:
		if fi.annotated && fi.fn.Result != nil {
			fc.errorf(o.sp, ErrReturnType, "", "%s returns no value, but %s declares result %s",
				fc.c.text(calleeExpr(o.expr)), describeFunc(fc.dsl), describeType(fi.fn.Result))
		}
		fc.emit(&ir.Return{Site: irSite(s.Pos)})
		return
	case modeValue:
	default:
		x, dt, ok := o.scalar()
		if !ok {
			fc.errorf(o.sp, ErrNotRuntime, "", "cannot return %s from a DSL function", o.describe())
			fc.retSeen = true
			return
		}
		o = &operand{mode: modeValue, t: &ir.Scalar{DType: dt}, x: x, sp: o.sp, expr: o.expr}
	}
	fc.retSeen = true
	switch {
	case fi.annotated:
		if _, bad := fi.fn.Result.(*ir.Invalid); !bad && !ir.Returnable(fi.fn.Result, o.t) {
			fc.errorf(o.sp, ErrReturnType, "", "%s returns %s, want %s", describeFunc(fc.dsl), describeType(o.t), describeType(fi.fn.Result))
		}
	case fi.fn.Result == nil:
		fi.fn.Result = o.t
	case !ir.Compatible(fi.fn.Result, o.t):
		fc.errorf(o.sp, ErrReturnType, "", "%s returns %s here but %s earlier", describeFunc(fc.dsl), describeType(o.t), describeType(fi.fn.Result))
	}
	fc.emit(&ir.Return{Value: o.x, Site: irSite(s.Pos)})
}
